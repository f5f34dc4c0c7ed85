import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { ValidationError } from '../core/errors.js';
import type { DatabaseKind } from '../db/connect.js';
import {
  FilterSyntaxError,
  foldAscii,
  likeMatches,
  likePattern,
  parseFilter,
  parseSort,
  type FilterNode,
  type Operand,
  type SignOp,
} from '../tools/filter.js';

/**
 * A PocketBase filter and sort over an allow-list of fields: the syntax tree (tools/filter.ts) is
 * checked field by field and type by type, then compiled to a Kysely expression whose values are
 * all bound parameters (or evaluated in JavaScript, for a list held in memory). Nothing the client
 * wrote becomes SQL text: column names come from the allow-list, operators from a fixed table
 * (docs/decisions/0052).
 *
 * What the comparisons mean, the same on SQLite, on PostgreSQL and in `matches`:
 * - text fields: `=` and `!=` exact; `<`, `<=`, `>`, `>=` in the database's order of text (code
 *   point order on SQLite and on a `C` or `C.UTF-8` PostgreSQL); `~` and `!~` contain or not,
 *   case-insensitive for A–Z (PocketBase's LIKE on SQLite), with PocketBase's `%`-wrapping.
 * - yes/no fields: against `true`, `false`, `null` (false) or a number (true is 1, false 0).
 * - `null` is the empty value: '' for text, false for yes/no (the columns hold no NULL).
 * A comparison of two values is worked out here; a field compared with a value of another type is
 * a 400 rather than PocketBase's quiet no-match.
 */

export type FieldType = 'text' | 'bool';

export interface FieldSpec {
  /** The name in the API (the record's key). */
  name: string;
  /** The column that holds it (bool: 0 or 1). */
  column: string;
  type: FieldType;
  /** Stored with no A–Z (emails are lower-cased): `~` on PostgreSQL needs no folding. */
  lowerCase?: boolean;
  /**
   * Sort only: the column is in `member_sort` (the Members table's kept values, joined one row
   * per member) and may hold NULL, which sorts first going up and last going down.
   */
  memberSort?: boolean;
}

type Cmp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** A checked filter: every field known, every comparison of one type. */
export type Condition =
  | { kind: 'and' | 'or'; items: Condition[] }
  | { kind: 'const'; value: boolean }
  | { kind: 'text'; op: Cmp; field: FieldSpec; value: string }
  | { kind: 'bool'; field: FieldSpec; value: 0 | 1 }
  | { kind: 'columns'; op: Cmp; left: FieldSpec; right: FieldSpec }
  | { kind: 'like'; field: FieldSpec; pattern: string; negate: boolean };

/** The message of a filter's or a sort's 400 (PocketBase's); the field error says what is wrong. */
export const BAD_LIST_QUERY = 'Something went wrong while processing your request.';

function refuse(param: 'filter' | 'sort', message: string): never {
  throw new ValidationError(BAD_LIST_QUERY, {
    [param]: { code: `validation_invalid_${param}`, message },
  });
}

/** A literal after reading identifiers: PocketBase's `true`, `false` and `null`, any case. */
type Value =
  { t: 'text'; v: string } | { t: 'number'; v: number } | { t: 'bool'; v: boolean } | { t: 'null' };

type Side = { t: 'field'; field: FieldSpec } | Value;

const MIRROR: Record<Cmp, Cmp> = {
  '=': '=',
  '!=': '!=',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
};

/**
 * Reads `filter` (a query value) into a checked condition; undefined for no filter. A filter that
 * does not parse, names a field not in `fields` or compares across types: a 400 with PocketBase's
 * message and a `filter` field error saying what is wrong.
 */
export function readFilter(
  text: string | undefined,
  fields: readonly FieldSpec[],
  now?: Date,
): Condition | undefined {
  let tree: FilterNode | undefined;
  try {
    tree = parseFilter(text ?? '', { now });
  } catch (error) {
    if (error instanceof FilterSyntaxError) refuse('filter', error.message);
    throw error;
  }
  return tree && simplify(check(tree, fields));
}

function names(fields: readonly FieldSpec[]): string {
  return fields.map((f) => f.name).join(', ');
}

function check(node: FilterNode, fields: readonly FieldSpec[]): Condition {
  if (node.kind !== 'compare') {
    return { kind: node.kind, items: node.items.map((item) => check(item, fields)) };
  }
  const side = (operand: Operand): Side => {
    if (operand.kind === 'text') return { t: 'text', v: operand.value };
    if (operand.kind === 'number') return { t: 'number', v: operand.value };
    const field = fields.find((f) => f.name === operand.name);
    if (field) return { t: 'field', field };
    const word = operand.name.toLowerCase();
    if (word === 'true' || word === 'false') return { t: 'bool', v: word === 'true' };
    if (word === 'null') return { t: 'null' };
    return refuse(
      'filter',
      `Unknown field ${JSON.stringify(operand.name)}: filter by ${names(fields)}.`,
    );
  };
  return compare(side(node.left), node.op, side(node.right));
}

