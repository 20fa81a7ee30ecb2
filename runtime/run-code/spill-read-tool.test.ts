import { afterEach, describe, expect, it, vi } from 'vitest';
import { createToolHost, defineTool, type AgentRef, type ToolEvent, type ToolResult } from '../../tools/index.js';
import { visibleTools } from '../discovery/index.js';
import { createRunCodeTool } from './run-code-tool.js';
import { createSpillReadTool, SPILL_READ_TOOL_NAME } from './spill-read-tool.js';
import { createSpillStore, type SpillStore } from './spill-store.js';

const ADA: AgentRef = { id: 'ada' };
const BOB: AgentRef = { id: 'bob' };

function setup(options: { ttlMs?: number; maxOutputBytes?: number } = {}) {
  let t = 0;
  const spills = createSpillStore({ now: () => t, ...(options.ttlMs ? { ttlMs: options.ttlMs } : {}) });
  const events: ToolEvent[] = [];
  const host = createToolHost({ onEvent: (e) => events.push(e) });
  host.register(createSpillReadTool({ spills, maxOutputBytes: options.maxOutputBytes ?? 1_000 }));
  let n = 0;
  const read = (args: unknown, agent?: AgentRef): Promise<ToolResult> => host.call({ id: `r${++n}`, name: 'spill_read', args }, agent ? { agent } : {});
  return { host, spills, events, read, advance: (ms: number) => void (t += ms) };
}

const text = (r: ToolResult) => r.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

describe('spill_read', () => {
  describe('when the agent that made the spill reads it', () => {
    it('pages through the JSON text in bytes, each page saying where the next starts', async () => {
      const s = setup({ maxOutputBytes: 300 });
      const json = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ i })));
      const { id, bytes } = s.spills.put(json, { owner: ADA });
      const first = await s.read({ id }, ADA);
      expect(first.isError).toBe(false);
      const page = first.value as { offset: number; nextOffset: number; remaining: number; bytes: number; text: string };
      expect(page).toMatchObject({ offset: 0, bytes, remaining: bytes - page.nextOffset });
      expect(text(first).split('\n')[0]).toContain(`next page: offset ${page.nextOffset}`);
      expect(Buffer.byteLength(text(first))).toBeLessThanOrEqual(300);
      let joined = page.text;
      let offset = page.nextOffset;
      while (offset < bytes) {
        const next = (await s.read({ id, offset }, ADA)).value as typeof page;
        joined += next.text;
        offset = next.nextOffset;
      }
      expect(joined).toBe(json);
    });
  });

  describe('when someone else asks for it', () => {
    it('answers another agent, no agent, an expired id and an unknown id alike: no such spill', async () => {
      const s = setup({ ttlMs: 1_000 });
      const { id } = s.spills.put('"mine"', { owner: ADA });
      const asBob = await s.read({ id }, BOB);
      const asNobody = await s.read({ id });
      const unknown = await s.read({ id: 'spill_AAAAAAAAAAAAAAAA' }, ADA);
      const message = (r: ToolResult) => r.error?.message.replace(/spill_[A-Za-z0-9_-]+/g, '<id>');
      expect(asBob).toMatchObject({ isError: true, error: { kind: 'execution', message: expect.stringContaining('no spill with this id is kept for you') } });
      expect([asNobody, unknown].map(message)).toEqual([message(asBob), message(asBob)]);
      expect(text(asBob)).not.toContain('mine');
      expect((await s.read({ id }, ADA)).value).toMatchObject({ text: '"mine"' });
      s.advance(1_000);
      expect(message(await s.read({ id }, ADA))).toBe(message(asBob));
    });

    it('does not give an agent the spill of a run that had no agent', async () => {
      const s = setup();
      const { id } = s.spills.put('"nobody\'s"');
      expect((await s.read({ id }, ADA)).isError).toBe(true);
      expect((await s.read({ id })).value).toMatchObject({ text: '"nobody\'s"' });
    });
  });

  describe('when the arguments are wrong', () => {
    it('names the argument: a negative or fractional offset, an offset past the end, a limit out of range', async () => {
      const s = setup({ maxOutputBytes: 500 });
      const { id } = s.spills.put('[1,2,3]', { owner: ADA });
      const msg = async (args: unknown) => (await s.read(args, ADA)).error?.message;
      expect(await msg({ id, offset: -1 })).toMatch(/args\.offset/);
      expect(await msg({ id, offset: 1.5 })).toMatch(/args\.offset/);
      expect(await msg({ id, offset: 8 })).toMatch(/args\.offset: 8 is past the end of spill "spill_[^"]+" \(7 bytes\)/);
      expect(await msg({ id, limit: 0 })).toMatch(/args\.limit/);
      expect(await msg({ id, limit: 501 })).toMatch(/args\.limit.*500/);
      expect(await msg({ id: '' })).toMatch(/args\.id/);
      expect((await s.read({ id, offset: 7 }, ADA)).value).toMatchObject({ text: '', remaining: 0 });
    });
  });

  it('runs through the pipeline: a guard denies it, and the call is in the events', async () => {
    const s = setup();
    const { id } = s.spills.put('"x"', { owner: ADA });
    s.host.hooks.guard((e) => (e.toolName === 'spill_read' ? 'no reading spills here' : undefined));
    const denied = await s.read({ id }, ADA);
    expect(denied.denied).toEqual({ by: 'guard', reason: 'no reading spills here', index: 0 });
    expect(s.events.filter((e) => e.type === 'tool/call').map((e) => (e as { toolName: string }).toolName)).toEqual(['spill_read']);
  });
});

