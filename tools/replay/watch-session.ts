/**
 * The live side of replay: what a UI shows while a session runs, built by the same reducer that
 * `replaySession` uses, from the host's events as they are emitted.
 */
import type { ToolHost } from '../tool-types.js';
import type { Disposable } from '../types.js';
import { SessionViewBuilder } from './session-view.js';
import type { PresenterSource, SessionView } from './view-types.js';

/** A live view of a host's session. */
export interface SessionWatch extends Disposable {
  /** The session as shown now (a fresh value each time). */
  view(): SessionView;
}

/** Watches a host's events; presenters come from `tools` (default: the host's own tools). */
export function watchSession(host: ToolHost, options: { readonly tools?: PresenterSource } = {}): SessionWatch {
  const builder = new SessionViewBuilder(options.tools ?? host);
  const subscription = host.onEvent((event) => builder.apply(event));
  return { view: () => builder.snapshot(), dispose: () => subscription.dispose(), [Symbol.dispose]: () => subscription.dispose() };
}
