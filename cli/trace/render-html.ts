/**
 * `ptc trace html`: one self-contained page (inline CSS and SVG, no script, no network) with,
 * per run_code call, a timeline of its children (one lane per concurrently running call,
 * exclusive calls drawn as barriers across every lane, denials marked) and the call tree.
 *
 * A trace is untrusted input: every string from it is HTML-escaped, and the page carries a CSP
 * that forbids scripts and remote loads, so a hostile tool name or reason renders as text.
 */
import { redactResumeTokens, type TraceLinkStatus, type TraceVerification } from '../../tools/index.js';
import { walkCalls, type CallNode, type CallTree } from './call-tree.js';
import { previewJson } from './preview-json.js';
import { decisionSummary, markSummary } from './render-tree.js';

/** Options of {@link renderHtml}. */
export interface RenderHtmlOptions {
  readonly title: string;
  /** The verification of a single trace (absent: a plain session log). */
  readonly verification?: TraceVerification;
  /** Several files: each one's verification (absent for a plain log); overrides `verification`. */
  readonly files?: readonly { readonly name: string; readonly verification?: TraceVerification }[];
  /** Links between the files and what checking them found. */
  readonly links?: readonly { readonly from: string; readonly status: TraceLinkStatus; readonly message: string }[];
  /** Problems of the set of files (two files naming one chain). */
  readonly problems?: readonly string[];
}

