import { formatNumber } from '../../lib/i18n';
import { plural, t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useId, useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Button, focusRing } from '../../components/ui/button';
import { Card, TitledCard } from '../../components/ui/card';
import { cn } from '../../components/ui/cn';
import { Field } from '../../components/ui/field';
import { QueryStatus } from '../../components/ui/query-status';
import { ScreenHeading, textLink, usePageTitle } from '../../components/ui/screen';
import { statusOf } from '../../lib/api-error';
import { serverText } from '../../lib/messages';
import { useCurrentUser } from '../../lib/auth';
import { adminErrorMessage, PER_PAGE } from './api';
import { formatLogTime, LogDetailsDialog } from './log-details-dialog';
import {
  chartStart,
  logsKeys,
  logsQueryOptions,
  logStatsQueryOptions,
  type LogRow,
} from './logs-api';
import { LOG_METHODS, type LogsSearch } from './logs-search';
import { chartHours, LogsChart } from './logs-chart';
import { Badge } from './member-badges';
import { Pager } from './pager';
import { SelectField } from './select-field';

const METHOD_OPTIONS = () => [
  { value: '', label: t`All methods` },
  ...LOG_METHODS.map((m) => ({ value: m, label: m })),
];

/**
 * Admin → Logs: the request log (PocketBase's logs API). A chart of the last 24 hours' requests
 * and errors, a filter in PocketBase's grammar with quick filters (errors only, a method), the
 * entries newest or oldest first a page at a time, and an entry's every field in a dialog. The
 * chart and the table follow the same filter; the address bar keeps it.
 */
