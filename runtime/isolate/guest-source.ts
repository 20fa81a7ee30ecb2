/**
 * The guest's source: the JavaScript files in `guest/`, read as they are and concatenated, in
 * {@link GUEST_FILES} order, into the body of one function of `$0` (the host's dispatch
 * reference), which returns the guest's `entry`. The text is compiled verbatim (with V8's code
 * cache, prepared-isolate.ts), so what runs is what the files say, comments and the
 * parenthesized functions V8 compiles eagerly included.
 *
 * The files are read beside this module: `runtime/isolate/guest/` from the sources, and
 * `dist/runtime/isolate/guest/` once built (`npm run build` copies them there as they are). A
 * bundle of the sandbox worker (worker-entry.ts) carries the text instead, as
 * `PTC_GUEST_SOURCE`, so it reads no file.
 */
import { readFileSync } from 'node:fs';

/** The guest's files, in the order they share one scope (each may use what an earlier one defines). */
export const GUEST_FILES = ['intrinsics.js', 'lockdown.js', 'json.js', 'console.js', 'calls.js', 'sites.js', 'program.js'] as const;

/** One guest file's name. */
export type GuestFile = (typeof GUEST_FILES)[number];

/** Set by a bundle that carries the guest files' text (worker-entry.ts): name -> text. */
declare const PTC_GUEST_SOURCE: Readonly<Record<GuestFile, string>> | undefined;

let files: Readonly<Record<GuestFile, string>> | undefined;
let script: string | undefined;

/** The text of each guest file. */
export function guestFiles(): Readonly<Record<GuestFile, string>> {
  if (files === undefined) {
    if (typeof PTC_GUEST_SOURCE === 'object' && PTC_GUEST_SOURCE !== null) files = PTC_GUEST_SOURCE;
    else {
      const read: Partial<Record<GuestFile, string>> = {};
      for (const name of GUEST_FILES) read[name] = readFileSync(new URL(`./guest/${name}`, import.meta.url), 'utf8');
      files = Object.freeze(read as Record<GuestFile, string>);
    }
  }
  return files;
}

/**
 * The guest files joined in order into one function body, wrapped as `(function ($0) { ... })`:
 * a script whose value is the bootstrap function, for `compileScript`.
 */
export function bootstrapScript(): string {
  script ??= `(function ($0) {\n${concatenate(GUEST_FILES)}\nreturn entry;\n})`;
  return script;
}

/** Some guest files joined in order, for running a part of the guest on its own (tests). */
export function concatenate(names: readonly GuestFile[]): string {
  const text = guestFiles();
  return names.map((name) => text[name]).join('\n');
}
