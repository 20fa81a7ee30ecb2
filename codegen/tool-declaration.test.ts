import { describe, expect, it } from 'vitest';
import { checkCode } from './check-code.js';
import { CodegenInputError } from './errors.js';
import { fixtureTools } from './fixtures/fixture-tools.js';
import { generateToolTypes, PROGRAM_GLOBALS } from './generate-tool-types.js';
import { declareTool } from './tool-declaration.js';

const types = generateToolTypes(fixtureTools);
const declaration = (name: string) => declareTool(types, fixtureTools.find((t) => t.name === name)!);

describe('when one tool is declared on its own', () => {
  it('writes its method with the types inline, the description and the constraints as JSDoc (exact text)', () => {
    expect(declaration('github.search-issues')).toBe(`interface Tools {
    /**
     * Search issues in a GitHub repository.
     * Results are sorted by last update, newest first.
     */
    github_search_issues(args: {
        /**
         * owner/name
         * @pattern ^[\\w.-]+\\/[\\w.-]+$
         */
        repo: string;
        /**
         * GitHub search syntax
         * @minLength 1
         * @maxLength 256
         */
        query: string;
        /** @default "open" */
        state?: "open" | "closed" | "all";
        /**
         * Most results to return
         * @integer
         * @minimum 1
         * @maximum 100
         * @default 20
         */
        limit?: number;
        /** @maxItems 10 */
        labels?: (/* @minLength 1 */ string)[];
    }): Promise<{
        total: number;
        items: {
            number: number;
            title: string;
            /** Login, or null when unassigned */
            assignee: string | null;
            labels: string[];
        }[];
    }>;
}
`);
  });

  it('marks args optional when every argument is, and brings the recursive aliases its types use', () => {
    const text = declaration('list_folders');
    expect(text).toContain('list_folders(args?: {');
    expect(text).toContain('}): Promise<RecursiveValue_1>;');
    expect(text).toContain('type RecursiveValue_1 = {');
    // A tool whose types use no alias gets none.
    expect(declaration('read_file')).not.toContain('type Recursive');
  });

  it('is the program\'s view: every declaration together checks programs exactly as the full file does', () => {
    const merged = [...fixtureTools.map((t) => declareTool(types, t)), 'declare const tools: Tools;', PROGRAM_GLOBALS].join('\n');
    const pieces = { declarations: merged, toolNames: types.toolNames };
    const good = 'const r = await tools.github_search_issues({ repo: "a/b", query: "bug" }); return r.items.map((i) => i.assignee ?? i.title);';
    const bad = 'const r = await tools.get_weather({ city: 1 }); return r.temperatur;';
    expect(checkCode(good, pieces).diagnostics).toEqual([]);
    expect(checkCode(good, types).diagnostics).toEqual([]);
    const messages = (d: ReturnType<typeof checkCode>) => d.diagnostics.map((x) => `${x.line}:${x.column} ${x.message}`);
    expect(messages(checkCode(bad, pieces))).toEqual(messages(checkCode(bad, types)));
    expect(messages(checkCode(bad, pieces))).toHaveLength(2);
  });

  it('refuses a tool that is not in the generated set, naming it', () => {
    expect(() => declareTool(types, { name: 'nope', description: '' })).toThrow(CodegenInputError);
    expect(() => declareTool(types, { name: 'nope', description: '' })).toThrow(/declareTool\("nope"\)/);
  });

  it('keeps a hostile description inside its comment', () => {
    const text = declareTool(types, { name: 'read_file', description: 'x */ declare const evil: 1; /*' });
    expect(text).toContain('x *\\/ declare const evil: 1; /*');
    expect(checkCode('return evil;', { declarations: `${text}\ndeclare const tools: Tools;\n${PROGRAM_GLOBALS}`, toolNames: types.toolNames }).ok).toBe(false);
  });
});
