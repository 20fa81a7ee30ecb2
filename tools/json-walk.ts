/**
 * The one traversal behind every strict JSON copy and check (json.ts has the rules and the public
 * functions; json-slices.ts the versions that pause).
 *
 * A walk either runs to the end in one go, or, for a large value, in slices with the event loop
 * turning between them. The sliced walk visits a container member by member; each member is
 * first walked in one go within a node budget ({@link SLICE_NODES}); a member over it is thrown
 * away and walked member by member in turn. So whatever the shape (one wide array, a narrow chain
 * to it, a huge member among small ones), no piece walked in one go has more than about a budget
 * of values, and at most a budget of work per level is done twice. Both kinds of walk read the
 * same members through the same checks (`item`, `member`, `checkedMember`), so they accept and
 * refuse exactly the same values, with the same paths (json-slices.test.ts compares them).
 */
import { PtcError } from './errors.js';
import type { JsonObject, JsonValue } from './json-types.js';
import type { TimeSlices } from './time-slices.js';
import type { ResultTextStream } from './result-text-stream.js';

/** A value could not be copied as plain JSON; `path` says where (`$.items[2].when`). */
export class NotJsonError extends PtcError {
  override readonly name = 'NotJsonError';
  constructor(
    readonly path: string,
    readonly found: string,
    message = `${path}: ${found} is not a JSON value`,
  ) {
    super(message);
  }
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends a key to a JSON path in the readable `$.a.b[0]["x-y"]` form. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** Values a sliced walk walks in one go at most (about 1-2 ms of copying here). */
export const SLICE_NODES = 16_384;

/** The clock is read once per this many values walked in slices (about 0.1 ms of work). */
const CLOCK_NODES = 512;

/** Thrown inside a walk that passed its node budget (caught by the walk itself). */
const OVER_BUDGET: unique symbol = Symbol('over budget');

/** What {@link Walk.withinBudget} returns for work over its budget. */
export type WalkBudget = typeof OVER_BUDGET;

/** What {@link Walk.member} returns for a member that JSON leaves out (an `undefined` value). */
const SKIP: unique symbol = Symbol('skip');

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'bigint') return 'a BigInt';
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'object' && value !== null) {
    const ctor = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor;
    const name = typeof ctor?.name === 'string' && ctor.name ? ctor.name : 'object';
    return `a class instance (${name})`;
  }
  return typeof value;
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Defines an own enumerable data property, so `__proto__` is just a key. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * One traversal. `objects` holds the objects on the current path (a repeat is a cycle; a value
 * shared between siblings is fine) and `keys` the path to them; the readable path string is
 * built only when something is refused, which keeps the common case cheap.
 */
export class Walk {
  private readonly objects: object[] = [];
  private readonly keys: (string | number)[] = [];
  /** Values seen so far (objects, arrays and scalars). */
  nodes = 0;
  /** A walk in one go inside a sliced walk stops when `nodes` passes this. */
  private limit = Number.POSITIVE_INFINITY;
  /**
   * `freeze`: copies freeze each object they build (one pass instead of copy, then freeze).
   * `refuseProtoKeys`: prototype keys are refused (see json.ts).
   */
  constructor(
    private readonly root: string,
    private readonly freeze: boolean,
    private readonly refuseProtoKeys: boolean,
  ) {}

  private pathTo(key?: string | number): string {
    let path = this.root;
    for (const k of this.keys) path = childPath(path, k);
    if (key !== undefined) path = childPath(path, key);
    return path;
  }

  private fail(found: string, key?: string | number): never {
    throw new NotJsonError(this.pathTo(key), found);
  }

  /** A `__proto__` key, or an object under `constructor` that has a `prototype` key. */
  private refuseProtoKey(key: string, child: unknown): void {
    if (key === '__proto__') {
      const path = this.pathTo(key);
      throw new NotJsonError(path, 'a __proto__ key', `${path}: a "__proto__" key is not accepted (it can pollute a prototype)`);
    }
    if (key === 'constructor' && typeof child === 'object' && child !== null && Object.prototype.hasOwnProperty.call(child, 'prototype')) {
      const path = this.pathTo(key);
      throw new NotJsonError(path, 'a constructor.prototype key', `${path}: an object with a "prototype" key under "constructor" is not accepted (it can pollute a prototype)`);
    }
  }

