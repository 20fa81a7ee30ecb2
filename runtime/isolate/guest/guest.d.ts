/**
 * What the guest receives, and the shapes it uses inside. Not a module: these are globals of the
 * guest's own type-check (tsconfig.json here) only, never of the host project, which excludes
 * this file.
 */

/**
 * The bootstrap's one parameter: isolated-vm's `Reference` to the host's dispatch function
 * (prepared-isolate.ts). The only host object the isolate can reach, and only from the guest's
 * closure.
 */
declare const $0: GuestDispatchReference;

interface GuestDispatchReference {
  applySync(receiver: undefined, args: import('./protocol.js').DispatchArgs, options: object): unknown;
}

/** Caps of one conversion to JSON text, and the limit names a refusal reports (json.js). */
interface JsonCaps {
  readonly __proto__?: null;
  maxBytes: number;
  readonly maxDepth: number;
  readonly maxNodes: number;
  readonly bytesLimit?: string | undefined;
  readonly depthLimit?: string | undefined;
  readonly nodesLimit?: string | undefined;
  /** Call the program's own `toJSON` (console lines, thrown values) instead of refusing it (arguments, results). */
  readonly callToJSON?: boolean;
}

/** The run's caps, as `start` sets them from {@link import('./protocol.js').GuestCaps}. */
interface RunCaps {
  readonly __proto__?: null;
  readonly maxLogBytes: number;
  readonly maxResultBytes: number;
  readonly maxSleeps: number;
  readonly argCaps: JsonCaps;
  readonly resultCaps: JsonCaps;
}

/** Where the program names a tool it names exactly once: [line, column] (sites.js). */
type StaticSite = readonly [line: number, column: number];

/** Where a call was made: a static site, or an object holding the stack captured at the call. */
type CallSite = StaticSite | { readonly __proto__?: null; stack?: string };

/** V8's own API (Node's typings declare it for the host; the isolate has it too). */
interface ErrorConstructor {
  captureStackTrace(target: object, constructorOpt?: Function): void;
}
