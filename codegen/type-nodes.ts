/** Small builders and readers of TypeScript type nodes, shared by the type printers. */
import ts from './typescript-module.cjs';
import zodToTsModule from './zod-to-ts-module.cjs';

const f = ts.factory;
const { printNode } = zodToTsModule;

export function keyword(kind: ts.KeywordTypeSyntaxKind): ts.KeywordTypeNode {
  return f.createKeywordTypeNode(kind);
}

export function isKeyword(node: ts.TypeNode, kind: ts.SyntaxKind): boolean {
  return node.kind === kind;
}

export function nullType(): ts.TypeNode {
  return f.createLiteralTypeNode(f.createNull());
}

/** The members of a union, nested and parenthesized unions (as zod-to-ts nests them) included. */
export function unionMembers(node: ts.TypeNode): ts.TypeNode[] {
  if (ts.isParenthesizedTypeNode(node) && ts.isUnionTypeNode(node.type)) return unionMembers(node.type);
  return ts.isUnionTypeNode(node) ? node.types.flatMap(unionMembers) : [node];
}

/** `A | B | …` with nested unions flattened and repeats (by printed text) dropped. */
export function unionOf(nodes: readonly ts.TypeNode[]): ts.TypeNode {
  const seen = new Set<string>();
  const members: ts.TypeNode[] = [];
  for (const node of nodes.flatMap(unionMembers)) {
    const text = printNode(node);
    if (seen.has(text)) continue;
    seen.add(text);
    members.push(node);
  }
  return members.length === 1 ? members[0]! : f.createUnionTypeNode(members);
}
