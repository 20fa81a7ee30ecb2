import { describe, expect, it } from 'vitest';
import { captureCli } from './support/capture-cli.js';

describe('ptc --version', () => {
  it('prints the package version and exits 0', async () => {
    const { code, out } = await captureCli(['--version']);
    expect(code).toBe(0);
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
