/**
 * One zod schema -> TypeScript type text, through zod-to-ts, with the corrections the generated
 * declarations need:
 * - objects are built here (zod-to-ts would print a strict object's `never` catchall as
 *   `[x: string]: never`, which makes every declared property an error, and prints optional
 *   properties as `p?: T | undefined`); recursion still goes through the shared auxiliary store;
 * - descriptions become sanitized JSDoc ({@link jsDocCommentBody}), never raw text;
 * - an object's index signature (catchall) also admits its declared properties' types (else
 *   TypeScript rejects the declaration, TS2411), and an object without properties is
 *   `Record<string, never>` (strict) or `{ [key: string]: unknown }` for the caller, never `{}`,
 *   which would accept a string or an array as arguments;
 * - a record keyed by literals becomes `Record<K, V>` (an index signature cannot take a union
 *   of literals), a partial one (or one whose values may be absent) `Partial<Record<K, V>>`;
 *   tuple elements that may be absent are `T?`;
 * - what has no static type (transforms' outputs, custom checks, functions) or cannot cross the
 *   JSON boundary (Map, Set, Date, BigInt) becomes `unknown` with a comment saying why, never
 *   `any` and never a throw;
 * - a tool's result is never `undefined`: the pipeline turns an absent value into `null`
 *   (result-type.ts);
 * - printed string literals keep readable characters as they are (print-type.ts): the
 *   declarations are the model's prompt, and `"Z\u00FCrich"` is noise in it.
 * `io: 'input'` is the caller's view (a defaulted property is optional); `'output'` is the value.
 */
import ts from './typescript-module.cjs';
import { z } from 'zod';
import type { AuxiliaryTypeStore, ZodToTsOptions } from 'zod-to-ts';
import zodToTsModule from './zod-to-ts-module.cjs';
import { visibleText } from '../tools/index.js';
import { checkedSchema, constraintTags, inlineConstraintTags } from './constraint-tags.js';
import { jsDocCommentBody } from './jsdoc.js';
import { FALLBACK_KEY, jsonSchemaMetadata } from './schema-metadata.js';
import { printTypeNode } from './print-type.js';
import { isKeyword, keyword, unionOf } from './type-nodes.js';

export { FALLBACK_KEY, jsonSchemaMetadata } from './schema-metadata.js';

const f = ts.factory;
const { createAuxiliaryTypeStore, zodToTs } = zodToTsModule;

/** Which side of a schema to type. */
export type SchemaSide = 'input' | 'output';

function fallbackNote(schema: z.core.$ZodType): string | undefined {
  const note = jsonSchemaMetadata.get(schema)?.[FALLBACK_KEY];
  return typeof note === 'string' ? note : undefined;
}

/**
 * Shared state of one declaration file and one side: recursive types become named auxiliary
 * aliases, reused by every later schema of the same side (the two sides can differ, so each has
 * its own store and prefix).
 */
export interface TypeContext {
  readonly side: SchemaSide;
  readonly store: AuxiliaryTypeStore;
  /** Problems met (unexpressible parts), for the caller's warnings. */
  readonly warnings: string[];
}

/** A fresh context; aliases are `RecursiveArgs_<n>` (input) or `RecursiveValue_<n>` (output). */
export function createTypeContext(side: SchemaSide): TypeContext {
  const store = createAuxiliaryTypeStore();
  const prefix = side === 'input' ? 'RecursiveArgs_' : 'RecursiveValue_';
  let next = 0;
  store.nextId = () => `${prefix}${next++}`;
  return { side, store, warnings: [] };
}

/** A zod schema's internal definition, read loosely. */
export type AnyDef = z.core.$ZodTypeDef & Record<string, unknown>;
// `optin`/`optout` are set (to 'optional', or 'defaulted' for a default) when a key may be absent.
type Internals = { _zod: { def: AnyDef; optin?: string; optout?: string } };

