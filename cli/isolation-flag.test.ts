/** `--isolation` (cli/session-host.ts): process, strict and isolate, anything else refused by name. */
import { describe, expect, it } from 'vitest';
import { parseIsolation } from './session-host.js';

describe('--isolation', () => {
  it('gives run_code { strict: true } for strict, and the two modes as they are', () => {
    expect(parseIsolation('strict')).toEqual({ strict: true });
    expect(parseIsolation('process')).toBe('process');
    expect(parseIsolation('isolate')).toBe('isolate');
  });

  it('refuses anything else, naming the choices', () => {
    expect(() => parseIsolation('vm')).toThrow('--isolation must be process, strict or isolate, got "vm"');
  });
});
