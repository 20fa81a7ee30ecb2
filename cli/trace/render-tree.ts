/**
 * `ptc trace show`: the call tree as text. Each run_code call, then its children in call order
 * with mode, decision (who allowed or denied, and why), duration and outcome; late, revoked and
 * refused calls are flagged. Colour only when asked (stdout is a terminal).
 */
import { visibleText } from '../../tools/index.js';
import { walkCalls, type CallNode, type CallTree } from './call-tree.js';
import { previewJson } from './preview-json.js';

/** Options of {@link renderTree}. */
export interface RenderTreeOptions {
  readonly color?: boolean;
  /** Longest argument preview, in characters (default 80). */
  readonly argsWidth?: number;
}

const SGR = { red: 31, green: 32, yellow: 33, magenta: 35, dim: 2, bold: 1 } as const;

/**
 * One line of trace text for a terminal: controls, bidi overrides and isolates, zero-width and
 * other invisible characters are shown as `\uXXXX` (the shared {@link visibleText}), so a hostile
 * trace can neither drive the terminal nor display a line reordered; a newline is `⏎`.
 */
export function printable(text: string): string {
  return visibleText(text.replace(/\n/g, '⏎'));
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

/** Renders the tree as lines of text. */
export function renderTree(tree: CallTree, options: RenderTreeOptions = {}): string {
  const paint = (code: number, s: string) => (options.color ? `\u001b[${code}m${s}\u001b[0m` : s);
  const width = options.argsWidth ?? 80;
  const out: string[] = [];
  const argsText = (args: unknown) => printable(previewJson(args, width));
  const outcomeText = (n: CallNode) => {
    const ms = n.durationMs !== undefined ? ` ${n.durationMs} ms` : '';
    switch (n.outcome) {
      case 'ok':
        return paint(SGR.green, 'ok') + ms;
      case 'denied':
        return paint(SGR.red, `DENIED by ${n.deniedBy ?? '?'}`) + ms;
      case 'blocked':
        return paint(SGR.red, `BLOCKED: ${printable(n.detail ?? '')}`) + ms;
      case 'error':
        return paint(SGR.yellow, `error: ${printable(n.detail ?? '')}`) + ms;
      default:
        return paint(SGR.yellow, 'pending (no result recorded)');
    }
  };
  const line = (n: CallNode, prefix: string, branch: string, childPrefix: string) => {
    const late = n.late ? paint(SGR.magenta, ' LATE/REVOKED') : '';
    const mode = n.mode ? paint(SGR.dim, ` [${n.mode}]`) : '';
    const via = n.via ? paint(SGR.magenta, ` via ${printable(n.via)}`) : '';
    out.push(`${prefix}${branch}${paint(SGR.bold, printable(n.toolName))} ${paint(SGR.dim, printable(n.callId))}${mode}${via} ${argsText(n.args)}${late}`);
    out.push(`${prefix}${childPrefix}  ${printable(decisionSummary(n))}  ⇒ ${outcomeText(n)}`);
    if (n.run) {
      const limit = n.run.limit ? ` (limit ${printable(n.run.limit)})` : '';
      out.push(`${prefix}${childPrefix}  run: ${printable(n.run.outcome)}${limit}, ${n.run.calls} call(s), ${n.run.durationMs} ms${n.children[0]?.tokenId ? `, token ${printable(n.children[0].tokenId)}` : ''}`);
    }
    const kids = n.children;
    const items: { node?: CallNode; refused?: CallNode['refused'][number] }[] = [...kids.map((node) => ({ node })), ...n.refused.map((refused) => ({ refused }))];
    items.forEach((item, i) => {
      const last = i === items.length - 1;
      const nextPrefix = prefix + childPrefix;
      if (item.node) line(item.node, nextPrefix, last ? '└─ ' : '├─ ', last ? '   ' : '│  ');
      else if (item.refused) {
        out.push(`${nextPrefix}${last ? '└─ ' : '├─ '}${paint(SGR.magenta, `REFUSED late call ${printable(item.refused.toolName)}`)}: ${printable(item.refused.reason)}`);
      }
    });
  };
  tree.roots.forEach((root) => line(root, '', '', ''));
  if (tree.roots.length > 0) {
    const all = [...walkCalls(tree.roots)];
    const count = (o: CallNode['outcome']) => all.filter((n) => n.outcome === o).length;
    const late = all.filter((n) => n.late).length + all.reduce((s, n) => n.refused.reduce((t, r) => t + r.count, s), 0);
    out.push('', `${all.length} call(s): ${count('ok')} ok, ${count('denied')} denied, ${count('blocked')} blocked, ${count('error')} failed, ${count('pending')} without result; ${late} late or refused`);
  }
  return out.join('\n');
}
