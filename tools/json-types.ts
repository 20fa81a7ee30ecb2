/** The JSON value types every boundary of the pipeline uses (types only: json.ts and json-walk.ts share them without an import cycle). */

/** A JSON value as it crosses every boundary of the pipeline. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object; keys are own data properties. */
export type JsonObject = { [key: string]: JsonValue };