describe('spill_read beside run_code', () => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((t) => t.close()));
    vi.restoreAllMocks();
  });
  const runCode = (options: Parameters<typeof createRunCodeTool>[0] = {}) => {
    const tool = createRunCodeTool({ isolation: 'isolate', typecheck: 'off', warmup: false, ...options });
    opened.push(tool);
    return tool;
  };
  const echo = defineTool({ name: 'echo', description: 'Echo.', execute: () => 'hi' });

  it('comes with host.register(runCode) and goes with its disposal; programs never see it', () => {
    const host = createToolHost();
    host.register(echo);
    const rc = runCode();
    const registration = host.register(rc);
    expect(host.tools().map((t) => t.name)).toEqual(['echo', 'run_code', SPILL_READ_TOOL_NAME]);
    expect(host.get(SPILL_READ_TOOL_NAME)).toBe(rc.spillRead);
    expect(visibleTools(host).map((t) => t.name)).toEqual(['echo']);
    expect(rc.description).toContain('spill_read({ id, offset })');
    host.register(rc.spillRead); // harmless: already there
    registration.dispose();
    expect(host.tools().map((t) => t.name)).toEqual(['echo']);
  });

  it('is registered once per host, and stays while any run_code relying on it is registered', () => {
    const host = createToolHost();
    const a = runCode();
    const b = runCode({ name: 'run_code_b' });
    const ra = host.register(a);
    const rb = host.register(b);
    expect(host.tools().map((t) => t.name)).toEqual(['run_code', SPILL_READ_TOOL_NAME, 'run_code_b']);
    ra.dispose();
    expect(host.tools().map((t) => t.name)).toEqual([SPILL_READ_TOOL_NAME, 'run_code_b']);
    rb.dispose();
    expect(host.tools()).toEqual([]);
  });

  it('reads the spills of every run_code on the host, each for its own agent', async () => {
    const host = createToolHost();
    const a = runCode();
    const b = runCode({ name: 'run_code_b' });
    host.register([a, b]);
    const { id } = (b.spills as SpillStore).put('"from b"', { owner: ADA });
    expect((await host.call({ id: 'r', name: 'spill_read', args: { id } }, { agent: ADA })).value).toMatchObject({ text: '"from b"' });
  });

  it('is not registered with spillRead: false, and the description does not mention it', () => {
    const host = createToolHost();
    const rc = runCode({ spillRead: false });
    host.register(rc);
    expect(host.tools().map((t) => t.name)).toEqual(['run_code']);
    expect(rc.description).not.toContain('spill_read');
    expect(rc.description).toContain('so return less');
  });

  it('leaves a different tool named spill_read alone, with a warning, and the description does not point to it', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const host = createToolHost();
    host.register(defineTool({ name: 'spill_read', description: 'Mine.', execute: () => 'mine' }));
    const rc = runCode();
    host.register(rc);
    expect(host.get('spill_read')?.description).toBe('Mine.');
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('already has a tool named "spill_read"'));
    expect(rc.description).not.toContain('spill_read({ id, offset })');
  });

  it('refuses a spillRead option that is not a boolean', () => {
    expect(() => createRunCodeTool({ spillRead: 'yes' as never })).toThrow(/spillRead/);
  });
});