  private enter(value: object): void {
    if (this.objects.includes(value)) this.fail('a cycle');
    this.objects.push(value);
  }

  private count(): void {
    if (++this.nodes > this.limit) throw OVER_BUDGET;
  }

  // ---- copy --------------------------------------------------------------------------------------

  copy(value: unknown): JsonValue {
    this.count();
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        if (!Number.isFinite(value)) this.fail(describe(value));
        return Object.is(value, -0) ? 0 : value;
      case 'object': {
        if (value === null) return null;
        this.enter(value);
        const out = Array.isArray(value) ? this.copyArray(value) : this.copyObject(value);
        this.objects.pop();
        if (this.freeze) Object.freeze(out);
        return out;
      }
      default:
        return this.fail(describe(value));
    }
  }

  /** Item `i` of an array being copied (a hole or an accessor is refused). */
  private item(value: unknown[], i: number): unknown {
    const desc = Object.getOwnPropertyDescriptor(value, i);
    if (!desc) this.fail('a hole in a sparse array', i);
    if (!('value' in desc)) this.fail('an accessor property', i);
    return desc.value;
  }

  /** Member `key` of an object being copied, or SKIP for an `undefined` one (accessors and prototype keys are refused). */
  private member(value: object, key: string): unknown {
    const desc = Object.getOwnPropertyDescriptor(value, key)!;
    if (!('value' in desc)) this.fail('an accessor property', key);
    if (desc.value === undefined) return SKIP;
    if (this.refuseProtoKeys && (key === '__proto__' || key === 'constructor')) this.refuseProtoKey(key, desc.value);
    return desc.value;
  }

  private startArray(value: unknown[]): JsonValue[] {
    if (Object.getPrototypeOf(value) !== Array.prototype) this.fail(describe(value));
    return new Array(value.length);
  }

  private startObject(value: object): JsonObject {
    if (!isPlainObject(value)) this.fail(describe(value));
    this.refuseSymbolKeys(value);
    return {};
  }

  private copyArray(value: unknown[]): JsonValue[] {
    const out = this.startArray(value);
    for (let i = 0; i < out.length; i++) {
      const child = this.item(value, i);
      this.keys.push(i);
      out[i] = this.copy(child);
      this.keys.pop();
    }
    return out;
  }

  private copyObject(value: object): JsonObject {
    const out = this.startObject(value);
    for (const key of Object.keys(value)) {
      const child = this.member(value, key);
      if (child === SKIP) continue;
      this.keys.push(key);
      put(out, key, this.copy(child));
      this.keys.pop();
    }
    return out;
  }

  /**
   * {@link copy} in slices: each member in one go within {@link SLICE_NODES} values, a member
   * over it member by member, with a pause whenever `slices` says the slice is over. With
   * `text`, the JSON text of the copy is appended to it on the way, in pieces (the members
   * copied in one go are turned into text together, by `JSON.stringify` of the fresh copy).
   */
  async copyInSlices(value: unknown, slices: TimeSlices, text?: SpineText): Promise<JsonValue> {
    const inOneGo = this.withinBudget(() => this.copy(value));
    if (inOneGo === OVER_BUDGET) return this.copyLarge(value as object, slices, text);
    text?.value(inOneGo);
    return inOneGo;
  }

  /** A container over the budget (the one-go attempt failed), copied member by member. */
  async copyLarge(container: object, slices: TimeSlices, text: SpineText | undefined): Promise<JsonValue> {
    this.count();
    this.enter(container);
    let out: JsonValue[] | JsonObject;
    if (Array.isArray(container)) {
      const items = this.startArray(container);
      text?.open('[');
      let from = 0;
      for (let i = 0; i < items.length; i++) {
        const child = this.item(container, i);
        this.keys.push(i);
        const copied = this.budgeted(this.copy, child, SLICE_NODES);
        if (copied === OVER_BUDGET) {
          text?.items(items, from, i);
          from = i + 1;
          items[i] = await this.copyLarge(child as object, slices, text);
        } else items[i] = copied;
        this.keys.pop();
        if (this.sliceDue(slices)) {
          text?.items(items, from, i + 1);
          from = i + 1;
          await slices.pause(text?.behind());
        }
      }
      text?.items(items, from, items.length);
      text?.close(']');
      out = items;
    } else {
      const members = this.startObject(container);
      text?.open('{');
      for (const key of Object.keys(container)) {
        const child = this.member(container, key);
        if (child === SKIP) continue;
        this.keys.push(key);
        text?.key(key);
        const copied = this.budgeted(this.copy, child, SLICE_NODES);
        if (copied === OVER_BUDGET) put(members, key, await this.copyLarge(child as object, slices, text));
        else {
          text?.value(copied);
          put(members, key, copied);
        }
        this.keys.pop();
        if (this.sliceDue(slices)) await slices.pause(text?.behind());
      }
      text?.close('}');
      out = members;
    }
    this.objects.pop();
    if (this.freeze) Object.freeze(out);
    return out;
  }

  /** Values walked when the clock was last read (reading it costs as much as copying a few values). */
  private clockAt = 0;

  /** Whether the slice is over: the clock is read only once per {@link CLOCK_NODES} values walked. */
  private sliceDue(slices: TimeSlices): boolean {
    if (this.nodes - this.clockAt < CLOCK_NODES) return false;
    this.clockAt = this.nodes;
    return slices.due();
  }

  /** Whether a result of {@link withinBudget} says the work was over its budget. */
  static isOverBudget(result: unknown): result is WalkBudget {
    return result === OVER_BUDGET;
  }

  /**
   * Runs `work` (this walk's `copy` or `check`) with a budget of `nodes` values; over it, the
   * walk is put back as it was and OVER_BUDGET returned (what the work made is dropped).
   */
  withinBudget<T>(work: () => T, nodes = SLICE_NODES): T | WalkBudget {
    return this.budgeted(work, undefined, nodes);
  }

  /**
   * `work.call(this, value)` within a budget of `nodes` values (see {@link withinBudget}). The
   * sliced walks call it once per member with `this.copy` or `this.check`: no closure each time.
   */
  private budgeted<T>(work: (this: Walk, value: unknown) => T, value: unknown, nodes: number): T | WalkBudget {
    const { limit } = this;
    const counted = this.nodes;
    const depth = this.keys.length;
    const open = this.objects.length;
    this.limit = counted + nodes;
    try {
      return work.call(this, value);
    } catch (err) {
      if (err !== OVER_BUDGET) throw err;
      this.nodes = counted;
      this.keys.length = depth;
      this.objects.length = open;
      return OVER_BUDGET;
    } finally {
      this.limit = limit;
    }
  }

  private refuseSymbolKeys(value: object): void {
    const symbols = Object.getOwnPropertySymbols(value);
    if (symbols.length > 0 && symbols.some((s) => Object.prototype.propertyIsEnumerable.call(value, s))) this.fail('a symbol key');
  }

  // ---- parsed documents --------------------------------------------------------------------------

  /** Counts and checks prototype keys in a document of `parseFrozenJson` (plain JSON: direct reads are safe). */
  verifyParsed(value: JsonValue): void {
    this.nodes++;
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item = value[i]!;
        if (typeof item === 'object' && item !== null) {
          this.keys.push(i);
          this.verifyParsed(item);
          this.keys.pop();
        } else this.nodes++;
      }
      return;
    }
    for (const key of Object.keys(value)) {
      const child = value[key]!;
      if (this.refuseProtoKeys && (key === '__proto__' || key === 'constructor')) this.refuseProtoKey(key, child);
      if (typeof child === 'object' && child !== null) {
        this.keys.push(key);
        this.verifyParsed(child);
        this.keys.pop();
      } else this.nodes++;
    }
  }

  // ---- check in place ----------------------------------------------------------------------------

  check(value: unknown): void {
    this.count();
    const at = this.checkNode(value);
    if (at === undefined) return;
    const container = value as object;
    const isArray = Array.isArray(container);
    let count = 0;
    for (const key of Object.keys(container)) {
      count++;
      const child = this.checkedMember(container, key, isArray);
      if (child === SKIP) continue;
      this.keys.push(isArray ? Number(key) : key);
      this.check(child);
      this.keys.pop();
    }
    this.endCheck(container, isArray, count);
  }

  /** {@link check} in slices, as {@link copyInSlices} copies (`text`: the JSON text of the value as checked). */
  async checkInSlices(value: unknown, slices: TimeSlices, text?: SpineText): Promise<void> {
    if (this.withinBudget(() => this.check(value)) === OVER_BUDGET) return this.checkSpine(value as object, slices, text);
    text?.value(value as JsonValue);
  }

  /** A container over the budget, checked member by member. */
  private async checkSpine(value: object, slices: TimeSlices, text: SpineText | undefined): Promise<void> {
    this.count();
    const container = this.checkNode(value)!;
    const isArray = Array.isArray(container);
    const items = container as JsonValue[];
    text?.open(isArray ? '[' : '{');
    let count = 0;
    let from = 0;
    for (const key of Object.keys(container)) {
      const i = count++;
      const child = this.checkedMember(container, key, isArray);
      if (child === SKIP) continue;
      this.keys.push(isArray ? Number(key) : key);
      if (!isArray) text?.key(key);
      if (this.budgeted(this.check, child, SLICE_NODES) === OVER_BUDGET) {
        if (isArray) text?.items(items, from, i);
        from = i + 1;
        await this.checkSpine(child as object, slices, text);
      } else if (!isArray) text?.value(child as JsonValue);
      this.keys.pop();
      if (this.sliceDue(slices)) {
        if (isArray) text?.items(items, from, i + 1);
        from = i + 1;
        await slices.pause(text?.behind());
      }
    }
    if (isArray) text?.items(items, from, count);
    text?.close(isArray ? ']' : '}');
    this.endCheck(container, isArray, count);
  }

  /** Checks a scalar (returns undefined) or enters a container (returns it). */
  private checkNode(value: unknown): object | undefined {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return undefined;
      case 'number':
        if (!Number.isFinite(value)) this.fail(describe(value));
        return undefined;
      case 'object': {
        if (value === null) return undefined;
        this.enter(value);
        if (Array.isArray(value) ? Object.getPrototypeOf(value) !== Array.prototype : !isPlainObject(value)) this.fail(describe(value));
        this.refuseSymbolKeys(value);
        return value;
      }
      default:
        return this.fail(describe(value));
    }
  }

  /** Member `key` of a container checked in place: an `undefined` object member is deleted (SKIP). */
  private checkedMember(container: object, key: string, isArray: boolean): unknown {
    const desc = Object.getOwnPropertyDescriptor(container, key)!;
    const at = isArray ? Number(key) : key;
    if (!('value' in desc)) this.fail('an accessor property', at);
    if (desc.value === undefined) {
      if (isArray) this.fail('undefined', at);
      delete (container as Record<string, unknown>)[key];
      return SKIP;
    }
    if (this.refuseProtoKeys && !isArray && (key === '__proto__' || key === 'constructor')) this.refuseProtoKey(key, desc.value);
    return desc.value;
  }

  private endCheck(container: object, isArray: boolean, count: number): void {
    if (isArray && count !== (container as unknown[]).length) this.fail('a sparse array');
    this.objects.pop();
    Object.freeze(container);
  }
}

