/**
 * The HTML report in a real browser: Debian's Chromium driven by playwright-core. `.ci/run`
 * installs /usr/bin/chromium; set PTC_SKIP_BROWSER=1 to skip where no browser can be installed.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTraceWriter } from '../tools/index.js';
import { createHost } from '../examples/tools.js';
import { buildCallTree } from '../cli/trace/call-tree.js';
import { renderHtml } from '../cli/trace/render-html.js';
import { verifyTrace } from '../tools/index.js';
import { registerBridgeRun } from './support/bridge-run.js';

const CHROMIUM = '/usr/bin/chromium';
const skip = process.env.PTC_SKIP_BROWSER === '1';
const dir = mkdtempSync(join(tmpdir(), 'ptc-html-'));
const DELAY: Record<string, number> = { team_list: 40, docs_read: 25, budget_get: 10, expense_flag: 30, docs_search: 15 };
let browser: Browser | undefined;
let page = '';

describe.skipIf(skip)('when the trace report opens in headless Chromium', () => {
  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (or PTC_SKIP_BROWSER=1)`).toBe(true);
    const lines: string[] = [];
    const host = createHost({ approval: { request: async () => 'allow-once' } });
    const writer = createTraceWriter({ write: (l) => lines.push(l), host });
    host.onEvent(writer);
    host.hooks.execute(async (execution, next) => {
      await new Promise((r) => setTimeout(r, DELAY[execution.toolName] ?? 0));
      return next();
    });
    registerBridgeRun(host);
    await host.call({ id: 'run-1', name: 'run_code_stub', args: {} }, { agent: { id: 'a' } });
    writer.close();
    const text = lines.join('\n') + '\n';
    const verification = verifyTrace(text);
    page = join(dir, 'report.html');
    writeFileSync(page, renderHtml(buildCallTree(verification.events), { title: 'run.jsonl', verification }));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('renders one lane per concurrent call, the exclusive barrier, the denial mark and the tree', async () => {
    const p = await browser!.newPage({ viewport: { width: 1100, height: 900 } });
    const requests: string[] = [];
    p.on('request', (r) => requests.push(r.url()));
    await p.goto(pathToFileURL(page).href);
    expect(await p.locator('section.run .lane').count()).toBe(4);
    expect(await p.locator('.call.denied .mark-denied').count()).toBe(1);
    expect(await p.locator('g.call.denied').getAttribute('data-tool')).toBe('docs_read');
    const barrier = p.locator('rect.barrier');
    expect(await barrier.count()).toBe(1);
    const box = await barrier.boundingBox();
    const lanes = await p.locator('.lane-bg').evaluateAll((els) => els.map((e) => (e as unknown as { getBoundingClientRect(): { top: number } }).getBoundingClientRect().top));
    expect(box!.y).toBeLessThanOrEqual(Math.min(...lanes));
    expect(box!.height).toBeGreaterThan(3 * 20);
    expect(await p.locator('.mark-denied').isVisible()).toBe(true);
    expect(await p.locator('li.call').count()).toBe(8);
    expect(await p.locator('.verdict.ok').textContent()).toMatch(/Hash chain intact/);
    expect(requests.every((u) => u.startsWith('file:'))).toBe(true);
    const shot = join(dir, 'report.png');
    await p.screenshot({ path: shot, fullPage: true });
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    if (process.env.PTC_SCREENSHOT) writeFileSync(process.env.PTC_SCREENSHOT, readFileSync(shot));
  });
});
