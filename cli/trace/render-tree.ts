/**
 * `ptc trace show`: the call tree as text. Each run_code call, then its children in call order
 * with mode, decision (who allowed or denied, and why), duration and outcome; late, revoked and
 * refused calls are flagged, and a run's suspensions and resumptions are shown where they
 * happened. Built as spans and printed by terminal-text.ts, which escapes every one of them.
 */
import { walkCalls, type CallNode, type CallTree, type RunMark } from './call-tree.js';
import { previewJson } from './preview-json.js';
import { styled, terminalText, type Span, type TextLine } from './terminal-text.js';

export { printable } from './terminal-text.js';

/** Options of {@link renderTree}. */
export interface RenderTreeOptions {
  readonly color?: boolean;
  /** Longest argument preview, in characters (default 80). */
  readonly argsWidth?: number;
  /** What verification found wrong with a line (`inserted`, `edited`), to flag the calls built from it. */
  readonly damaged?: (file: string, line: number) => string | undefined;
}

/** One-line decision summary: `allow (default)`, `deny by guard #0: reason`, `ask by listener #0 → approval: allow`. */
export function decisionSummary(node: CallNode): string {
  const parts = node.decisions.map((d) => {
    const reason = d.reason ? `: ${d.reason}` : '';
    if (d.stage === 'approval') return `approval ${d.decision}${d.by === 'approval' ? '' : ` by ${d.by}`}${reason}`;
    return d.by === 'default' ? `${d.decision} (default)` : `${d.decision} by ${d.by}${reason}`;
  });
  if (node.outcome === 'denied' && node.deniedBy && !node.decisions.some((d) => d.decision === 'deny' && d.stage === 'policy')) {
    parts.push(`denied by ${node.deniedBy}: ${node.detail ?? ''}`);
  }
  return parts.join(' → ') || '(no decision recorded)';
}

/** A suspension or resumption in one line: what happened, where, and (resumed) what the link check found. */
export function markSummary(mark: RunMark): string {
  const where = mark.source ? ` in ${mark.source.file} line ${mark.source.line}` : '';
  if (mark.kind === 'suspended') {
    const pending = mark.pending.map((p) => `${p.toolName}${p.reason ? ` (${p.reason})` : ''}`).join(', ');
    return `SUSPENDED${where}: ${mark.pending.length} call(s) wait for a person${pending ? `: ${pending}` : ''}`;
  }
  const from = mark.from ? ` from trace ${mark.from.traceId} seq ${mark.from.seq}` : '';
  const link = mark.source?.link;
  const verdict = !mark.from ? '' : !link ? ': link not checked' : link.status === 'verified' ? `: link verified (${link.target?.file ?? '?'} line ${link.target?.line ?? '?'})` : link.status === 'broken' ? `: LINK BROKEN: ${link.message}` : `: link unverified: ${link.message}`;
  return `RESUMED${where}${from}${verdict}`;
}

