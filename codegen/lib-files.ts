/**
 * The standard library programs are checked against, parsed once per process and shared by
 * every checker. Files are read from TypeScript's own `lib` folder but live under a virtual
 * folder (`/ptc-lib/`), so the compiler never probes the real disk around them.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from './typescript-module.cjs';

/** The virtual folder lib files are served from. */
export const LIB_FOLDER = '/ptc-lib';

const REAL_LIB_DIR = dirname(ts.getDefaultLibFilePath({}));
const LIB_NAME = /^lib\.[a-z0-9.]+\.d\.ts$/;
const texts = new Map<string, string | null>();
const sourceFiles = new Map<string, ts.SourceFile>();

/** The text of a lib file by virtual path, or undefined when there is none. */
export function libText(fileName: string): string | undefined {
  if (dirname(fileName) !== LIB_FOLDER) return undefined;
  const name = fileName.slice(LIB_FOLDER.length + 1);
  if (!LIB_NAME.test(name)) return undefined;
  let text = texts.get(name);
  if (text === undefined) {
    try {
      text = readFileSync(join(REAL_LIB_DIR, name), 'utf8');
    } catch {
      text = null;
    }
    texts.set(name, text);
  }
  return text ?? undefined;
}

/** The parsed (and, once checked, bound) lib file, shared by all checkers. */
export function libSourceFile(fileName: string, options: ts.ScriptTarget | ts.CreateSourceFileOptions): ts.SourceFile | undefined {
  const languageVersion = typeof options === 'number' ? options : options.languageVersion;
  const key = `${fileName}|${languageVersion}`;
  let file = sourceFiles.get(key);
  if (!file) {
    const text = libText(fileName);
    if (text === undefined) return undefined;
    file = ts.createSourceFile(fileName, text, options, false, ts.ScriptKind.TS);
    sourceFiles.set(key, file);
  }
  return file;
}
