/** UI cards: the render-intent union, its schemas, and the presenter wrapper `defineTool` uses. */
export { cardSchema, childCallStatusSchema, codeChildCallSchema, genericCard, pendingCardSchema, resultCardSchema } from './card-schema.js';
export type { Card, CardKind, CodeChildCall, GenericCard, PendingCard, ResultCard } from './card-schema.js';
export { wrapPresentCall, wrapPresentResult } from './present.js';
export type { PresentCall, PresentResult } from './present.js';
