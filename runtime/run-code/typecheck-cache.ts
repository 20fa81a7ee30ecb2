/**
 * Results of type checks, kept so that a program checked before is not checked again (a model
 * often resends the same program, and several agents send the same one). The key is a SHA-256 of
 * everything the result depends on: the TypeScript version, the compiler options, the tools'
 * declarations and callable names, and the program's text. Only completed checks are kept (never
 * one cut short by a limit, which may pass another time). Least recently used entries go first.
 */
import { createHash } from 'node:crypto';
import { CHECK_COMPILER_OPTIONS, TYPESCRIPT_VERSION, type CheckableTypes, type CheckResult } from '../../codegen/index.js';
import { InvalidOptionError } from '../../tools/index.js';

/** Entries kept by default. */
export const DEFAULT_TYPECHECK_CACHE_SIZE = 256;

/** The `typecheckCache` option: `false` for none, or the number of entries (default 256). */
export type TypecheckCacheOption = false | { readonly size?: number };

/** What the key of a check starts with: the checker's version and options. */
export function checkerIdentity(options: object = CHECK_COMPILER_OPTIONS, version: string = TYPESCRIPT_VERSION): string {
  return `typescript ${version}\n${JSON.stringify(options)}`;
}

/** An LRU of check results by the SHA-256 of their inputs. */
export class TypecheckCache {
  private readonly entries = new Map<string, CheckResult>();
  /** Digests of declaration sets, by the (cached, reused) types object of a tool set. */
  private readonly digests = new WeakMap<CheckableTypes, string>();
  private hitCount = 0;

  constructor(
    readonly size: number = DEFAULT_TYPECHECK_CACHE_SIZE,
    private readonly identity: string = checkerIdentity(),
  ) {}

  /** Lookups answered from the cache so far. */
  get hits(): number {
    return this.hitCount;
  }

  /** The key of checking `code` against `types`. */
  keyOf(code: string, types: CheckableTypes): string {
    let tools = this.digests.get(types);
    if (tools === undefined) {
      tools = createHash('sha256').update(types.declarations).update('\0').update(JSON.stringify([...types.toolNames])).digest('hex');
      this.digests.set(types, tools);
    }
    return createHash('sha256').update(this.identity).update('\0').update(tools).update('\0').update(code).digest('hex');
  }

  /** The result for `key`, if kept (it becomes the most recently used). */
  get(key: string): CheckResult | undefined {
    const result = this.entries.get(key);
    if (result === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, result);
    this.hitCount++;
    return result;
  }

  /** Keeps `result` for `key`, dropping the least recently used entry when full. */
  set(key: string, result: CheckResult): void {
    this.entries.delete(key);
    this.entries.set(key, result);
    if (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** The cache an option asks for (undefined for `false`); checks the size. */
export function resolveTypecheckCache(option: TypecheckCacheOption | undefined): TypecheckCache | undefined {
  if (option === false) return undefined;
  if (option === undefined) return new TypecheckCache();
  const size = typeof option === 'object' && option !== null ? (option.size ?? DEFAULT_TYPECHECK_CACHE_SIZE) : undefined;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 1_000_000) {
    throw new InvalidOptionError({ where: 'createRunCodeTool', option: 'typecheckCache', value: option, expected: 'false, or { size } with size an integer from 1 to 1000000' });
  }
  return new TypecheckCache(size);
}
