import { describe, expect, it } from 'vitest';
import { PtcError, ToolCallError, ToolDefinitionError } from './errors.js';

describe('error classes', () => {
  it('isInstance tells the classes apart by name', () => {
    const err = new ToolCallError('search', 'denied');
    expect(PtcError.isInstance(err)).toBe(true);
    expect(ToolCallError.isInstance(err)).toBe(true);
    expect(ToolDefinitionError.isInstance(err)).toBe(false);
    expect(ToolCallError.isInstance(new Error('plain'))).toBe(false);
    expect(PtcError.isInstance({ name: 'ToolCallError' })).toBe(false);
  });

  it('isInstance recognizes an error from another copy of the package (same brand, other class)', () => {
    const brand = Symbol.for('ptc-runtime.error');
    const foreign = Object.assign(new Error('x'), { name: 'ToolCallError', toolName: 't', [brand]: true });
    expect(foreign instanceof ToolCallError).toBe(false);
    expect(ToolCallError.isInstance(foreign)).toBe(true);
    expect(ToolDefinitionError.isInstance(foreign)).toBe(false);
  });
});