export function LogsScreen({
  search,
  onSearch,
}: {
  search: LogsSearch;
  onSearch: (search: LogsSearch) => void;
}) {
  usePageTitle(t`Logs`);
  const viewer = useCurrentUser()?.id ?? '';
  const queryClient = useQueryClient();
  const page = search.page ? Number(search.page) : 1;
  // The current hour and the 23 before it: the same until the hour turns.
  const since = chartStart();
  const requests = useQuery({
    ...logStatsQueryOptions(viewer, search, since, false),
    placeholderData: keepPreviousData,
  });
  const errors = useQuery({
    ...logStatsQueryOptions(viewer, search, since, true),
    placeholderData: keepPreviousData,
  });
  const first = useQuery(logsQueryOptions(viewer, { ...search, page: undefined }));
  const current = useQuery({
    ...logsQueryOptions(viewer, search),
    placeholderData: keepPreviousData,
  });
  const [details, setDetails] = useState<LogRow | null>(null);
  const total = first.data?.totalItems ?? -1;

  // A filter the server cannot read: its 400 (the stats' words are the more telling), by the box.
  const refused = [requests.error, errors.error, current.error].find((e) => statusOf(e) === 400);
  const filterProblem =
    search.filter && refused
      ? (serverText(requests.error ?? errors.error) ??
        serverText(refused) ??
        t`Invalid filter format.`)
      : null;

  const change = (next: Partial<LogsSearch>) => onSearch({ ...search, ...next, page: undefined });

  return (
    <>
      <ScreenHeading>{t`Logs`}</ScreenHeading>
      <TitledCard
        title={t`Requests`}
        description={t`The last 24 hours, per hour, with the filter below. Errors are answers with a status of 400 or more.`}
      >
        <QueryStatus
          query={filterProblem ? { isPending: false, isError: false } : requests}
          loading={t`Loading the chart...`}
          failed={t`We couldn't load the chart. ${adminErrorMessage(requests.error, t`Please try again later.`)}`}
        />
        {filterProblem ? (
          <p className="text-slate-700 dark:text-slate-300">
            {t`No chart: the filter could not be read.`}
          </p>
        ) : null}
        {!filterProblem && requests.isSuccess && errors.isSuccess ? (
          <LogsChart hours={chartHours(since, requests.data, errors.data)} />
        ) : null}
      </TitledCard>

      <Card className="flex flex-col gap-4">
        <FilterForm
          key={search.filter ?? ''}
          initial={search.filter ?? ''}
          problem={filterProblem}
          onApply={(filter) => change({ filter: filter || undefined })}
        />
        <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
          <label className="flex min-h-11 items-center gap-3 text-sm font-medium">
            <Trans>
              <input
                type="checkbox"
                className={cn('size-5 accent-blue-700 dark:accent-blue-400', focusRing)}
                checked={search.errors === 'only'}
                onChange={(e) => change({ errors: e.target.checked ? 'only' : undefined })}
              />
              Errors only (status 400 or more)
            </Trans>
          </label>
          <SelectField
            label={t`Method`}
            className="sm:w-48"
            options={METHOD_OPTIONS()}
            value={search.method ?? ''}
            onChange={(e) =>
              change({
                method: LOG_METHODS.find((m) => m === e.target.value),
              })
            }
          />
        </div>
      </Card>

      <TitledCard
        title={t`Entries`}
        description={
          <span className="flex flex-wrap items-center justify-between gap-2">
            <span role="status">
              {total >= 0 && !filterProblem
                ? plural(total, { one: '# entry', other: '# entries' })
                : ''}
            </span>
          </span>
        }
      >
        <div>
          <Button
            variant="secondary"
            className="w-full sm:w-auto sm:min-w-32"
            onClick={() => void queryClient.invalidateQueries({ queryKey: logsKeys.logs(viewer) })}
          >
            {t`Refresh`}
          </Button>
        </div>
        {filterProblem ? (
          <p className="text-slate-700 dark:text-slate-300">
            {t`No entries: the filter could not be read. Change it above.`}
          </p>
        ) : (
          <>
            <QueryStatus
              query={current}
              loading={t`Loading entries...`}
              failed={t`We couldn't load the log. ${adminErrorMessage(current.error, t`Please try again later.`)}`}
            />
            {current.isSuccess && current.data.items.length === 0 ? (
              <p className="text-slate-700 dark:text-slate-300">{t`No entries match.`}</p>
            ) : null}
            {current.isSuccess && current.data.items.length > 0 ? (
              <LogTable
                rows={current.data.items}
                newestFirst={search.sort !== 'created'}
                onSort={() => change({ sort: search.sort === 'created' ? undefined : 'created' })}
                onDetails={setDetails}
              />
            ) : null}
            {current.isSuccess ? (
              <Pager
                page={page}
                perPage={PER_PAGE}
                shown={current.data.items.length}
                total={total}
                label={t`Log pages`}
                onPage={(next) =>
                  onSearch({ ...search, page: next > 1 ? String(next) : undefined })
                }
              />
            ) : null}
          </>
        )}
      </TitledCard>
      {details ? <LogDetailsDialog row={details} onClose={() => setDetails(null)} /> : null}
    </>
  );
}

function FilterForm({
  initial,
  problem,
  onApply,
}: {
  initial: string;
  problem: string | null;
  onApply: (filter: string) => void;
}) {
  const [draft, setDraft] = useState(initial);
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onApply(draft.trim());
  }
  return (
    <form
      role="search"
      aria-label={t`Filter the log`}
      noValidate
      onSubmit={onSubmit}
      className="flex flex-col gap-3 sm:flex-row sm:items-start"
    >
      <div className="grow">
        <Field
          label={t`Filter`}
          name="filter"
          autoComplete="off"
          spellCheck={false}
          className="font-mono text-sm"
          hint={t`PocketBase’s filter syntax, e.g. data.status >= 400 && data.url ~ "/api/admin"`}
          value={draft}
          error={problem}
          onChange={(e) => setDraft(e.target.value)}
        />
      </div>
      <div className="flex gap-2 sm:mt-6">
        <Button type="submit" className="grow sm:min-w-28">
          {t`Apply`}
        </Button>
        {initial ? (
          <Button
            variant="secondary"
            className="grow sm:min-w-28"
            onClick={() => {
              setDraft('');
              onApply('');
            }}
          >
            {t`Clear`}
          </Button>
        ) : null}
      </div>
    </form>
  );
}

/** A cell with nothing to show: a dash to the eye, "None" to a screen reader. */
function None() {
  return (
    <>
      <span aria-hidden="true">—</span>
      <span className="sr-only">{t`None`}</span>
    </>
  );
}

