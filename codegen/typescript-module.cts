/**
 * TypeScript, loaded through `require`. An ESM `import` of TypeScript's CommonJS build makes
 * Node scan its 9 MB source for export names before running it (0.6-1 s of every process that
 * loads the codegen); this CommonJS module re-exports it under a name Node does not look into.
 */
import ts = require('typescript');
export = ts;