const describe = (s: Side) =>
  s.t === 'field'
    ? `${s.field.name} (${s.field.type === 'bool' ? 'true or false' : 'text'})`
    : s.t === 'bool'
      ? 'true or false'
      : s.t === 'null'
        ? 'null'
        : s.t;

function mismatch(left: Side, op: SignOp, right: Side): never {
  return refuse(
    'filter',
    `Cannot compare ${describe(left)} ${op} ${describe(right)}: text is compared with quoted text, true or false with true, false or a number.`,
  );
}

function compare(left: Side, op: SignOp, right: Side): Condition {
  if (op === '~' || op === '!~') return like(left, op, right);
  const cmp = op as Cmp;
  if (left.t !== 'field' && right.t === 'field') return compare(right, MIRROR[cmp], left);
  if (left.t === 'field') {
    const { field } = left;
    if (right.t === 'field') {
      if (right.field.type !== field.type) mismatch(left, op, right);
      return { kind: 'columns', op: cmp, left: field, right: right.field };
    }
    if (field.type === 'text') {
      if (right.t === 'text') return { kind: 'text', op: cmp, field, value: right.v };
      if (right.t === 'null') return { kind: 'text', op: cmp, field, value: '' };
      return mismatch(left, op, right);
    }
    const n = numberOf(right);
    if (n === undefined) return mismatch(left, op, right);
    // The column holds 0 or 1: which of them pass, worked out here (no number reaches SQL).
    const zero = test(cmp, 0, n);
    const one = test(cmp, 1, n);
    if (zero === one) return { kind: 'const', value: zero };
    return { kind: 'bool', field, value: one ? 1 : 0 };
  }
  return { kind: 'const', value: constant(left, cmp, right as Value) };
}

/** A yes/no side as a number: true 1, false and null 0, a number itself; undefined for text. */
function numberOf(v: Value): number | undefined {
  if (v.t === 'bool') return v.v ? 1 : 0;
  if (v.t === 'null') return 0;
  if (v.t === 'number') return v.v;
  return undefined;
}

/** Two values compared: null takes the other side's empty value. */
function constant(left: Value, op: Cmp, right: Value): boolean {
  const textual = left.t === 'text' || right.t === 'text';
  if (textual || (left.t === 'null' && right.t === 'null')) {
    const text = (v: Value) => (v.t === 'text' ? v.v : v.t === 'null' ? '' : undefined);
    const a = text(left);
    const b = text(right);
    if (a === undefined || b === undefined) return mismatch(left, op, right);
    return test(op, compareText(a, b), 0);
  }
  if ((left.t === 'null' && right.t === 'number') || (left.t === 'number' && right.t === 'null')) {
    return mismatch(left, op, right);
  }
  return test(op, numberOf(left)!, numberOf(right)!);
}

function like(left: Side, op: '~' | '!~', right: Side): Condition {
  const negate = op === '!~';
  if (
    right.t !== 'text' ||
    (left.t !== 'text' && !(left.t === 'field' && left.field.type === 'text'))
  ) {
    return refuse(
      'filter',
      `${op} compares a text field (or text) on its left with quoted text on its right.`,
    );
  }
  const pattern = foldAscii(likePattern(right.v));
  if (left.t === 'text') return { kind: 'const', value: likeMatches(left.v, pattern) !== negate };
  return { kind: 'like', field: left.field, pattern, negate };
}

