/**
 * What a resume checks besides its token: the program is the one journaled (its transpiled text),
 * the tools it was checked against are unchanged (their declarations and callable names), and the
 * runtime that will replay it is the one that ran it (ptc-runtime, Node and V8, isolated-vm, the
 * guest's source). A replay under another runtime can see different built-ins or numbers, so a
 * changed runtime is refused by default (`durable.onRuntimeChange: 'allow'` to accept it): an
 * upgrade strands suspended runs until they expire, and docs/run-code.md says so.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { bootstrapScript } from '../isolate/guest-source.js';
import { sha256 } from './journal-entry.js';

/** Fingerprints of one run, as hex SHA-256. */
export interface RunFingerprints {
  readonly program: string;
  readonly toolset: string;
  readonly runtime: string;
}

/** The program's fingerprint: its transpiled text. */
export function programFingerprint(js: string): string {
  return sha256(`program\n${js}`);
}

/** The tool set's fingerprint: the declarations a program is checked against, and the callable names. */
export function toolsetFingerprint(declarations: string, toolNames: ReadonlyMap<string, string>): string {
  return sha256(`toolset\n${JSON.stringify([...toolNames])}\n${declarations}`);
}

let runtime: string | undefined;

/** This process's runtime fingerprint (computed once). */
export function runtimeFingerprint(): string {
  if (runtime === undefined) {
    const require = createRequire(import.meta.url);
    const versionOf = (path: string) => {
      try {
        return (JSON.parse(readFileSync(require.resolve(path), 'utf8')) as { version?: string }).version ?? '?';
      } catch {
        return '?';
      }
    };
    const ptc = ['../../package.json', '../../../package.json'].map((rel) => {
      try {
        const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
        return pkg.name === 'ptc-runtime' ? pkg.version : undefined;
      } catch {
        return undefined;
      }
    }).find((v) => v !== undefined);
    runtime = sha256(JSON.stringify({ ptc: ptc ?? '?', node: process.versions.node, v8: process.versions.v8, ivm: versionOf('isolated-vm/package.json'), guest: sha256(bootstrapScript()) }));
  }
  return runtime;
}