function put(out: JsonObject, key: string, child: JsonValue): void {
  if (key === '__proto__') setOwn(out, key, child);
  else out[key] = child;
}

/**
 * The JSON text of a value walked in slices, in pieces: brackets and keys of the containers
 * walked member by member, and `JSON.stringify` of what was walked in one go (plain, fresh JSON,
 * so its text is exactly what `JSON.stringify` of the whole would give). `stringifyMs` is the
 * time spent making text.
 */
export class SpineText {
  readonly parts: string[] = [];
  stringifyMs = 0;
  /** Whether the next value in the current container needs a comma before it. */
  private comma = false;
  /** Containers open: the top-level array's items are at depth 1. */
  private depth = 0;
  /** The top-level value is an array (its items may be streamed). */
  private topArray = false;
  /** First part not yet streamed, and the characters from it on. */
  private streamFrom = 0;
  private pending = 0;
  private streamed = false;

  /** `stream`: gets the top-level array's items in parts as they are made (result-text-stream.ts). */
  constructor(private readonly stream?: ResultTextStream) {}

  open(bracket: '[' | '{'): void {
    this.separate();
    this.parts.push(bracket);
    this.comma = false;
    if (this.depth++ === 0) {
      this.topArray = bracket === '[';
      this.streamFrom = this.parts.length;
    }
  }

