/**
 * PocketBase's list paging: `page` (from 1) and `perPage` (default 30, at most `maxPerPage`), and
 * `skipTotal` to skip counting. Unparseable values fall back to the defaults, as PocketBase does.
 */
export interface ListQuery {
  page: number;
  perPage: number;
  skipTotal: boolean;
}

export function listQuery(query: unknown, maxPerPage = 100): ListQuery {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const int = (value: unknown, fallback: number) => {
    const n = typeof value === 'string' ? Number(value) : NaN;
    return Number.isInteger(n) && n > 0 ? n : fallback;
  };
  return {
    page: int(q.page, 1),
    perPage: Math.min(int(q.perPage, 30), maxPerPage),
    skipTotal: q.skipTotal === 'true' || q.skipTotal === '1',
  };
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
