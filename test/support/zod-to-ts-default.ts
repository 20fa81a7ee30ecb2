/** Under test, codegen/zod-to-ts-module.cjs resolves here: zod-to-ts as one default export, as the built code sees it. */
import * as zodToTs from 'zod-to-ts';
export default zodToTs;
