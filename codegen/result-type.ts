/**
 * The type a call to a tool resolves to, from its output schema: what the pipeline hands a
 * program, which is never `undefined` (an absent value becomes `null`; only JSON crosses).
 */
import ts from './typescript-module.cjs';
import { z } from 'zod';
import { isKeyword, keyword, nullType, unionMembers, unionOf } from './type-nodes.js';
import { defOf, zodToTypeNode, type TypeContext } from './zod-to-type.js';

const f = ts.factory;

/**
 * True when the schema lets a tool return nothing: parsing `undefined` succeeds with `undefined`.
 * (This runs the schema's own checks on `undefined` once, at generation time.)
 */
function acceptsAbsentValue(schema: z.core.$ZodType): boolean {
  try {
    const parsed = z.safeParse(schema, undefined);
    return parsed.success && parsed.data === undefined;
  } catch {
    return false; // an async check, or a transform that throws: not a schema for nothing
  }
}

/** Node kinds that cannot stand for `undefined`, so need no `Exclude` around them. */
const DEFINED_KINDS = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.StringKeyword,
  ts.SyntaxKind.NumberKeyword,
  ts.SyntaxKind.BooleanKeyword,
  ts.SyntaxKind.BigIntKeyword,
  ts.SyntaxKind.NeverKeyword,
  ts.SyntaxKind.ObjectKeyword,
  ts.SyntaxKind.LiteralType,
  ts.SyntaxKind.TypeLiteral,
  ts.SyntaxKind.ArrayType,
  ts.SyntaxKind.TupleType,
  ts.SyntaxKind.TemplateLiteralType,
]);

const ABSENT_KINDS = new Set<ts.SyntaxKind>([ts.SyntaxKind.UndefinedKeyword, ts.SyntaxKind.VoidKeyword]);

/** `node` without `undefined`/`void`: dropped from a union where visible, else `Exclude<…>`. */
function withoutAbsent(node: ts.TypeNode): ts.TypeNode | undefined {
  if (isKeyword(node, ts.SyntaxKind.UnknownKeyword)) return node;
  const members = unionMembers(node).filter((member) => !ABSENT_KINDS.has(member.kind));
  if (members.length === 0) return undefined;
  if (members.every((member) => DEFINED_KINDS.has(member.kind))) return unionOf(members);
  const absent = f.createUnionTypeNode([keyword(ts.SyntaxKind.UndefinedKeyword), keyword(ts.SyntaxKind.VoidKeyword)]);
  return f.createTypeReferenceNode('Exclude', [node, absent]);
}

/** The type of a value the schema gives when it is present (undefined: it never is). */
function presentValueNode(schema: z.core.$ZodType, ctx: TypeContext): ts.TypeNode | undefined {
  const def = defOf(schema);
  if (def.type === 'void' || def.type === 'undefined') return undefined;
  if (def.type === 'optional') {
    const inner = def.innerType as z.core.$ZodType;
    return acceptsAbsentValue(inner) ? presentValueNode(inner, ctx) : zodToTypeNode(inner, ctx);
  }
  return withoutAbsent(zodToTypeNode(schema, ctx));
}

/**
 * The type a call to a tool with this output schema resolves to. The pipeline turns an absent
 * value into `null` (`materializeValue`: only JSON crosses), so where the schema accepts
 * `undefined` the type has `null` instead: `z.string().optional()` is `string | null`,
 * `z.void()` is `null`. Optional properties inside stay `p?: T`: JSON drops them.
 */
export function resultTypeNode(schema: z.core.$ZodType, ctx: TypeContext): ts.TypeNode {
  if (!acceptsAbsentValue(schema)) return zodToTypeNode(schema, ctx);
  const present = presentValueNode(schema, ctx);
  if (present === undefined) return nullType();
  if (isKeyword(present, ts.SyntaxKind.UnknownKeyword)) return present;
  return unionOf([present, nullType()]);
}