const NO_STATIC_TYPE: Record<string, string> = {
  custom: 'a custom check has no static type',
  transform: 'a transform has no static type',
  function: 'a function cannot cross the tool boundary',
  map: 'a Map cannot cross the tool boundary (JSON)',
  set: 'a Set cannot cross the tool boundary (JSON)',
  symbol: 'a symbol cannot cross the tool boundary (JSON)',
  promise: 'a promise cannot cross the tool boundary (JSON)',
  date: 'a Date cannot cross the tool boundary (JSON)',
  bigint: 'a BigInt cannot cross the tool boundary (JSON)',
};

/** `z.coerce.date()` / `z.coerce.bigint()` arguments: what JSON can carry and the coercion accepts. */
const COERCED_FROM_JSON = new Set(['date', 'bigint']);

export function defOf(schema: z.core.$ZodType): AnyDef {
  return (schema as unknown as Internals)._zod.def;
}

function describedUnknown(note: string): ts.TypeNode {
  const node = f.createKeywordTypeNode(ts.SyntaxKind.UnknownKeyword);
  ts.addSyntheticLeadingComment(node, ts.SyntaxKind.MultiLineCommentTrivia, ` ${visibleText(note.replace(/\*\//g, '*\\/').replace(/[\r\n\u2028\u2029]+/g, ' '))} `, false);
  return node;
}

function descriptionOf(schema: z.core.$ZodType): string | undefined {
  let current: z.core.$ZodType | undefined = schema;
  // A description may sit on the property or on what optional/default/nullable wrap.
  for (let depth = 0; current && depth < 8; depth++) {
    const meta = z.globalRegistry.get(current);
    if (typeof meta?.description === 'string' && meta.description.trim() !== '') return meta.description;
    const def = defOf(current);
    current = 'innerType' in def ? (def.innerType as z.core.$ZodType) : undefined;
  }
  return undefined;
}

/**
 * `z.preprocess(fn, s)` is a pipe from a transform, which accepts anything (undefined too), so
 * zod marks it optional; whether the key may be absent is for `s` to say.
 */
function preprocessTarget(schema: z.core.$ZodType, side: SchemaSide): z.core.$ZodType | undefined {
  const def = defOf(schema);
  if (side !== 'input' || def.type !== 'pipe' || defOf(def.in as z.core.$ZodType).type !== 'transform') return undefined;
  return def.out as z.core.$ZodType;
}

/** Whether a property, tuple element or record value may be absent on `side`. */
export function isOptionalOn(schema: z.core.$ZodType, side: SchemaSide): boolean {
  const target = preprocessTarget(schema, side);
  if (target) return isOptionalOn(target, side);
  const internals = (schema as unknown as Internals)._zod;
  return Boolean(side === 'input' ? internals.optin : internals.optout);
}

/** Strips the optional/default wrappers of a property already marked `?`. */
function unwrapOptional(schema: z.core.$ZodType, side: SchemaSide): z.core.$ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    const target = preprocessTarget(current, side);
    if (target) {
      current = target;
    } else if (def.type === 'optional' || (side === 'input' && (def.type === 'default' || def.type === 'prefault'))) {
      current = def.innerType as z.core.$ZodType;
    } else {
      return current;
    }
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propertyName(key: string): ts.PropertyName {
  return IDENTIFIER.test(key) ? f.createIdentifier(key) : f.createStringLiteral(key);
}

function isLiteralKeyType(node: ts.TypeNode): boolean {
  if (ts.isLiteralTypeNode(node)) return true;
  if (ts.isUnionTypeNode(node)) return node.types.every(isLiteralKeyType);
  if (ts.isParenthesizedTypeNode(node)) return isLiteralKeyType(node.type);
  return false;
}

function stringIndex(type: ts.TypeNode): ts.IndexSignatureDeclaration {
  return f.createIndexSignature(
    undefined,
    [f.createParameterDeclaration(undefined, undefined, 'key', undefined, keyword(ts.SyntaxKind.StringKeyword))],
    type,
  );
}

/**
 * The index signature's type of an object with declared properties: TypeScript requires every
 * property to be assignable to it (TS2411), so it is the catchall's type joined with theirs
 * (and `undefined` for an optional one). Checking extra keys against the catchall alone is lost;
 * the pipeline still validates them.
 */