function test(op: Cmp, a: number, b: number): boolean {
  switch (op) {
    case '=':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

/** Drops constants where they decide nothing: `x && true` is x, `x || true` is true. */
function simplify(c: Condition): Condition {
  if (c.kind !== 'and' && c.kind !== 'or') return c;
  const items: Condition[] = [];
  for (const item of c.items.map(simplify)) {
    if (item.kind === 'const') {
      if (item.value === (c.kind === 'or')) return item;
      continue;
    }
    if (item.kind === c.kind) items.push(...item.items);
    else items.push(item);
  }
  if (items.length === 0) return { kind: 'const', value: c.kind === 'and' };
  return items.length === 1 ? items[0]! : { kind: c.kind, items };
}

/** Text order by code points (UTF-8 byte order), as SQLite compares text. */
export function compareText(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Whether a record (its API keys; yes/no as booleans) meets the condition. */
export function matches(c: Condition, record: Record<string, unknown>): boolean {
  const text = (f: FieldSpec) => String(record[f.name] ?? '');
  const bit = (f: FieldSpec) => (record[f.name] === true ? 1 : 0);
  const value = (f: FieldSpec) => (f.type === 'bool' ? bit(f) : text(f));
  switch (c.kind) {
    case 'and':
      return c.items.every((item) => matches(item, record));
    case 'or':
      return c.items.some((item) => matches(item, record));
    case 'const':
      return c.value;
    case 'text':
      return test(c.op, compareText(text(c.field), c.value), 0);
    case 'bool':
      return bit(c.field) === c.value;
    case 'columns': {
      const a = value(c.left);
      const b = value(c.right);
      return typeof a === 'number'
        ? test(c.op, a, b as number)
        : test(c.op, compareText(a, b as string), 0);
    }
    case 'like':
      return likeMatches(text(c.field), c.pattern) !== c.negate;
  }
}

const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ASCII_LOWER = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The condition as a Kysely expression: column references from the allow-list, operators from the
 * fixed set above, every value a bound parameter.
 */
export function toSql<DB, TB extends keyof DB>(
  c: Condition,
  eb: ExpressionBuilder<DB, TB>,
  kind: DatabaseKind,
): Expression<SqlBool> {
  const col = (f: FieldSpec) => sql.ref(f.column);
  switch (c.kind) {
    case 'and':
      return eb.and(c.items.map((item) => toSql(item, eb, kind)));
    case 'or':
      return eb.or(c.items.map((item) => toSql(item, eb, kind)));
    case 'const':
      return c.value ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
    case 'text':
      return eb(col(c.field), c.op === '!=' ? '<>' : c.op, c.value);
    case 'bool':
      return eb(col(c.field), '=', c.value);
    case 'columns':
      return eb(col(c.left), c.op === '!=' ? '<>' : c.op, col(c.right));
    case 'like': {
      // SQLite's LIKE folds A–Z itself; PostgreSQL's does not, so the column is folded there
      // (translate: A–Z only, whatever the database's locale), unless it holds no A–Z.
      const target =
        kind === 'postgres' && !c.field.lowerCase
          ? sql`translate(${col(c.field)}, ${ASCII_UPPER}, ${ASCII_LOWER})`
          : col(c.field);
      return c.negate
        ? sql<SqlBool>`${target} NOT LIKE ${c.pattern} ESCAPE '\\'`
        : sql<SqlBool>`${target} LIKE ${c.pattern} ESCAPE '\\'`;
    }
  }
}

/**
 * The `like`s that every matching row meets (the condition itself, or items of its top-level
 * `and`): narrowing by one of them narrows the whole filter.
 */
export function requiredLikes(
  c: Condition | undefined,
): Array<Extract<Condition, { kind: 'like' }>> {
  if (!c) return [];
  const items = c.kind === 'and' ? c.items : [c];
  return items.filter(
    (item): item is Extract<Condition, { kind: 'like' }> => item.kind === 'like' && !item.negate,
  );
}

/**
 * Of a LIKE pattern (A–Z folded), the longest run of plain characters that any match contains:
 * what a trigram index can look up (undefined when shorter than 3 characters).
 */
export function likeKey(pattern: string): string | undefined {
  const runs: string[] = [''];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const literal = c === '\\' && i + 1 < chars.length ? chars[++i]! : c;
    // `%` and `_` (escaped or not) end a run: the index's own LIKE would read them as wildcards.
    if (c === '%' || c === '_' || literal === '%' || literal === '_') runs.push('');
    else runs[runs.length - 1] += literal;
  }
  const longest = runs.reduce((a, b) => ([...b].length > [...a].length ? b : a), '');
  return [...longest].length >= 3 ? longest : undefined;
}

/** A sort term checked against the allow-list. */
export interface SortBy {
  field: FieldSpec;
  direction: 'asc' | 'desc';
}

/** Reads `sort` against the allow-list; a 400 with a `sort` field error for anything else. */
export function readSort(text: string | undefined, fields: readonly FieldSpec[]): SortBy[] {
  let terms;
  try {
    terms = parseSort(text ?? '');
  } catch (error) {
    if (error instanceof FilterSyntaxError) refuse('sort', error.message);
    throw error;
  }
  return terms.map(({ field: name, direction }) => {
    const field = fields.find((f) => f.name === name);
    if (!field) {
      refuse('sort', `Cannot sort by ${JSON.stringify(name)}: sort by ${names(fields)}.`);
    }
    return { field, direction };
  });
}