/** The tree as lines of spans. */
export function treeLines(tree: CallTree, options: Pick<RenderTreeOptions, 'argsWidth' | 'damaged'> = {}): TextLine[] {
  const width = options.argsWidth ?? 80;
  const out: TextLine[] = [];
  const outcome = (n: CallNode): Span[] => {
    const ms = n.durationMs !== undefined ? ` ${n.durationMs} ms` : '';
    switch (n.outcome) {
      case 'ok':
        return [styled('green', 'ok'), ms];
      case 'denied':
        return [styled('red', `DENIED by ${n.deniedBy ?? '?'}`), ms];
      case 'blocked':
        return [styled('red', `BLOCKED: ${n.detail ?? ''}`), ms];
      case 'error':
        return [styled('yellow', `error: ${n.detail ?? ''}`), ms];
      case 'suspended':
        return [styled('yellow', `SUSPENDED: ${n.detail ?? ''}`), ms];
      case 'deferred':
        return [styled('yellow', 'deferred: still waiting for a person when the run suspended')];
      default:
        return [styled('yellow', 'pending (no result recorded)')];
    }
  };
  const line = (n: CallNode, prefix: string, branch: string, childPrefix: string) => {
    const head: Span[] = [prefix, branch];
    if (n.placeholder) head.push(styled('bold', n.toolName), ' ', styled('dim', n.callId), styled('magenta', ' (begun in a trace not given)'));
    else {
      head.push(styled('bold', n.toolName), ' ', styled('dim', n.callId));
      if (n.mode) head.push(styled('dim', ` [${n.mode}]`));
      if (n.via) head.push(styled('magenta', ` via ${n.via}`));
      head.push(' ', previewJson(n.args, width));
    }
    if (n.late) head.push(styled('magenta', ' LATE/REVOKED'));
    if (n.ambiguous) head.push(styled('magenta', ' ID REUSED'));
    const damage = n.lines.flatMap((l) => {
      const kind = options.damaged?.(l.file, l.line);
      return kind ? [`line ${l.line} ${kind}`] : [];
    });
    if (damage.length) head.push(styled('red', ` ⚠ ${damage.join(', ')}`));
    out.push(head);
    out.push([prefix, childPrefix, '  ', decisionSummary(n), '  ⇒ ', ...outcome(n)]);
    if (n.ambiguous) out.push([prefix, childPrefix, '  ', styled('magenta', 'id reused while another call with it was in flight: decisions and outcome matched by order')]);
    if (n.run) {
      const limit = n.run.limit ? ` (limit ${n.run.limit})` : '';
      const token = n.children[0]?.tokenId;
      out.push([prefix, childPrefix, `  run: ${n.run.outcome}${limit}, ${n.run.calls} call(s), ${n.run.durationMs} ms${token ? `, token ${token}` : ''}`]);
    }
    type Item = { index: number; node?: CallNode; mark?: RunMark; refused?: CallNode['refused'][number] };
    const items: Item[] = [...n.children.map((node) => ({ index: node.startIndex, node })), ...n.marks.map((mark) => ({ index: mark.index, mark })), ...n.refused.map((refused) => ({ index: refused.index, refused }))];
    items.sort((a, b) => a.index - b.index);
    items.forEach((item, i) => {
      const last = i === items.length - 1;
      const nextPrefix = prefix + childPrefix;
      const twig = last ? '└─ ' : '├─ ';
      if (item.node) line(item.node, nextPrefix, twig, last ? '   ' : '│  ');
      else if (item.mark) out.push([nextPrefix, twig, styled(item.mark.source?.link?.status === 'broken' ? 'red' : 'magenta', markSummary(item.mark))]);
      else if (item.refused) out.push([nextPrefix, twig, styled('magenta', `REFUSED late call ${item.refused.toolName}`), `: ${item.refused.reason}`]);
    });
  };
  tree.roots.forEach((root) => line(root, '', '', ''));
  if (tree.roots.length > 0) {
    const all = [...walkCalls(tree.roots)];
    const count = (o: CallNode['outcome']) => all.filter((n) => n.outcome === o).length;
    const late = all.filter((n) => n.late).length + all.reduce((s, n) => n.refused.reduce((t, r) => t + r.count, s), 0);
    const suspended = (count('suspended') ? `, ${count('suspended')} suspended` : '') + (count('deferred') ? `, ${count('deferred')} deferred` : '');
    const orphans = tree.orphanResults ? `; ${tree.orphanResults} result(s) without a call` : '';
    out.push([], [`${all.length} call(s): ${count('ok')} ok, ${count('denied')} denied, ${count('blocked')} blocked, ${count('error')} failed${suspended}, ${count('pending')} without result; ${late} late or refused${orphans}`]);
  }
  return out;
}

/** Renders the tree as terminal text (no final newline). */
export function renderTree(tree: CallTree, options: RenderTreeOptions = {}): string {
  return terminalText(treeLines(tree, options), options).replace(/\n$/, '');
}