function catchallType(catchall: ts.TypeNode, propertyTypes: readonly ts.TypeNode[], anyOptional: boolean): ts.TypeNode {
  if (isKeyword(catchall, ts.SyntaxKind.UnknownKeyword)) return catchall; // keeps its comment, if any
  if (propertyTypes.some((node) => isKeyword(node, ts.SyntaxKind.UnknownKeyword))) return keyword(ts.SyntaxKind.UnknownKeyword);
  return unionOf([catchall, ...propertyTypes, ...(anyOptional ? [keyword(ts.SyntaxKind.UndefinedKeyword)] : [])]);
}

/**
 * An object without declared properties, as the caller writes it. `{}` would accept `"hello"`,
 * `42` or `[1, 2]` as arguments; a strict object takes no key at all, a stripping or loose one
 * any key. (On the output side `{}` stays: reading an undeclared field of it is an error.)
 */
function emptyObjectNode(catchall: z.core.$ZodType | undefined, side: SchemaSide): ts.TypeNode | undefined {
  if (side !== 'input') return undefined;
  if (catchall === undefined) return f.createTypeLiteralNode([stringIndex(keyword(ts.SyntaxKind.UnknownKeyword))]);
  if (defOf(catchall).type === 'never') return f.createTypeReferenceNode('Record', [keyword(ts.SyntaxKind.StringKeyword), keyword(ts.SyntaxKind.NeverKeyword)]);
  return undefined;
}

function objectNode(schema: z.core.$ZodType, def: AnyDef, options: ZodToTsOptions, side: SchemaSide, documented: Set<z.core.$ZodType>): ts.TypeNode {
  const shape = def.shape as Record<string, z.core.$ZodType>;
  const catchall = def.catchall as z.core.$ZodType | undefined;
  if (Object.keys(shape).length === 0) {
    const empty = emptyObjectNode(catchall, side);
    if (empty) return empty;
  }
  const store = options.auxiliaryTypeStore;
  const definition = { identifier: f.createIdentifier(store.nextId()) } as { identifier: ts.Identifier; node?: ts.TypeAliasDeclaration; used?: boolean };
  store.definitions.set(schema, definition as never);
  const members: ts.TypeElement[] = [];
  const propertyTypes: ts.TypeNode[] = [];
  let anyOptional = false;
  for (const key of Object.keys(shape)) {
    const member = shape[key]!;
    const optional = isOptionalOn(member, side);
    anyOptional ||= optional;
    // The caller reads a property's constraints in its JSDoc, not again inline on its type.
    const tags = side === 'input' ? constraintTags(member) : [];
    const core = tags.length > 0 ? checkedSchema(member).core : undefined;
    if (core) documented.add(core);
    const type = convert(optional ? unwrapOptional(member, side) : member, options);
    if (core) documented.delete(core);
    propertyTypes.push(type);
    const signature = f.createPropertySignature(undefined, propertyName(key), optional ? f.createToken(ts.SyntaxKind.QuestionToken) : undefined, type);
    const description = descriptionOf(member);
    const body = description === undefined && tags.length === 0 ? undefined : jsDocCommentBody([description ?? '', ...tags].join('\n'));
    if (body) ts.addSyntheticLeadingComment(signature, ts.SyntaxKind.MultiLineCommentTrivia, body, true);
    members.push(signature);
  }
  if (catchall && defOf(catchall).type !== 'never') {
    members.push(stringIndex(catchallType(convert(catchall, options), propertyTypes, anyOptional)));
  }
  const literal = f.createTypeLiteralNode(members);
  if (definition.used) {
    definition.node = f.createTypeAliasDeclaration(undefined, definition.identifier, undefined, literal);
    return f.createTypeReferenceNode(definition.identifier);
  }
  store.definitions.delete(schema);
  return literal;
}

/**
 * A record keyed by literals is `Record<K, V>`; zod requires every key unless the record is
 * partial or its value may be absent on this side (`z.number().optional()`, or a default for the
 * caller), and then it is `Partial<Record<K, V>>`.
 */
