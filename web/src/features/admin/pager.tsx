import { formatNumber } from '../../lib/i18n';
import { plural, t } from '@lingui/core/macro';
import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { Button } from '../../components/ui/button';
import { QueryStatus } from '../../components/ui/query-status';
import { adminErrorMessage } from './api';

/**
 * Previous / Next for a list of `perPage` rows. `total` is -1 when not counted (a later page of a
 * search asks without the total): then a full page means there may be a next one.
 */
export function Pager({
  page,
  perPage,
  shown,
  total,
  label,
  onPage,
}: {
  page: number;
  perPage: number;
  shown: number;
  total: number;
  label: string;
  onPage: (page: number) => void;
}) {
  const pages = total >= 0 ? Math.max(1, Math.ceil(total / perPage)) : undefined;
  const hasNext = pages !== undefined ? page < pages : shown === perPage;
  if (page === 1 && !hasNext) return null;
  if (shown === 0 && page > 1) {
    // A page past the end (an old link, rows removed meanwhile): say so, and offer the way back.
    const last = pages ?? 1;
    return (
      <nav aria-label={label} className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-700 dark:text-slate-300">
          {pages === undefined
            ? t`Page ${page} is past the end of the list.`
            : plural(pages, {
                one: `Page ${page} is past the end of the list: it has # page.`,
                other: `Page ${page} is past the end of the list: it has # pages.`,
              })}
        </p>
        <Button variant="secondary" onClick={() => onPage(last)}>
          {last === 1 ? t`Go to First Page` : t`Go to Last Page`}
        </Button>
      </nav>
    );
  }
  const first = (page - 1) * perPage + 1;
  return (
    <nav aria-label={label} className="flex flex-wrap items-center justify-between gap-3">
      <Button
        variant="secondary"
        className="min-w-28"
        disabled={page <= 1}
        onClick={() => onPage(page - 1)}
      >
        {t`Previous`}
      </Button>
      <p className="text-sm text-slate-700 dark:text-slate-300">
        {pageLine({ first, shown, total, page, pages })}
      </p>
      <Button
        variant="secondary"
        className="min-w-28"
        disabled={!hasNext}
        onClick={() => onPage(page + 1)}
      >
        {t`Next`}
      </Button>
    </nav>
  );
}

/**
 * One page of a console list with its states: loading, failed (what could not be loaded, and the
 * server's reason), nothing matches, the rows (`children`), and the Pager below them.
 */
export function PagedResults<T>({
  query,
  loadingText,
  failedText,
  emptyText,
  page,
  perPage,
  total,
  pagerLabel,
  onPage,
  children,
}: {
  query: UseQueryResult<{ items: T[] }>;
  loadingText: string;
  failedText: string;
  emptyText: string;
  page: number;
  perPage: number;
  total: number;
  pagerLabel: string;
  onPage: (page: number) => void;
  children: (items: T[]) => ReactNode;
}) {
  return (
    <>
      <QueryStatus
        query={query}
        loading={loadingText}
        failed={`${failedText} ${adminErrorMessage(query.error, t`Please try again later.`)}`}
      />
      {query.isSuccess && query.data.items.length === 0 && page === 1 ? (
        <p className="text-slate-700 dark:text-slate-300">{emptyText}</p>
      ) : null}
      {query.isSuccess && query.data.items.length > 0 ? children(query.data.items) : null}
      {query.isSuccess ? (
        <Pager
          page={page}
          perPage={perPage}
          shown={query.data.items.length}
          total={total}
          label={pagerLabel}
          onPage={onPage}
        />
      ) : null}
    </>
  );
}

/** "1–20 of 45 · Page 1 of 3", "None of 4 · Page 2": where the rows shown sit in the list. */
function pageLine(at: {
  first: number;
  shown: number;
  total: number;
  page: number;
  pages?: number;
}) {
  const range =
    at.shown > 0 ? `${formatNumber(at.first)}–${formatNumber(at.first + at.shown - 1)}` : t`None`;
  const total = formatNumber(at.total);
  const page = formatNumber(at.page);
  const rows = at.total >= 0 ? t`${range} of ${total}` : range;
  if (at.pages === undefined) return t`${rows} · Page ${page}`;
  const pages = formatNumber(at.pages);
  return t`${rows} · Page ${page} of ${pages}`;
}
