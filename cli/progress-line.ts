/**
 * `ptc run`'s progress line on a terminal's stderr: calls made, in flight, seconds. Redrawn every
 * 200 ms in place, except while a call waits for an answer at the terminal (`--approve prompt`),
 * so the question is not drawn over.
 */
import type { ToolEvent } from '../tools/index.js';

/** The line's event sink and its stop; `enabled` false makes both no-ops for the screen. */
export function progressReporter(enabled: boolean) {
  let made = 0;
  let done = 0;
  const started = Date.now();
  // Calls waiting for an answer at the terminal (--approve prompt): the line is not redrawn over
  // the question meanwhile.
  const asking = new Set<string>();
  const onEvent = (e: ToolEvent) => {
    if (e.type === 'tool/call' && e.origin.kind === 'ptc') made++;
    else if (e.type === 'tool/result') {
      if (e.callId.includes('/')) done++;
      asking.delete(e.callId);
    } else if (e.type === 'tool/decision') {
      if (e.stage === 'policy' && e.decision === 'ask') {
        if (enabled && asking.size === 0) process.stderr.write('\r\u001b[2K');
        asking.add(e.callId);
      } else if (e.stage === 'approval') asking.delete(e.callId);
    }
  };
  const draw = () => {
    if (asking.size === 0) process.stderr.write(`\r\u001b[2Kptc: ${made} call(s), ${made - done} in flight, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  const timer = enabled ? setInterval(draw, 200) : undefined;
  return {
    onEvent,
    stop() {
      if (!timer) return;
      clearInterval(timer);
      process.stderr.write('\r\u001b[2K');
    },
  };
}