function recordNode(def: AnyDef, options: ZodToTsOptions, side: SchemaSide): ts.TypeNode {
  const key = convert(def.keyType as z.core.$ZodType, options);
  const valueSchema = def.valueType as z.core.$ZodType;
  if (isLiteralKeyType(key)) {
    const optional = isOptionalOn(valueSchema, side);
    const record = f.createTypeReferenceNode('Record', [key, convert(optional ? unwrapOptional(valueSchema, side) : valueSchema, options)]);
    return def.partial === true || optional ? f.createTypeReferenceNode('Partial', [record]) : record;
  }
  const value = convert(valueSchema, options);
  const keyKind = ts.isTypeReferenceNode(key) || ts.isTemplateLiteralTypeNode(key) ? keyword(ts.SyntaxKind.StringKeyword) : key;
  return f.createTypeLiteralNode([
    f.createIndexSignature(undefined, [f.createParameterDeclaration(undefined, undefined, 'key', undefined, keyKind)], value),
  ]);
}

/**
 * `[string, number?, ...boolean[]]`: optional elements and a rest, which zod-to-ts drops. An
 * element may be absent when zod says so on this side (`.optional()`, or a default for the
 * caller); TypeScript allows `T?` only after the last required element, so an earlier one
 * stays `T | undefined`, which is what zod accepts there.
 */
function tupleNode(def: AnyDef, options: ZodToTsOptions, side: SchemaSide): ts.TypeNode {
  const schemas = def.items as z.core.$ZodType[];
  let firstOptional = schemas.length;
  while (firstOptional > 0 && isOptionalOn(schemas[firstOptional - 1]!, side)) firstOptional--;
  const items = schemas.map((item, i) =>
    i >= firstOptional ? f.createOptionalTypeNode(convert(unwrapOptional(item, side), options)) : convert(item, options),
  );
  const rest = def.rest as z.core.$ZodType | null | undefined;
  if (rest) items.push(f.createRestTypeNode(f.createArrayTypeNode(convert(rest, options))));
  return f.createTupleTypeNode(items);
}

function convert(schema: z.core.$ZodType, options: ZodToTsOptions): ts.TypeNode {
  return zodToTs(schema, options).node;
}

/** Schema types whose checks are shown (numbers, strings, arrays). */
const CONSTRAINED_TYPES = new Set(['string', 'number', 'array']);
/** Type nodes given an inline constraint comment (an array of one parenthesizes it). */
const commented = new WeakSet<ts.TypeNode>();

/** `node` with `/* @tag value ... *\/` before it: constraints of a type that is not a property. */
function withInlineTags(node: ts.TypeNode, tags: readonly string[]): ts.TypeNode {
  if (tags.length === 0) return node;
  ts.addSyntheticLeadingComment(node, ts.SyntaxKind.MultiLineCommentTrivia, ` ${tags.join(' ').replace(/\*\//g, '*\\/')} `, false);
  commented.add(node);
  return node;
}

