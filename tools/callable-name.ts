/**
 * Tool name -> the name a program calls it by (`tools.<callable>`).
 *
 * The mapping is part of the contract with models and with the runtime (the guest's `tools`
 * object uses the same names), so it is simple, documented and stable:
 * - a name that is already an identifier (`^[A-Za-z_$][A-Za-z0-9_$]*$`, which every name
 *   `defineTool` calls callable matches) is used as is;
 * - otherwise every run of characters other than ASCII letters, digits and `_` becomes one `_`
 *   (`github.search-issues` -> `github_search_issues`, `fs/read:file` -> `fs_read_file`), and a
 *   leading digit gets a `_` prefix (`1password.get` -> `_1password_get`);
 * - a result that names an `Object.prototype` hazard (`__proto__`, `constructor`, `prototype`)
 *   gets a trailing `_`.
 *
 * It lives here, below codegen, because the registry refuses two tools with one callable name
 * at registration (a later program could not be given both); codegen re-exports it.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const HAZARDS = new Set(['__proto__', 'constructor', 'prototype']);

/** The callable name of a tool name, by the documented mapping above. */
export function callableNameOf(toolName: string): string {
  let name = IDENTIFIER.test(toolName) ? toolName : toolName.replace(/[^A-Za-z0-9_]+/g, '_');
  if (name === '') name = '_';
  if (/^[0-9]/.test(name)) name = `_${name}`;
  if (HAZARDS.has(name)) name = `${name}_`;
  return name;
}
