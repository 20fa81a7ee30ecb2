/**
 * `declareTool`: the declaration of one tool as a program sees it, for a reader who asks for a
 * few tools at a time (run_code's `tool_search`) instead of reading the whole `tools` file.
 *
 * It is cut from the same {@link GeneratedToolTypes} the program is checked against, so it
 * cannot say anything the check does not enforce: the same argument and value types, the same
 * `Recursive*` alias names (the aliases a tool's types refer to come along, transitively), the
 * description as JSDoc. The text is one `interface Tools { ... }` holding the tool's method with
 * its types written out inline: several of them side by side are still valid TypeScript
 * (interfaces merge), which is how a program's `tools` is declared too.
 */
import { CodegenInputError } from './errors.js';
import type { GeneratedToolTypes } from './generate-tool-types.js';
import { jsDocLines } from './jsdoc.js';

/** The tool to declare: its name in the tool set, and its description (the JSDoc). */
export interface DeclaredTool {
  readonly name: string;
  readonly description: string;
}

const ALIAS_NAME = /^type (Recursive(?:Args|Value)_\d+)\b/;
const ALIAS_REF = /\bRecursive(?:Args|Value)_\d+\b/g;
const INDENT = '    ';

function docComment(text: string): string[] {
  const lines = jsDocLines(text);
  if (lines.length === 0) return [];
  if (lines.length === 1) return [`/** ${lines[0]} */`];
  return ['/**', ...lines.map((line) => (line ? ` * ${line}` : ' *')), ' */'];
}

/** `text` with every line after the first indented one level (a printed type inside a member). */
function nested(text: string): string {
  return text.replace(/\n/g, `\n${INDENT}`);
}

/** The alias declarations `text` refers to, and those they refer to, in the set's order. */
function aliasesOf(types: GeneratedToolTypes, text: string): string[] {
  const byName = new Map<string, string>();
  for (const declaration of types.aliases) {
    const name = ALIAS_NAME.exec(declaration)?.[1];
    if (name !== undefined) byName.set(name, declaration);
  }
  const wanted = new Set<string>();
  const pending = [...text.matchAll(ALIAS_REF)].map((m) => m[0]);
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (wanted.has(name) || !byName.has(name)) continue;
    wanted.add(name);
    for (const m of byName.get(name)!.matchAll(ALIAS_REF)) pending.push(m[0]);
  }
  return [...byName].filter(([name]) => wanted.has(name)).map(([, declaration]) => declaration);
}

/**
 * The declaration of `tool` as a program checked against `types` sees it: an
 * `interface Tools { <callable>(args: {...}): Promise<...>; }` block with the description as
 * JSDoc, followed by the `Recursive*` aliases its types use. Throws {@link CodegenInputError}
 * when `types` has no tool of that name.
 */
export function declareTool(types: GeneratedToolTypes, tool: DeclaredTool): string {
  const t = types.tools.find((x) => x.toolName === tool.name);
  if (t === undefined) throw new CodegenInputError(`declareTool("${tool.name}")`, 'is not a tool of these generated types');
  const signature = `${t.callableName}(args${t.argsOptional ? '?' : ''}: ${nested(t.argsType)}): Promise<${nested(t.outputType)}>;`;
  const lines = ['interface Tools {', ...docComment(tool.description).map((line) => INDENT + line), INDENT + signature, '}'];
  const aliases = aliasesOf(types, `${t.argsType}\n${t.outputType}`);
  return [lines.join('\n'), ...aliases].join('\n') + '\n';
}