/** HTML-escapes text for element content and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
/** Every string from a trace reaches the page through this: resume tokens hidden, then HTML-escaped. */
const esc = (text: string) => escapeHtml(redactResumeTokens(text));

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1d2330;background:#fbfbfd}
h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:28px 0 8px}code{font:12px ui-monospace,Menlo,Consolas,monospace}
.verdict{padding:8px 12px;border-radius:6px;display:inline-block}.verdict.ok{background:#e6f6ea;color:#17612c}.verdict.bad{background:#fde8e8;color:#8a1414}.verdict.plain{background:#eef0f5}
.summary{color:#555}.timeline{overflow-x:auto;background:#fff;border:1px solid #dde1ea;border-radius:6px;padding:8px}
.lane-bg{fill:#f3f5f9}.lane-label{font-size:11px;fill:#667}.axis{font-size:10px;fill:#889}
.bar.ok{fill:#4c8bf5}.bar.error,.bar.suspended{fill:#f0a020}.bar.deferred{fill:#bbb}.bar.denied{fill:#d93025}.bar.blocked{fill:#a0267b}.bar.pending{fill:#bbb}.bar.late{stroke:#7b1fa2;stroke-width:2;stroke-dasharray:3 2}
.barrier{fill:#7a5af8;fill-opacity:.12;stroke:#7a5af8;stroke-opacity:.6;stroke-dasharray:4 3}
.mark-denied{fill:#d93025;font-weight:700;font-size:13px}.mark-refused{fill:#7b1fa2;font-weight:700}
.bar-label{font-size:11px;fill:#fff;pointer-events:none}
.legend span{display:inline-block;margin-right:14px}.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:middle}
ul.tree{list-style:none;padding-left:18px;border-left:1px solid #dde1ea;margin:4px 0}ul.tree.root{border:none;padding-left:0}
li.call{margin:4px 0}.tool{font-weight:600}.cid{color:#889;font-size:12px}.mode{font-size:11px;padding:0 4px;border-radius:3px;background:#eef}
.mode.exclusive{background:#e9e3ff;color:#4a2fc0}.decision{color:#445}.outcome.ok{color:#17612c}.outcome.denied,.outcome.blocked{color:#b3261e;font-weight:600}
.outcome.error,.outcome.suspended,.outcome.deferred{color:#9a5b00}.late{color:#7b1fa2;font-weight:600}.args{color:#445;word-break:break-all}
li.mark{color:#7b1fa2;font-weight:600;margin:4px 0}li.mark.broken,li.link.broken{color:#b3261e}ul.links{margin:6px 0;padding-left:18px}
`;

interface Placed {
  readonly node: CallNode;
  readonly lane: number;
}

/**
 * Greedy interval partitioning over event order (exact even when times tie at ms resolution):
 * a call is in flight from its `tool/call` line to its `tool/result` line, and takes the first
 * lane whose previous call had already ended.
 */
export function assignLanes(calls: readonly CallNode[]): { placed: Placed[]; lanes: number } {
  const laneEnds: number[] = [];
  const placed: Placed[] = [];
  for (const node of [...calls].sort((a, b) => a.startIndex - b.startIndex)) {
    const end = node.endIndex ?? Infinity;
    let lane = laneEnds.findIndex((e) => e < node.startIndex);
    if (lane === -1) lane = laneEnds.push(end) - 1;
    else laneEnds[lane] = end;
    placed.push({ node, lane });
  }
  return { placed, lanes: Math.max(1, laneEnds.length) };
}

function timeline(calls: readonly CallNode[], refused: CallNode['refused'], from: number, to: number): string {
  const { placed, lanes } = assignLanes(calls);
  const left = 70;
  const width = 900;
  const laneH = 24;
  const top = 18;
  const span = Math.max(1, to - from);
  const x = (t: number) => left + ((Math.min(Math.max(t, from), to) - from) / span) * width;
  const height = top + lanes * laneH + 8;
  const parts: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const t = from + (span * i) / 4;
    parts.push(`<text class="axis" x="${x(t).toFixed(1)}" y="11" text-anchor="middle">${Math.round(t - from)} ms</text>`);
  }
  for (let l = 0; l < lanes; l++) {
    parts.push(
      `<g class="lane" data-lane="${l}"><rect class="lane-bg" x="${left}" y="${top + l * laneH}" width="${width}" height="${laneH - 4}" rx="3"/><text class="lane-label" x="4" y="${top + l * laneH + 14}">lane ${l + 1}</text></g>`,
    );
  }
  for (const { node } of placed) {
    if (node.mode !== 'exclusive') continue;
    const x0 = x(node.start);
    const w = Math.max(3, x(node.end ?? node.start) - x0);
    parts.push(
      `<rect class="barrier" data-call-id="${esc(node.callId)}" x="${x0.toFixed(1)}" y="${top - 4}" width="${w.toFixed(1)}" height="${lanes * laneH + 4}"><title>exclusive: ${esc(node.toolName)} (nothing else runs)</title></rect>`,
    );
  }
  for (const { node, lane } of placed) {
    const x0 = x(node.start);
    const w = Math.max(3, x(node.end ?? to) - x0);
    const y = top + lane * laneH;
    const tip = `${node.toolName} ${node.callId}\n${decisionSummary(node)}\n${node.outcome}${node.detail ? `: ${node.detail}` : ''}${node.durationMs !== undefined ? `\n${node.durationMs} ms` : ''}`;
    parts.push(
      `<g class="call ${node.outcome}${node.late ? ' late' : ''}" data-call-id="${esc(node.callId)}" data-tool="${esc(node.toolName)}"><rect class="bar ${node.outcome}${node.late ? ' late' : ''}" x="${x0.toFixed(1)}" y="${y + 2}" width="${w.toFixed(1)}" height="${laneH - 8}" rx="2"><title>${esc(tip)}</title></rect>` +
        (w > 60 ? `<text class="bar-label" x="${(x0 + 4).toFixed(1)}" y="${y + 14}">${esc(node.toolName.slice(0, Math.floor(w / 7)))}</text>` : '') +
        (node.outcome === 'denied' ? `<text class="mark-denied" x="${(x0 - 4).toFixed(1)}" y="${y + 15}" text-anchor="end">✕<title>denied by ${esc(node.deniedBy ?? '?')}: ${esc(node.detail ?? '')}</title></text>` : '') +
        `</g>`,
    );
  }
  for (const r of refused) {
    parts.push(`<text class="mark-refused" x="${x(r.time).toFixed(1)}" y="${top + lanes * laneH + 4}" text-anchor="middle">⊘<title>refused late call ${esc(r.toolName)}: ${esc(r.reason)}</title></text>`);
  }
  return `<svg class="timeline-svg" xmlns="http://www.w3.org/2000/svg" width="${left + width + 40}" height="${height + 6}" role="img" aria-label="timeline">${parts.join('')}</svg>`;
}

function treeHtml(nodes: readonly CallNode[], root = false): string {
  if (nodes.length === 0) return '';
  const items = nodes.map((n) => {
    const args = n.placeholder ? '(begun in a trace not given)' : previewJson(n.args, 300);
    const outcome = `${n.outcome}${n.detail ? `: ${n.detail}` : ''}${n.durationMs !== undefined ? ` · ${n.durationMs} ms` : ''}`;
    const run = n.run ? ` <span class="run">run ${esc(n.run.outcome)}${n.run.limit ? ` (limit ${esc(n.run.limit)})` : ''}, ${n.run.calls} call(s), ${n.run.durationMs} ms</span>` : '';
    const refused = n.refused.map((r) => `<li class="call refused"><span class="late">refused late call ${esc(r.toolName)}</span>: ${esc(r.reason)}</li>`).join('');
    // Children, suspensions and resumptions in the order they happened (refusals after).
    const kids = [...n.children.map((c) => ({ index: c.startIndex, html: treeHtml([c]).replace(/^<ul class="tree">|<\/ul>$/g, '') })), ...n.marks.map((m) => ({ index: m.index, html: `<li class="mark ${m.kind}${m.source?.link?.status === 'broken' ? ' broken' : ''}">${esc(markSummary(m))}</li>` }))]
      .sort((a, b) => a.index - b.index)
      .map((k) => k.html)
      .join('');
    return (
      `<li class="call ${n.outcome}" data-call-id="${esc(n.callId)}"><span class="tool">${esc(n.toolName)}</span> <span class="cid">${esc(n.callId)}</span>` +
      (n.mode ? ` <span class="mode ${n.mode === 'exclusive' ? 'exclusive' : ''}">${esc(n.mode)}</span>` : '') +
      (n.late ? ' <span class="late">late/revoked</span>' : '') +
      (n.ambiguous ? ' <span class="late" title="another call with this id was in flight at the same time: decisions and outcome matched by order">id reused</span>' : '') +
      (n.via ? ` <span class="via">via ${esc(n.via)}</span>` : '') +
      ` <code class="args">${esc(args)}</code><br><span class="decision">${esc(decisionSummary(n))}</span> ⇒ <span class="outcome ${n.outcome}">${esc(outcome)}</span>${run}` +
      (kids || refused ? `<ul class="tree">${kids}${refused}</ul>` : '') +
      `</li>`
    );
  });
  return `<ul class="tree${root ? ' root' : ''}">${items.join('')}</ul>`;
}

/** Renders the whole page. */
export function renderHtml(tree: CallTree, options: RenderHtmlOptions): string {
  const verdictOf = (v: TraceVerification | undefined, name?: string) => {
    const of = name !== undefined ? ` (${esc(name)})` : '';
    return !v
      ? `<p class="verdict plain">Plain session log${of}: no hash chain, so it cannot be verified.</p>`
      : v.ok
        ? `<p class="verdict ok">${v.hash === 'hmac-sha256' ? 'Keyed hash chain' : 'Hash chain'} intact${of}: ${v.lines} lines, head ${esc(v.headHash.slice(0, 16))}…</p>`
        : `<div class="verdict bad"><strong>Hash chain BROKEN</strong>${of}<ul>${v.problems.map((p) => `<li>line ${p.line} (${esc(p.kind)}): ${esc(p.message)}</li>`).join('')}</ul></div>`;
  };
  const files = options.files;
  const setNotes = [
    ...(options.links ?? []).map((l) => `<li class="link ${l.status}">${esc(l.from)}: ${l.status === 'broken' ? '<strong>link BROKEN</strong>: ' : l.status === 'unverified' ? 'unverified link: ' : ''}${esc(l.message)}</li>`),
    ...(options.problems ?? []).map((p) => `<li class="link broken"><strong>${esc(p)}</strong></li>`),
  ];
  const verdict =
    (files && files.length !== 1 ? files.map((f) => verdictOf(f.verification, f.name)).join('<br>') : verdictOf(files ? files[0]!.verification : options.verification)) +
    (setNotes.length ? `<ul class="links">${setNotes.join('')}</ul>` : '');
  const all = [...walkCalls(tree.roots)];
  const denied = all.filter((n) => n.outcome === 'denied').length;
  const late = all.filter((n) => n.late).length + all.reduce((s, n) => n.refused.reduce((t, r) => t + r.count, s), 0);
  const sections: string[] = [];
  const runs = tree.roots.filter((r) => r.children.length > 0 || r.run);
  const direct = tree.roots.filter((r) => !(r.children.length > 0 || r.run));
  for (const run of runs) {
    // The axis spans the children (type checking and isolate start-up before the first call
    // would squeeze them into a corner); the offset from the run_code call is stated.
    const times = [...run.children.flatMap((c) => [c.start, c.end ?? c.start]), ...run.refused.map((r) => r.time)];
    const from = times.length ? Math.min(...times) : run.start;
    const to = times.length ? Math.max(...times) : (run.end ?? run.start);
    const offset = from - run.start;
    sections.push(
      `<section class="run" data-call-id="${esc(run.callId)}"><h2>${esc(run.toolName)} <span class="cid">${esc(run.callId)}</span> · ${esc(run.outcome)}${run.run ? ` · ${run.run.calls} call(s) · ${run.run.durationMs} ms` : ''}</h2>` +
        `<p class="summary">Timeline of the program's calls; the first began ${offset} ms after the run_code call (type check, transpile, isolate start).</p>` +
        `<div class="timeline">${timeline(run.children, run.refused, from, to)}</div>${treeHtml([run], true)}</section>`,
    );
  }
  if (direct.length) {
    const to = Math.max(...direct.map((c) => c.end ?? c.start));
    sections.push(`<section class="run direct"><h2>Direct calls</h2><div class="timeline">${timeline(direct, [], Math.min(...direct.map((c) => c.start)), to)}</div>${treeHtml(direct, true)}</section>`);
  }
  const legend =
    `<p class="legend"><span><i class="sw" style="background:#4c8bf5"></i>ok</span><span><i class="sw" style="background:#f0a020"></i>error</span>` +
    `<span><i class="sw" style="background:#d93025"></i>denied ✕</span><span><i class="sw" style="background:#a0267b"></i>blocked</span>` +
    `<span><i class="sw" style="background:#e9e3ff;border:1px dashed #7a5af8"></i>exclusive barrier</span><span style="color:#7b1fa2">⊘ refused late call</span></p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ptc trace: ${esc(options.title)}</title><style>${CSS}</style></head>
<body><h1>ptc trace: ${esc(options.title)}</h1>${verdict}
<p class="summary">${all.length} call(s), ${runs.length} run(s), ${denied} denied, ${late} late or refused.</p>${legend}
${sections.join('\n')}
</body></html>
`;
}
