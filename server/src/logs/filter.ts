import { HttpError } from '../http/envelope.js';
import {
  FilterSyntaxError,
  type FilterNode,
  likeMatches,
  likePattern,
  type Operand,
  parseFilter,
  parseSort,
  type SignOp,
} from '../tools/filter.js';
import type { LogEntry } from './entries.js';
import type { CreatedBounds } from './store.js';

/**
 * The request log's `filter` and `sort`: PocketBase's grammar as tools/filter.ts reads it (its
 * comparisons, `&&`, `||`, parentheses, quoted texts, numbers, `@now` and the other date macros,
 * `null`), on an allow-list of the log's fields (PocketBase resolves any `data.*` path; here the
 * ones the log writes). `~` and `!~` are PocketBase's LIKE (tools/filter.ts's likePattern),
 * ignoring the case of A–Z as SQLite does. `sort`: `@rowid`, `created` or `id`, `-` for newest
 * first: all three are the order the entries were written in (with several instances, batch by
 * batch, so within a second of `created`).
 *
 * The log is stored in batches (logs/store.ts), so a filter is a test run on each entry as it is
 * read, not SQL; comparisons of `created` joined by `&&` narrow the batches read. A field not in
 * the list, a comparison across types (a number field with a text that is not a number) or
 * another sort is a 400.
 */

type FieldType = 'text' | 'number' | 'null';

/** The fields a filter may name, and the type each holds. */
const FIELDS: Record<string, FieldType> = {
  id: 'text',
  created: 'text',
  level: 'number',
  message: 'text',
  'data.type': 'text',
  'data.method': 'text',
  'data.url': 'text',
  'data.status': 'number',
  'data.execTime': 'number',
  'data.remoteIP': 'text',
  'data.userAgent': 'text',
  'data.auth': 'text',
  'data.authId': 'text',
  'data.job': 'text',
  'data.trigger': 'text',
  'data.error': 'text',
};

/** The sorts the log can give: each is the order of writing. */
const SORT_FIELDS = new Set(['@rowid', 'created', 'id']);

/** A filter or sort the log cannot read (the route answers 400). */
export class BadQueryError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'BadQueryError';
  }
}

/** A filter read: the test of an entry, and the dates that bound the entries it can pass. */
export interface LogFilter {
  test: (entry: LogEntry) => boolean;
  bounds: CreatedBounds;
}

/** The filter read; undefined for an empty one. Throws BadQueryError. */
export function readFilter(filter: string | undefined): LogFilter | undefined {
  let node: FilterNode | undefined;
  try {
    node = parseFilter(filter ?? '');
  } catch (error) {
    if (error instanceof FilterSyntaxError) throw new BadQueryError(error.message);
    throw error;
  }
  if (!node) return undefined;
  const bounds: CreatedBounds = {};
  narrow(node, bounds);
  return { test: compile(node), bounds };
}

/** The order a sort asks for: `desc` when its first field has `-`. Throws BadQueryError. */
export function readSort(sort: string | undefined): 'asc' | 'desc' {
  let terms;
  try {
    terms = parseSort(sort ?? '');
  } catch (error) {
    if (error instanceof FilterSyntaxError) throw new BadQueryError(error.message);
    throw error;
  }
  for (const term of terms) {
    if (!SORT_FIELDS.has(term.field)) throw new BadQueryError(`invalid sort field "${term.field}"`);
  }
  return terms[0]?.direction ?? 'asc';
}

/** A side of a comparison: a field of the entry, or a value. */
type Side =
  | { kind: 'field'; name: string; type: FieldType }
  | { kind: 'value'; type: FieldType; value: string | number | null };

function side(operand: Operand): Side {
  if (operand.kind === 'text') return { kind: 'value', type: 'text', value: operand.value };
  if (operand.kind === 'number') return { kind: 'value', type: 'number', value: operand.value };
  if (operand.name.toLowerCase() === 'null') return { kind: 'value', type: 'null', value: null };
  const type = FIELDS[operand.name];
  if (!type) throw new BadQueryError(`unknown field "${operand.name}"`);
  return { kind: 'field', name: operand.name, type };
}

const MIRROR: Record<SignOp, SignOp> = {
  '=': '=',
  '!=': '!=',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
  '~': '~',
  '!~': '!~',
};

