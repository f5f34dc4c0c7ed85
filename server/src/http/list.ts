import { assertNoFieldErrors, fieldError, type FieldErrors } from '../core/errors.js';

/**
 * PocketBase's list paging: `page` (from 1) and `perPage` (default 30, at most `maxPerPage`), and
 * `skipTotal` to skip counting.
 *
 * A missing `page` or `perPage` takes its default, and a `perPage` over the maximum is cut to it,
 * as in PocketBase. Any other value that is not a whole number from 1 (`0`, `-1`, `1.5`, `1e20`,
 * `abc`, one past Number.MAX_SAFE_INTEGER) is a 400 with a field error, where PocketBase falls
 * back to the default: a security review found `page=1e20` reaching the database as an offset it
 * cannot hold (a 500), and a client that sent garbage is better told than shown page 1.
 * `page` is at most the page whose offset, `(page - 1) * perPage`, is still a safe integer, which
 * both databases take (PostgreSQL's bigint and SQLite's int64 are wider).
 */
export interface ListQuery {
  page: number;
  perPage: number;
  skipTotal: boolean;
}

/** The top-level message of a paging 400; the field errors say which value and its range. */
export const INVALID_PAGING = 'Invalid page or perPage.';

const DEFAULT_PER_PAGE = 30;

/** The highest page of `perPage` rows whose offset is a safe integer. */
export function maxPage(perPage: number): number {
  return Math.floor(Number.MAX_SAFE_INTEGER / perPage) + 1;
}

/** A whole number written in decimal digits, from 1 to `max`; undefined for anything else. */
function wholeNumber(value: unknown, max: number): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 1 && n <= max ? n : undefined;
}

export function listQuery(query: unknown, maxPerPage = 100): ListQuery {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const errors: FieldErrors = {};
  let perPage = DEFAULT_PER_PAGE;
  if (q.perPage !== undefined) {
    const n = wholeNumber(q.perPage, Number.MAX_SAFE_INTEGER);
    if (n === undefined) errors.perPage = fieldError.numberOutOfRange(1, Number.MAX_SAFE_INTEGER);
    else perPage = n;
  }
  perPage = Math.min(perPage, maxPerPage);
  let page = 1;
  if (q.page !== undefined) {
    const n = wholeNumber(q.page, maxPage(perPage));
    if (n === undefined) errors.page = fieldError.numberOutOfRange(1, maxPage(perPage));
    else page = n;
  }
  assertNoFieldErrors(errors, INVALID_PAGING);
  return { page, perPage, skipTotal: q.skipTotal === 'true' || q.skipTotal === '1' };
}

/** PocketBase's list answer; totals are -1 when skipped. */
export function listAnswer<T>(list: ListQuery, items: T[], total: number | undefined) {
  return {
    page: list.page,
    perPage: list.perPage,
    totalItems: total ?? -1,
    totalPages: total === undefined ? -1 : Math.ceil(total / list.perPage),
    items,
  };
}
