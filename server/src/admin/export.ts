import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { AppContext } from '../core/context.js';
import type { Database } from '../db/schema.js';
import {
  memberRows,
  narrowing,
  orderedMembers,
  type MemberFilter,
  type MemberRow,
} from './members.js';
import type { SortBy } from './record-filter.js';

/**
 * The Members table as CSV (GET /api/admin/members.csv): the members a search and filter keep, in
 * the asked order, one row each. Streamed: read CHUNK members at a time after the last one sent
 * (keyset paging along the list's order, so each read starts where the index left off), and only
 * read again when the client has taken what was sent, so a million members are never in memory.
 */

/** Members read per query. */
export const CHUNK = 1000;

export const CSV_HEADER = [
  'email',
  'name',
  'status',
  'verified',
  'two_step',
  'last_sign_in',
  'inviter_email',
  'joined',
] as const;

/**
 * One CSV cell (RFC 4180): quoted when it holds a quote, comma or line break. A cell a spreadsheet
 * would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is
 * prefixed with `'` first (OWASP's CSV injection advice): a name is the member's own text.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

type Row = Awaited<ReturnType<typeof memberRows>>[number];

function memberLine(m: Row): string {
  return csvLine([
    m.email,
    m.name,
    m.disabled ? 'disabled' : 'active',
    m.verified ? 'yes' : 'no',
    m.twoStep ? 'yes' : 'no',
    m.lastSignIn ?? '',
    m.invitedBy?.email ?? '',
    m.created,
  ]);
}

/**
 * The rows after `last` in `order`: `(a, b, …) > (x, y, …)` term by term, each in its direction,
 * spelt out (`a > x OR (a = x AND b > y) …`), with the first term's bound alone in front so that
 * the index of the order narrows the read (`a >= x AND (…)`). A `member_sort` column may hold
 * NULL, which the list puts first going up and last going down: "past x" and "equal to x" say
 * so (`IS NULL`, `IS NOT NULL`) instead of comparing with NULL, which would keep no row.
 */
function after(
  eb: ExpressionBuilder<Database, 'users' | 'member_sort'>,
  order: readonly SortBy[],
  last: Record<string, unknown>,
): Expression<SqlBool> {
  const none = sql<SqlBool>`1 = 0`;
  const terms = order.map(({ field, direction }) => {
    const column = sql.ref<string | number>(
      field.memberSort ? `member_sort.${field.column}` : `users.${field.column}`,
    );
    const value = last[field.column] as string | number | null;
    const up = direction === 'asc';
    if (value === null) {
      return {
        column,
        value,
        same: eb(column, 'is', null),
        // NULLs first going up: every value comes after them; last going down: nothing does.
        past: up ? eb(column, 'is not', null) : none,
        bound: undefined,
      };
    }
    const past = eb(column, up ? '>' : '<', value);
    return {
      column,
      value,
      same: eb(column, '=', value),
      past: field.memberSort && !up ? eb.or([past, eb(column, 'is', null)]) : past,
      bound: field.memberSort ? undefined : eb(column, up ? '>=' : '<=', value),
    };
  });
  const spelt = eb.or(
    terms.map((term, i) => eb.and([...terms.slice(0, i).map((t) => t.same), term.past])),
  );
  const bound = terms[0]!.bound;
  return bound ? eb.and([bound, spelt]) : spelt;
}

/** The CSV, header first, as text chunks (each up to CHUNK members). */
export async function* membersCsv(ctx: AppContext, filter: MemberFilter): AsyncGenerator<string> {
  yield csvLine(CSV_HEADER);
  if (filter.condition?.kind === 'const' && !filter.condition.value) return;
  const { ids } = await narrowing(ctx, filter);
  if (ids?.length === 0) return;
  let last: MemberRow | undefined;
  for (;;) {
    let query = orderedMembers(ctx, filter, ids);
    const from = last;
    if (from) query = query.where((eb) => after(eb, filter.order, from as Record<string, unknown>));
    const rows = await query.limit(CHUNK).execute();
    if (rows.length === 0) return;
    yield (await memberRows(ctx, rows)).map(memberLine).join('');
    if (rows.length < CHUNK) return;
    last = rows.at(-1);
  }
}