/** Bounds on `created` that every passing entry is within: from comparisons joined by `&&`. */
function narrow(node: FilterNode, bounds: CreatedBounds): void {
  if (node.kind === 'and') {
    for (const item of node.items) narrow(item, bounds);
    return;
  }
  if (node.kind !== 'compare') return;
  let { op, left, right } = node;
  if (right.kind === 'identifier' && left.kind !== 'identifier') {
    [left, right] = [right, left];
    op = MIRROR[op];
  }
  if (left.kind !== 'identifier' || left.name !== 'created' || right.kind !== 'text') return;
  const value = right.value;
  if (op === '>' || op === '>=' || op === '=') {
    if (bounds.from === undefined || value > bounds.from) bounds.from = value;
  }
  if (op === '<' || op === '<=' || op === '=') {
    if (bounds.to === undefined || value < bounds.to) bounds.to = value;
  }
}

/** An entry's value of a field, when it is of the field's type (else undefined). */
function valueOf(entry: LogEntry, field: string, type: FieldType): string | number | undefined {
  const v = field.startsWith('data.')
    ? entry.data[field.slice('data.'.length)]
    : entry[field as 'id' | 'created' | 'level' | 'message'];
  return typeof v === (type === 'number' ? 'number' : 'string')
    ? (v as string | number)
    : undefined;
}

function compile(node: FilterNode): (entry: LogEntry) => boolean {
  if (node.kind !== 'compare') {
    const items = node.items.map(compile);
    return node.kind === 'and'
      ? (e) => items.every((test) => test(e))
      : (e) => items.some((test) => test(e));
  }
  let op = node.op;
  let left = side(node.left);
  let right = side(node.right);
  if (left.kind === 'value' && right.kind === 'field') {
    [left, right] = [right, left];
    op = MIRROR[op];
  }
  if (left.kind === 'value') {
    // Two values: PocketBase compares them too; the answer is the same for every entry.
    throw new BadQueryError('a comparison needs a field');
  }
  const field = left;
  if (right.kind === 'field') {
    if (right.type !== field.type || op === '~' || op === '!~') {
      throw new BadQueryError(`${field.name} and ${right.name} cannot be compared`);
    }
    const other = right;
    return compare(
      op,
      (e) => valueOf(e, field.name, field.type),
      (e) => valueOf(e, other.name, other.type),
    );
  }
  const read = (e: LogEntry) => valueOf(e, field.name, field.type);
  if (right.type === 'null') {
    // PocketBase's null is the empty value: a field the entry does not have, or ''.
    const empty = (e: LogEntry) => {
      const v = read(e);
      return v === undefined || v === '';
    };
    if (op === '=') return empty;
    if (op === '!=') return (e) => !empty(e);
    throw new BadQueryError('null is compared with = or != only');
  }
  let value = right.value!;
  if (field.type === 'number' && typeof value === 'string') {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) {
      throw new BadQueryError(`${field.name} holds numbers, not "${value}"`);
    }
    value = n;
  }
  if (field.type === 'text' && typeof value === 'number') value = String(value);
  if (op === '~' || op === '!~') {
    if (field.type !== 'text') throw new BadQueryError(`${field.name} cannot be matched as text`);
    const pattern = likePattern(String(value));
    const matches = (e: LogEntry) => likeMatches(String(read(e) ?? ''), pattern);
    return op === '~' ? matches : (e) => !matches(e);
  }
  const target = value;
  return compare(op, read, () => target);
}

/** `left op right` for every entry; a side the entry has no value for passes only `!=`. */
function compare(
  op: Exclude<SignOp, '~' | '!~'>,
  left: (e: LogEntry) => string | number | undefined,
  right: (e: LogEntry) => string | number | undefined,
): (entry: LogEntry) => boolean {
  const test: Record<typeof op, (a: string | number, b: string | number) => boolean> = {
    '=': (a, b) => a === b,
    '!=': (a, b) => a !== b,
    '<': (a, b) => a < b,
    '<=': (a, b) => a <= b,
    '>': (a, b) => a > b,
    '>=': (a, b) => a >= b,
  };
  const check = test[op];
  return (e) => {
    const a = left(e);
    const b = right(e);
    if (a === undefined || b === undefined) return op === '!=' && a !== b;
    return check(a, b);
  };
}

/** The 400 for a filter or sort the list cannot read (PocketBase's: the default message). */
export function badListQuery(): HttpError {
  return new HttpError(400);
}

/** The 400 for a filter the stats cannot read (PocketBase's message). */
export function badStatsFilter(): HttpError {
  return new HttpError(400, 'Invalid filter format.');
}