function duration(ms: unknown): string | null {
  if (typeof ms !== 'number') return null;
  return `${ms < 10 ? ms.toFixed(1) : formatNumber(Math.round(ms))} ms`;
}

function LogTable({
  rows,
  newestFirst,
  onSort,
  onDetails,
}: {
  rows: LogRow[];
  newestFirst: boolean;
  onSort: () => void;
  onDetails: (row: LogRow) => void;
}) {
  const captionId = useId();
  const cell = 'px-2 py-2 align-top';
  return (
    <div
      role="region"
      aria-labelledby={captionId}
      // The table may be wider than a phone: it scrolls sideways, by keyboard too (relative: the
      // screen-reader-only texts inside it are positioned in it, and scroll with it).
      tabIndex={0}
      className={cn('relative -mx-2 overflow-x-auto rounded-md', focusRing)}
    >
      <table className="w-full min-w-[40rem] border-collapse text-left text-sm">
        <caption id={captionId} className="sr-only">
          {t`Log entries`}
        </caption>
        <thead>
          <tr className="border-b border-slate-300 dark:border-slate-600">
            <th scope="col" className={cell} aria-sort={newestFirst ? 'descending' : 'ascending'}>
              <button
                type="button"
                onClick={onSort}
                className={cn('flex items-center gap-1 rounded-sm font-semibold', focusRing)}
              >
                {/* Each order is one whole message, so a translator sees the sentence read out. */}
                {newestFirst ? (
                  <Trans>
                    Time
                    <span aria-hidden="true">↓</span>
                    <span className="sr-only">, newest first: show oldest first</span>
                  </Trans>
                ) : (
                  <Trans>
                    Time
                    <span aria-hidden="true">↑</span>
                    <span className="sr-only">, oldest first: show newest first</span>
                  </Trans>
                )}
              </button>
            </th>
            <th scope="col" className={cell}>
              {t`Method`}
            </th>
            <th scope="col" className={cell}>
              {t`Path`}
            </th>
            <th scope="col" className={cell}>
              {t`Status`}
            </th>
            <th scope="col" className={cell}>
              {t`Duration`}
            </th>
            <th scope="col" className={cell}>
              {t`Member`}
            </th>
            <th scope="col" className={cell}>
              <span className="sr-only">{t`Details`}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <LogTableRow key={row.id} row={row} cell={cell} onDetails={() => onDetails(row)} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LogTableRow({
  row,
  cell,
  onDetails,
}: {
  row: LogRow;
  cell: string;
  onDetails: () => void;
}) {
  const pathId = useId();
  const { data } = row;
  const request = data.type === 'request';
  const status = typeof data.status === 'number' ? data.status : undefined;
  const member = typeof data.authId === 'string' && data.authId ? data.authId : undefined;
  const took = duration(data.execTime);
  return (
    <tr className="border-b border-slate-200 last:border-b-0 dark:border-slate-700">
      <td className={cn(cell, 'whitespace-nowrap')}>{formatLogTime(row.created)}</td>
      <td className={cn(cell, 'font-mono')}>
        {request && typeof data.method === 'string' ? data.method : <None />}
      </td>
      <td id={pathId} className={cn(cell, 'font-mono wrap-anywhere')}>
        {request && typeof data.url === 'string' ? data.url : row.message}
      </td>
      <td className={cell}>
        {status !== undefined ? (
          <Badge tone={status >= 400 ? 'red' : 'green'}>{String(status)}</Badge>
        ) : data.error ? (
          <Badge tone="red">{t`Failed`}</Badge>
        ) : (
          <None />
        )}
      </td>
      <td className={cn(cell, 'whitespace-nowrap')}>{took ?? <None />}</td>
      <td className={cn(cell, 'font-mono text-xs')}>
        {member ? (
          <Link to="/admin/members/$id" params={{ id: member }} className={textLink}>
            {member}
          </Link>
        ) : (
          <None />
        )}
      </td>
      <td className={cell}>
        <Button
          variant="ghost"
          className="min-h-9 px-2 py-1"
          aria-describedby={pathId}
          onClick={onDetails}
        >
          {t`Details`}
        </Button>
      </td>
    </tr>
  );
}
