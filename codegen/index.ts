/**
 * Codegen: TypeScript bindings derived from the tools' own schemas (`ToolArgsMap`,
 * `ToolOutputMap`, the `tools` declaration), and type-checking model code against them.
 */
export { generateToolTypes, PROGRAM_GLOBALS } from './generate-tool-types.js';
export type { GeneratedToolTypes, GenerateToolTypesOptions, ToolTypes } from './generate-tool-types.js';
export { declareTool } from './tool-declaration.js';
export type { DeclaredTool } from './tool-declaration.js';
export { checkCode, checkerFor, CodeChecker, warmupCheckCode, CHECK_COMPILER_OPTIONS, TYPESCRIPT_VERSION, PROGRAM_LIB, MAX_CHECKED_PROGRAM_CHARS, MAX_DIAGNOSTICS } from './check-code.js';
export type { CheckableTypes, CheckResult, CodeCheckerOptions, CodeDiagnostic } from './check-code.js';
export { MAX_SLEEP_MS, MAX_SLEEPS_AT_ONCE, SLEEP_CALL, SLEEP_DECLARATION } from './sleep.js';
export { languageLevelLine, languageLevelOf } from './language-level.js';
export type { LanguageLevel } from './language-level.js';
export { CHECKS_PER_SHARED_CHECKER } from './checker-session.js';
export type { CheckStrategy } from './checker-session.js';
export { normalizeNeedsParse, normalizeProgram } from './normalize-program.js';
export type { NormalizedProgram } from './normalize-program.js';
export { callableNameOf, mapCallableNames } from './callable-name.js';
export type { CallableNameMaps } from './callable-name.js';
export { CallableNameCollisionError, CodegenInputError } from './errors.js';
export { jsonSchemaParameters, MAX_JSON_SCHEMA_CHARS, MAX_JSON_SCHEMA_DEPTH, parametersFromJsonSchema, zodFromJsonSchema } from './json-schema.js';
export type { JsonSchemaParametersOptions, ZodFromJsonSchemaOptions, ZodFromJsonSchemaResult } from './json-schema.js';
