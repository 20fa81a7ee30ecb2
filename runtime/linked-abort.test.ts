import { describe, expect, it } from 'vitest';
import { linkedAbort } from './linked-abort.js';

describe('linkedAbort', () => {
  it('aborts with the parent and keeps the parent reason', () => {
    const parent = new AbortController();
    const { controller } = linkedAbort(parent.signal);
    const reason = new Error('user stopped it');
    parent.abort(reason);
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBe(reason);
  });

  it('starts aborted when the parent already is', () => {
    const parent = new AbortController();
    parent.abort('early');
    expect(linkedAbort(parent.signal).controller.signal.reason).toBe('early');
  });

  it('aborting the linked controller leaves the parent alone', () => {
    const parent = new AbortController();
    linkedAbort(parent.signal).controller.abort();
    expect(parent.signal.aborted).toBe(false);
  });

  it('no longer follows the parent once unlinked', () => {
    const parent = new AbortController();
    const { controller, unlink } = linkedAbort(parent.signal);
    unlink();
    parent.abort();
    expect(controller.signal.aborted).toBe(false);
  });
});
