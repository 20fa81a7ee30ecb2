/**
 * Ends a test run with the ten slowest test files (where the suite's time goes), then one plain
 * line, `N passed, N failed, N skipped`, that any CI can read regardless of the test runner
 * (vitest's own summary is decorated).
 */
import type { Reporter, TestModule } from 'vitest/node';

const SLOWEST = 10;

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
    }
    const timed = testModules
      .map((m) => ({ file: m.relativeModuleId, project: m.project.name, ms: fileMs(m) }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST);
    if (timed.length > 0) {
      process.stdout.write(`\nSlowest ${timed.length} test files (import + tests):\n`);
      for (const t of timed) process.stdout.write(`  ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${t.file}${t.project ? ` [${t.project}]` : ''}\n`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

function fileMs(module: TestModule): number {
  const d = module.diagnostic();
  return d.collectDuration + d.duration;
}
