/** Step 9: content for the model from the final value. */
import type { Tool } from './tool-types.js';
import { clipText } from './errors.js';
import type { JsonValue } from './json.js';
import { takeJsonText } from './json-slices.js';
import { jsonPreview, readableJson } from './json-text.js';
import type { ContentBlock } from './types.js';

/** Longest `uri` of a resource or resource link. */
export const MAX_CONTENT_URI_CHARS = 8 * 1024;
/** Longest `mimeType`, `name`, `title`. */
export const MAX_CONTENT_LABEL_CHARS = 1024;
/** Longest `description` of a resource link. */
export const MAX_CONTENT_DESCRIPTION_CHARS = 8 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MIME = /^[\w.+-]+\/[\w.+-]+(?:\s*;.*)?$/;

/** A named problem with one field of one block. */
function bad(who: string, path: string, what: string): never {
  throw new TypeError(`${who}: content${path} ${what}`);
}

function str(who: string, path: string, v: unknown, max: number): string {
  if (typeof v !== 'string') bad(who, path, `must be a string (got ${v === null ? 'null' : typeof v})`);
  if (v.length > max) bad(who, path, `is ${v.length} characters; the most is ${max}`);
  return v;
}

function base64(who: string, path: string, v: unknown): string {
  if (typeof v !== 'string') bad(who, path, `must be a base64 string (got ${v === null ? 'null' : typeof v})`);
  if (!BASE64.test(v)) bad(who, path, 'is not base64');
  return v;
}

function mime(who: string, path: string, v: unknown): string {
  const m = str(who, path, v, MAX_CONTENT_LABEL_CHARS);
  if (!MIME.test(m)) bad(who, path, `is not a MIME type ("type/subtype")`);
  return m;
}

const optional = <T>(v: unknown, check: () => T): T | undefined => (v === undefined ? undefined : check());

function checkBlock(block: unknown, i: number, who: string): ContentBlock {
  const b = block as Record<string, unknown> | null;
  const at = `[${i}]`;
  if (b === null || typeof b !== 'object' || Array.isArray(b)) bad(who, at, 'is not a content block object');
  switch (b.type) {
    case 'text':
      return Object.freeze({ type: 'text' as const, text: str(who, `${at}.text`, b.text, Number.MAX_SAFE_INTEGER) });
    case 'image':
    case 'audio':
      return Object.freeze({ type: b.type, data: base64(who, `${at}.data`, b.data), mimeType: mime(who, `${at}.mimeType`, b.mimeType) });
    case 'resource': {
      const r = b.resource as Record<string, unknown> | null;
      if (r === null || typeof r !== 'object' || Array.isArray(r)) bad(who, `${at}.resource`, 'must be an object { uri, mimeType?, text? | blob? }');
      const uri = str(who, `${at}.resource.uri`, r.uri, MAX_CONTENT_URI_CHARS);
      const mimeType = optional(r.mimeType, () => mime(who, `${at}.resource.mimeType`, r.mimeType));
      const head = { uri, ...(mimeType !== undefined ? { mimeType } : {}) };
      if ((r.text === undefined) === (r.blob === undefined)) bad(who, `${at}.resource`, 'must have exactly one of text and blob');
      const resource = r.text !== undefined ? { ...head, text: str(who, `${at}.resource.text`, r.text, Number.MAX_SAFE_INTEGER) } : { ...head, blob: base64(who, `${at}.resource.blob`, r.blob) };
      return Object.freeze({ type: 'resource' as const, resource: Object.freeze(resource) });
    }
    case 'resource_link': {
      const title = optional(b.title, () => str(who, `${at}.title`, b.title, MAX_CONTENT_LABEL_CHARS));
      const description = optional(b.description, () => str(who, `${at}.description`, b.description, MAX_CONTENT_DESCRIPTION_CHARS));
      const mimeType = optional(b.mimeType, () => mime(who, `${at}.mimeType`, b.mimeType));
      const size = optional(b.size, () => (typeof b.size === 'number' && Number.isSafeInteger(b.size) && b.size >= 0 ? b.size : bad(who, `${at}.size`, 'must be a non-negative integer')));
      return Object.freeze({
        type: 'resource_link' as const,
        uri: str(who, `${at}.uri`, b.uri, MAX_CONTENT_URI_CHARS),
        name: str(who, `${at}.name`, b.name, MAX_CONTENT_LABEL_CHARS),
        ...(title !== undefined ? { title } : {}),
        ...(description !== undefined ? { description } : {}),
        ...(mimeType !== undefined ? { mimeType } : {}),
        ...(size !== undefined ? { size } : {}),
      });
    }
    default:
      return bad(who, `${at}.type`, `is ${JSON.stringify(String(b.type)).slice(0, 60)}, not one of text, image, audio, resource, resource_link`);
  }
}

