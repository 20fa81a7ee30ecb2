import { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import { createToolHost, decision, defineTool } from '../tools/index.js';
import { loadToolPlugin, ToolPluginError, ToolsService } from '../cordis/index.js';
import * as wordCount from '../examples/plugin.js';

const echo = (name: string) =>
  defineTool({ name, description: `Echo (${name}).`, parameters: { text: { type: 'string', required: true } }, execute: (args) => args.text });

async function app() {
  const host = createToolHost();
  const ctx = new Context();
  ctx.plugin(ToolsService, { host });
  await ctx.events.flush();
  return { ctx, host };
}

describe('the cordis tools service', () => {
  it('is provided under the name "tools" and backed by the given host', async () => {
    const { ctx, host } = await app();
    expect(ctx.tools).toBeInstanceOf(ToolsService);
    expect(ctx.tools.host).toBe(host);
  });

  describe('when the example plugin is loaded unchanged', () => {
    it('registers its tool and guard, which run through the host pipeline', async () => {
      const { ctx, host } = await app();
      ctx.plugin(wordCount);
      await ctx.events.flush();
      expect(host.schemas().map((s) => s.name)).toEqual(['word_count']);
      const ok = await host.call({ id: '1', name: 'word_count', args: { text: 'one two\nthree' } });
      expect(ok.value).toEqual({ words: 3, lines: 2 });
      expect(host.get('word_count')!.presentResult!({ text: 'a' }, ok.value)).toMatchObject({ subtitle: '3 words, 2 lines' });
      const denied = await host.call({ id: '2', name: 'word_count', args: { text: 'x'.repeat(100_001) } });
      expect(denied.denied).toMatchObject({ by: 'guard', reason: expect.stringContaining('too long') });
    });

    it('unregisters its tools and removes its hooks when unloaded, and loads again cleanly', async () => {
      const { ctx, host } = await app();
      const fork = ctx.plugin(wordCount);
      await ctx.events.flush();
      fork.dispose();
      expect(host.tools()).toEqual([]);
      host.register(echo('probe')); // the guard is gone: nothing denies a long text anymore
      const long = await host.call({ id: '3', name: 'probe', args: { text: 'x'.repeat(100_001) } });
      expect(long.isError).toBe(false);
      ctx.plugin(wordCount);
      await ctx.events.flush();
      expect(host.schemas().map((s) => s.name)).toEqual(['probe', 'word_count']);
    });

    it('also unloads through ctx.registry.delete(plugin)', async () => {
      const { ctx, host } = await app();
      ctx.plugin(wordCount);
      await ctx.events.flush();
      ctx.registry.delete(wordCount as never);
      expect(host.get('word_count')).toBeUndefined();
    });
  });

  it('waits for the service: a plugin loaded first applies once "tools" is provided', async () => {
    const host = createToolHost();
    const ctx = new Context();
    ctx.plugin(wordCount);
    await ctx.events.flush();
    expect(host.tools()).toEqual([]);
    ctx.plugin(ToolsService, { host });
    await ctx.events.flush();
    expect(host.get('word_count')).toBeDefined();
  });

  it("unloading one plugin leaves the other plugins' tools and hooks in place", async () => {
    const { ctx, host } = await app();
    const a = ctx.plugin({
      name: 'a',
      inject: ['tools'],
      apply: (c: Context) => {
        c.tools.register(echo('a_tool'));
        c.tools.hooks.preExecute((e) => (e.toolName === 'b_tool' ? decision.deny('a says no') : undefined));
      },
    });
    ctx.plugin({
      name: 'b',
      inject: ['tools'],
      apply: (c: Context) => {
        c.tools.register([echo('b_tool'), echo('b_tool2')]);
      },
    });
    await ctx.events.flush();
    expect((await host.call({ id: '1', name: 'b_tool', args: { text: 'hi' } })).denied?.reason).toBe('a says no');
    a.dispose();
    expect(host.tools().map((t) => t.name)).toEqual(['b_tool', 'b_tool2']);
    expect((await host.call({ id: '2', name: 'b_tool', args: { text: 'hi' } })).value).toBe('hi');
  });

  it('each hook kind and event sink registered by a plugin is removed with it', async () => {
    const { ctx, host } = await app();
    const seen: string[] = [];
    host.register(echo('t'));
    const fork = ctx.plugin({
      name: 'all-hooks',
      inject: ['tools'],
      apply: (c: Context) => {
        c.tools.hooks.preExecute(() => void seen.push('pre'));
        c.tools.hooks.guard(() => void seen.push('guard') as undefined);
        c.tools.hooks.execute((_e, next) => (seen.push('execute'), next()));
        c.tools.hooks.postExecute(() => void seen.push('post'));
        c.tools.onEvent((e) => void seen.push(e.type));
      },
    });
    await ctx.events.flush();
    await host.call({ id: '1', name: 't', args: { text: 'x' } });
    expect(seen).toEqual(['tool/call', 'pre', 'guard', 'tool/decision', 'execute', 'post', 'tool/result']);
    fork.dispose();
    seen.length = 0;
    await host.call({ id: '2', name: 't', args: { text: 'x' } });
    expect(seen).toEqual([]);
  });

  it('a registration can be undone early with what register returned (callable or .dispose())', async () => {
    const { ctx, host } = await app();
    let undo!: () => void;
    ctx.plugin({ name: 'early', inject: ['tools'], apply: (c: Context) => void (undo = c.tools.register(echo('early'))) });
    await ctx.events.flush();
    undo();
    expect(host.get('early')).toBeUndefined();
    undo();
  });

  it('a plugin that registers after it was unloaded (a late timer) is refused, leaving nothing behind', async () => {
    const { ctx, host } = await app();
    let late!: () => unknown;
    const fork = ctx.plugin({ name: 'late', inject: ['tools'], apply: (c: Context) => void (late = () => c.tools.register(echo('late_tool'))) });
    await ctx.events.flush();
    fork.dispose();
    expect(late).toThrow(/inactive context/);
    expect(host.get('late_tool')).toBeUndefined();
  });

  it('unloading the service unloads the plugins that inject it, and closes a host it created', async () => {
    const ctx = new Context();
    const service = ctx.plugin(ToolsService);
    await ctx.events.flush();
    const host = ctx.tools.host;
    ctx.plugin(wordCount);
    await ctx.events.flush();
    host.jobs.start({ kind: 'x', label: 'x', run: () => new Promise(() => {}) });
    service.dispose();
    await ctx.events.flush();
    expect(host.get('word_count')).toBeUndefined();
    expect(host.jobs.list(undefined)).toMatchObject([{ status: 'killed' }]);
  });

  it('refuses a config host that is not a tool host', async () => {
    const ctx = new Context();
    const errors: unknown[] = [];
    ctx.on('internal/error', (e: unknown) => void errors.push(e));
    ctx.plugin(ToolsService, { host: { register: 1 } as never });
    await ctx.events.flush();
    expect(String(errors[0])).toMatch(/config.host must be a tool host/);
    expect(ctx.get('tools')).toBeUndefined();
  });
});

describe('loadToolPlugin', () => {
  it('loads a plugin module namespace and unloads it', async () => {
    const loaded = await loadToolPlugin(wordCount as unknown as Record<string, unknown>);
    expect(loaded.host.get('word_count')).toBeDefined();
    loaded.dispose();
    expect(loaded.host.get('word_count')).toBeUndefined();
  });

  it('accepts a default-exported plugin object', async () => {
    const loaded = await loadToolPlugin({ default: { name: 'd', inject: ['tools'], apply: (c: Context) => c.tools.register(echo('d_tool')) } });
    expect(loaded.host.get('d_tool')).toBeDefined();
  });

  it('names the plugin when apply throws (a duplicate tool, say)', async () => {
    const host = createToolHost();
    host.register(echo('word_count'));
    const err = await loadToolPlugin(wordCount as unknown as Record<string, unknown>, { host }).catch((e: unknown) => e);
    expect(ToolPluginError.isInstance(err)).toBe(true);
    expect((err as Error).message).toBe('Cannot load tool plugin "word-count": apply threw: Cannot register tool "word_count": a tool with this name is already registered');
  });

  it('names the services a plugin waits for', async () => {
    const err = await loadToolPlugin({ name: 'needs-db', inject: ['tools', 'database'], apply: () => {} }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('Cannot load tool plugin "needs-db": it waits for services that are not provided here: database');
  });

  it('refuses a module without apply', async () => {
    await expect(loadToolPlugin({ name: 'x' })).rejects.toThrow('Cannot load tool plugin "x": the module exports no apply(ctx) function');
  });
});