  close(bracket: ']' | '}'): void {
    if (--this.depth === 0 && this.topArray && this.streamed) this.flush();
    this.parts.push(bracket);
    this.comma = true;
  }

  /** The key of the next member (its value follows). */
  key(key: string): void {
    this.separate();
    this.parts.push(`${JSON.stringify(key)}:`);
    this.comma = false;
  }

  /** A whole value. */
  value(value: JsonValue): void {
    this.separate();
    const t0 = performance.now();
    const text = JSON.stringify(value);
    this.parts.push(text);
    this.stringifyMs += performance.now() - t0;
    this.comma = true;
    this.afterItems(text.length);
  }

  /** Items `from` to `to` (exclusive) of an array, each already a whole JSON value. */
  items(items: readonly JsonValue[], from: number, to: number): void {
    if (to <= from) return;
    this.separate();
    const t0 = performance.now();
    const group = JSON.stringify(from === 0 && to === items.length ? items : items.slice(from, to));
    this.parts.push(group.slice(1, -1));
    this.stringifyMs += performance.now() - t0;
    this.comma = true;
    this.afterItems(group.length);
  }

  /** UTF-8 length of the text, once {@link join} made it. */
  bytes = 0;

  /**
   * The whole text (and the stream's end, if it got parts). A streamed text is a rope of its
   * parts (V8 joins strings added with `+` lazily): its consumer already has the parts and only
   * compares it with the outcome's text by identity, while a flat copy of 10 MB held the event
   * loop ~35 ms here (allocating that much fresh memory, not the copying, is the cost).
   */
  join(): string {
    const t0 = performance.now();
    let text = '';
    let bytes = 0;
    if (this.streamed) {
      for (const part of this.parts) {
        text += part;
        bytes += Buffer.byteLength(part, 'utf8');
      }
    } else {
      text = this.parts.join('');
      bytes = Buffer.byteLength(text, 'utf8');
    }
    this.bytes = bytes;
    this.stringifyMs += performance.now() - t0;
    if (this.streamed) this.stream!.end(text);
    return text;
  }

  /** A promise while the stream's consumer is behind (the walk's next pause waits for it). */
  behind(): Promise<void> | undefined {
    return this.streamed ? this.stream!.behind?.() : undefined;
  }

  private separate(): void {
    if (this.comma) this.parts.push(',');
  }

  /** Whole top-level items were added: stream them once there are enough. */
  private afterItems(chars: number): void {
    if (this.stream === undefined || this.depth !== 1 || !this.topArray) return;
    this.pending += chars;
    if (this.pending >= STREAM_PART_CHARS) this.flush();
  }

  private flush(): void {
    const { parts } = this;
    let from = this.streamFrom;
    if (parts[from] === ',') from++;
    this.streamFrom = parts.length;
    this.pending = 0;
    if (from >= parts.length) return;
    this.streamed = true;
    this.stream!.items(from === parts.length - 1 ? parts[from]! : parts.slice(from).join(''));
  }
}

/** Characters of whole items a stream gets at once, at least (a few ms of the walk's work). */
const STREAM_PART_CHARS = 128 * 1024;