/** Content blocks checked and frozen; throws a TypeError naming the block, the field and the limit. */
export function checkContent(content: unknown, who: string): readonly ContentBlock[] {
  if (typeof content === 'string') return Object.freeze([Object.freeze({ type: 'text' as const, text: content })]);
  if (!Array.isArray(content)) throw new TypeError(`${who} must return content blocks or a string`);
  return Object.freeze(content.map((block, i) => checkBlock(block, i, who)));
}

/**
 * Renders with the tool's `output.render`, or as the string itself, or as JSON: for a model's
 * call {@link readableJson} (indented unless that explodes), for a program's call
 * (`forProgram`) a bounded compact preview (4 KiB), made when its text is first read: nobody
 * may read it (the program gets the value; the model sees only the run's output), yet every
 * `tool/result` event carries it. Throws on a bad render.
 */
export function renderContent(tool: Tool, args: JsonValue, value: JsonValue, forProgram = false): readonly ContentBlock[] {
  if (tool.output.render) return checkContent(tool.output.render(args, value), `tool "${tool.name}": output.render`);
  if (typeof value === 'string') return forProgram && value.length > CHILD_CONTENT_CHARS ? lazyText(() => clipText(value, CHILD_CONTENT_CHARS)) : textContent(value);
  // A large value's compact text was made in its materialization's slices (pipeline.ts step 7).
  if (!forProgram) return textContent(readableJson(value, takeJsonText(value)?.text));
  return isSmallFlat(value) ? textContent(JSON.stringify(value)) : lazyText(() => jsonPreview(value, CHILD_CONTENT_CHARS));
}

/**
 * Whether a large value's materialization also makes its JSON text: for a program (the bridge
 * sends it), and for a model's call of a tool without `output.render` (its content is that text:
 * {@link renderContent}). Made in the walk's slices, it spares the host a one-go `JSON.stringify` of the
 * whole value afterwards.
 */
export function withTextFor(tool: Tool, forProgram: boolean): boolean {
  return forProgram || tool.output.render === undefined;
}

/** Most characters of a program's call's content (a preview; the value is whole). */
export const CHILD_CONTENT_CHARS = 4 * 1024;

/** At most 8 entries, none an object or array: rendering at once is cheaper than deferring it. */
function isSmallFlat(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object') return true;
  let n = 0;
  if (Array.isArray(value)) {
    if (value.length > 8) return false;
    for (const item of value) if (item !== null && typeof item === 'object') return false;
    return true;
  }
  for (const key in value) {
    const item = value[key];
    if (++n > 8 || (item !== null && typeof item === 'object')) return false;
  }
  return true;
}

/**
 * A text block whose text is made when first read. The value behind it is frozen canonical
 * JSON, so the text is the same whenever it is read. (`text` is an accessor, which the strict
 * JSON copier refuses; that is why calls from a model get plain blocks.)
 */
function lazyText(make: () => string): readonly ContentBlock[] {
  let text: string | undefined;
  const block = {
    type: 'text' as const,
    get text(): string {
      return (text ??= make());
    },
  };
  return Object.freeze([Object.freeze(block)]);
}

/** A single text block. */
export function textContent(text: string): readonly ContentBlock[] {
  return Object.freeze([Object.freeze({ type: 'text' as const, text })]);
}
