/**
 * zod-to-ts through its CommonJS build, which loads TypeScript with `require` (its ESM build
 * imports TypeScript as ESM, which costs a scan of TypeScript's source; see typescript-module.cts).
 */
import zodToTs = require('zod-to-ts');
export = zodToTs;
