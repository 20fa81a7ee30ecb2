/** Session replay: the session view (calls, cards, decisions, results, PTC trees, jobs), live or from a log. */
export { EVENT_LOG_FORMAT, replaySession } from './replay-session.js';
export type { LogFormat, ReplayedSession, ReplayOptions, ReplayProblem } from './replay-session.js';
export { SessionViewBuilder } from './session-view.js';
export type { CallStatus, CallView, DecisionView, JobView, PresenterSource, ResultView, RunView, SessionView } from './view-types.js';
export { watchSession } from './watch-session.js';
export type { SessionWatch } from './watch-session.js';
export { readEvent } from './read-event.js';
export type { ReadEventResult } from './read-event.js';