function makeOptions(ctx: TypeContext): ZodToTsOptions {
  const side = ctx.side;
  // Property cores whose constraints their JSDoc shows (objectNode), so none is repeated inline.
  const documented = new Set<z.core.$ZodType>();
  const options: ZodToTsOptions = {
    auxiliaryTypeStore: ctx.store,
    io: side,
    unrepresentable: 'any',
    // Descriptions are added here, sanitized; zod-to-ts must not add raw ones.
    metadataRegistry: z.registry<{ description?: string }>(),
    overrideFunction: (schema) => {
      const aux = ctx.store.definitions.get(schema) as { identifier: ts.Identifier; used?: boolean } | undefined;
      if (aux) {
        aux.used = true;
        return f.createTypeReferenceNode(aux.identifier);
      }
      const fallback = fallbackNote(schema);
      if (fallback !== undefined) return describedUnknown(`unknown: ${fallback}`);
      const def = defOf(schema);
      if (def.type === 'object') return objectNode(schema, def, options, side, documented);
      if (def.type === 'record') return recordNode(def, options, side);
      if (def.type === 'tuple') return tupleNode(def, options, side);
      const inlineTags = side === 'input' && !documented.has(schema) && CONSTRAINED_TYPES.has(def.type) ? inlineConstraintTags(schema) : [];
      if (def.type === 'array') {
        // JSON has no undefined array element (a program's becomes null; a tool's is refused):
        // an optional or defaulted element type is the type without it.
        const element = def.element as z.core.$ZodType;
        const present = unwrapOptional(element, side);
        // Converted once and used (never handed back to zod-to-ts to convert again: nested
        // arrays would cost 2^depth). `(/* @minLength 1 */ string)[]`: the element's constraints.
        const elementNode = convert(present, options);
        const array = f.createArrayTypeNode(commented.has(elementNode) ? f.createParenthesizedType(elementNode) : elementNode);
        return withInlineTags(array, inlineTags);
      }
      if (inlineTags.length > 0 && def.type === 'string') return withInlineTags(keyword(ts.SyntaxKind.StringKeyword), inlineTags);
      if (inlineTags.length > 0 && def.type === 'number') return withInlineTags(keyword(ts.SyntaxKind.NumberKeyword), inlineTags);
      if (def.type === 'pipe') {
        const inner = (side === 'input' ? def.in : def.out) as z.core.$ZodType;
        if (defOf(inner).type === 'transform') {
          // A transform's output type is only known to the compiler; its input is the other side.
          if (side === 'input') return convert(def.out as z.core.$ZodType, options);
          ctx.warnings.push('a transform has no static output type; typed as unknown');
          return describedUnknown('unknown: a transform has no static type');
        }
        return undefined;
      }
      // `any` would switch checking off wherever it flows; `unknown` accepts the same values.
      if (def.type === 'any') return f.createKeywordTypeNode(ts.SyntaxKind.UnknownKeyword);
      if (side === 'input' && def.coerce === true && COERCED_FROM_JSON.has(def.type)) {
        return f.createUnionTypeNode([keyword(ts.SyntaxKind.StringKeyword), keyword(ts.SyntaxKind.NumberKeyword)]);
      }
      const why = NO_STATIC_TYPE[def.type];
      if (why !== undefined) {
        ctx.warnings.push(`${why}; typed as unknown`);
        return describedUnknown(`unknown: ${why}`);
      }
      return undefined;
    },
  };
  return options;
}

/** The type of `schema` on the context's side as a type node (aliases go to the context). */
export function zodToTypeNode(schema: z.core.$ZodType, ctx: TypeContext): ts.TypeNode {
  return zodToTs(schema, makeOptions(ctx)).node;
}

/** The type of `schema` on the context's side as text (4-space indentation). */
export function zodToTypeText(schema: z.core.$ZodType, ctx: TypeContext): string {
  return printTypeNode(zodToTypeNode(schema, ctx));
}

/**
 * The auxiliary aliases a context collected, as declaration text in creation order, and a
 * renaming that numbers them 1, 2, … in that order (ids are drawn for every object, used or not,
 * so raw numbers have gaps). Apply `rename` to every text that may refer to an alias.
 */
export function auxiliaryDeclarations(ctx: TypeContext): { declarations: string[]; rename: (text: string) => string } {
  const names = new Map<string, string>();
  const declarations: string[] = [];
  const prefix = ctx.side === 'input' ? 'RecursiveArgs_' : 'RecursiveValue_';
  for (const definition of ctx.store.definitions.values()) {
    const node = (definition as { node?: ts.TypeAliasDeclaration }).node;
    if (!node) continue;
    names.set(node.name.text, `${prefix}${names.size + 1}`);
    declarations.push(printTypeNode(node));
  }
  const pattern = new RegExp(`\\b${prefix}\\d+\\b`, 'g');
  const rename = (text: string): string => (names.size === 0 ? text : text.replace(pattern, (id) => names.get(id) ?? id));
  return { declarations: declarations.map(rename), rename };
}
