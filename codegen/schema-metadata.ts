/**
 * Metadata `zodFromJsonSchema` leaves on the zod schemas it makes, for codegen to read: zod's
 * converter files a JSON Schema's extra keywords in {@link jsonSchemaMetadata}, and the sanitizer
 * renames what it must not hand to zod under the keys below.
 */
import { z } from 'zod';

/** The metadata key marking a schema that stands for something its source could not express. */
export const FALLBACK_KEY = 'x-ptc-fallback';

/**
 * The metadata key holding a JSON Schema `pattern` that was dropped (not run on the host): the
 * declarations still show it, since the server checks it.
 */
export const UNCHECKED_PATTERN_KEY = 'x-ptc-unchecked-pattern';

/**
 * Metadata of schemas made by `zodFromJsonSchema`. A schema whose metadata has
 * {@link FALLBACK_KEY} is printed as `unknown` with the reason as a comment.
 */
export const jsonSchemaMetadata: z.core.$ZodRegistry<Record<string, unknown>> = z.registry<Record<string, unknown>>();
