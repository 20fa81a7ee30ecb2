/**
 * The tool registry: names to tools, in a `Map` so a model-chosen name like `constructor` or
 * `__proto__` is simply unknown. `schemas()` builds what the model sees from an explicit
 * allowlist (name, description, parameters as JSON Schema): nothing else a tool carries, and
 * nothing an author adds, can reach the model through it.
 *
 * Two tools whose names map to one program name (`evil.read` and `evil_read` both to
 * `tools.evil_read`) are refused at registration, naming both: a program's `tools` object cannot
 * hold both, and finding out later would break every run_code program instead of this one call.
 */
import { callableNameOf } from './callable-name.js';
import { disposable } from './disposable.js';
import type { Tool, ToolSchema } from './tool-types.js';
import { ToolRegistrationError } from './errors.js';
import type { JsonObject } from './json.js';
import type { Disposable } from './types.js';

/**
 * A tool whose factory registers it on the host it was given (`createToolSearchTool({ host })`)
 * carries this key set to `true`: handing that same object to `register` again (the usual
 * `host.register(createX({ host }))`) is then harmless instead of a duplicate. Any other tool,
 * and any other object under the same name, is still refused.
 */
export const REGISTERS_ITSELF: unique symbol = Symbol.for('ptc-runtime.registersItself') as never;

function isTool(value: unknown): value is Tool {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return false;
  const t = value as Record<string, unknown>;
  return typeof t.name === 'string' && typeof t.execute === 'function' && typeof t.parametersJsonSchema === 'object';
}

/** Registered tools by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  /** Program name (`tools.<callable>`) -> the registered tool's name. */
  private readonly callables = new Map<string, string>();

  /** Registers one tool or several (all or none); returns a disposable that unregisters them. */
  register(toolOrTools: Tool | readonly Tool[]): Disposable {
    const given = Array.isArray(toolOrTools) ? [...(toolOrTools as readonly Tool[])] : [toolOrTools as Tool];
    const list = given.filter((tool) => !(this.tools.get(tool?.name) === tool && (tool as { [REGISTERS_ITSELF]?: unknown })[REGISTERS_ITSELF] === true));
    const seen = new Set<string>();
    const claimed = new Map<string, string>();
    for (const tool of list) {
      if (!isTool(tool)) {
        const name = typeof (tool as { name?: unknown })?.name === 'string' ? (tool as { name: string }).name : '?';
        throw new ToolRegistrationError(name, 'not a tool made by defineTool()');
      }
      if (this.tools.has(tool.name) || seen.has(tool.name)) throw new ToolRegistrationError(tool.name, 'a tool with this name is already registered');
      seen.add(tool.name);
      const callable = callableNameOf(tool.name);
      const owner = this.callables.get(callable) ?? claimed.get(callable);
      if (owner !== undefined) {
        throw new ToolRegistrationError(tool.name, `its program name tools.${callable} is already the program name of tool "${owner}"; rename one of them (a program could not tell them apart)`);
      }
      claimed.set(callable, tool.name);
    }
    for (const tool of list) {
      this.tools.set(tool.name, tool);
      this.callables.set(callableNameOf(tool.name), tool.name);
    }
    return disposable(() => {
      for (const tool of given) {
        if (this.tools.get(tool.name) !== tool) continue;
        this.tools.delete(tool.name);
        this.callables.delete(callableNameOf(tool.name));
      }
    });
  }

  /** The tool registered under `name` (own entries only), or undefined. */
  get(name: unknown): Tool | undefined {
    return typeof name === 'string' ? this.tools.get(name) : undefined;
  }

  /** All registered tools, in registration order. */
  list(): Tool[] {
    return [...this.tools.values()];
  }

  /** Names of all registered tools, in registration order. */
  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Model-facing schemas: fresh copies holding only name, description and parameters. */
  schemas(): ToolSchema[] {
    return this.list().map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: structuredClone(tool.parametersJsonSchema) as JsonObject,
    }));
  }
}
