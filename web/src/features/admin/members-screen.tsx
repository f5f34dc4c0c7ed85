import { formatNumber } from '../../lib/i18n';
import { plural, t } from '@lingui/core/macro';
import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery, type UseQueryResult } from '@tanstack/react-query';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card, TitledCard } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { ScreenHeading, usePageTitle } from '../../components/ui/screen';
import { fieldText } from '../../lib/messages';
import { useCurrentUser } from '../../lib/auth';
import {
  adminErrorMessage,
  COUNT_LIMIT,
  downloadMembersCsv,
  MAX_BULK,
  membersQueryOptions,
  pageNumber,
  PER_PAGE,
  type MemberRow,
  type MemberSort,
  type MembersSearch,
  type MemberStatus,
} from './api';
import { ConfirmAction } from './confirm-action';
import { InviteEmailCard } from './invite-email-card';
import { MembersTable } from './members-table';
import { PagedResults } from './pager';
import { SelectField } from './select-field';
import { BULK_BUTTONS, useBulkActions } from './use-bulk-actions';

const STATUS_OPTIONS = () => [
  { value: '', label: t`All members` },
  { value: 'verified', label: t`Verified` },
  { value: 'unverified', label: t`Unverified` },
  { value: 'disabled', label: t`Disabled` },
];

const SORT_OPTIONS = (): ReadonlyArray<{ value: MemberSort; label: string }> => [
  { value: '-created', label: t`Newest first` },
  { value: 'created', label: t`Oldest first` },
  { value: 'email', label: t`Email (A to Z)` },
  { value: '-email', label: t`Email (Z to A)` },
  { value: 'disabled', label: t`Active first` },
  { value: '-disabled', label: t`Disabled first` },
  { value: 'verified', label: t`Unverified first` },
  { value: '-verified', label: t`Verified first` },
  { value: '-twoStep', label: t`Two-step first` },
  { value: 'twoStep', label: t`Without two-step first` },
  { value: '-lastSignIn', label: t`Signed in most recently` },
  { value: 'lastSignIn', label: t`Never or longest ago signed in` },
  { value: 'invitedBy', label: t`Inviter (A to Z)` },
  { value: '-invitedBy', label: t`Inviter (Z to A)` },
];

const FILTER_HINT =
  'For example: verified = false && created > "2026-01-01". Fields: email, name, verified, disabled, created, updated, id, inviteCode, emailVisibility; ~ means "contains".';

/**
 * Admin → Members: search by email, filter with PocketBase's grammar, status and sort; a table of
 * 30 a page whose headers sort it, whose rows can be selected for a bulk action, and whose members
 * (all of them that match, in the shown order) can be exported as CSV; and Invite by Email. The
 * address bar keeps the search.
 */
export function MembersScreen({
  search,
  onSearch,
}: {
  search: MembersSearch;
  onSearch: (search: MembersSearch) => void;
}) {
  usePageTitle(t`Members`);
  const viewer = useCurrentUser()?.id ?? '';
  const page = pageNumber(search);
  // The total is counted once per search, with its first page; later pages skip it.
  const first = useQuery({ ...membersQueryOptions(viewer, { ...search, page: undefined }) });
  const current = useQuery({
    ...membersQueryOptions(viewer, search),
    placeholderData: keepPreviousData,
  });
  const total = first.data?.totalItems ?? -1;
  // A filter the server cannot read: its words go beside the box (the list is not shown).
  const filterError = fieldText(current.error, 'filter') ?? null;

  const countLimit = formatNumber(COUNT_LIMIT);
  return (
    <>
      <ScreenHeading>{t`Members`}</ScreenHeading>
      <SearchForm search={search} onSearch={onSearch} filterError={filterError} />
      <TitledCard
        title={
          search.q
            ? t`Members matching “${search.q}”`
            : search.filter
              ? t`Members matching the filter`
              : t`All Members`
        }
        description={
          <span role="status">
            {total >= 0
              ? plural(total, { one: '# member', other: '# members' })
              : first.data
                ? t`More than ${countLimit} members`
                : ''}
          </span>
        }
      >
        {filterError ? (
          <p className="text-slate-700 dark:text-slate-300">
            {t`The filter could not be read: correct it above and search again.`}
          </p>
        ) : (
          // A new search, page or order starts with nothing selected.
          <MembersResults
            key={JSON.stringify(search)}
            viewer={viewer}
            search={search}
            query={current}
            page={page}
            total={total}
            onSearch={onSearch}
          />
        )}
      </TitledCard>
      <InviteEmailCard viewer={viewer} />
    </>
  );
}

/**
 * Search by email, Filter (PocketBase's grammar), Status and Sort. What is typed stays here until
 * Search (typing draws nothing else again); Status and Sort apply at once.
 */
function SearchForm({
  search,
  onSearch,
  filterError,
}: {
  search: MembersSearch;
  onSearch: (search: MembersSearch) => void;
  filterError: string | null;
}) {
  const [q, setQ] = useState(search.q ?? '');
  const [filter, setFilter] = useState(search.filter ?? '');

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onSearch({
      ...search,
      q: q.trim() || undefined,
      filter: filter.trim() || undefined,
      page: undefined,
    });
  }

  return (
    <Card>
      <form
        role="search"
        aria-label={t`Find members`}
        noValidate
        onSubmit={onSubmit}
        className="flex flex-col gap-4"
      >
        <div className="grid grid-cols-1 gap-3 lg:grid-cols-2">
          <Field
            label={t`Search by email`}
            name="q"
            type="search"
            autoComplete="off"
            spellCheck={false}
            value={q}
            onChange={(e) => setQ(e.target.value)}
          />
          <Field
            label={t`Filter`}
            name="filter"
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
            hint={FILTER_HINT}
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            error={search.filter ? filterError : undefined}
          />
        </div>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
          <SelectField
            label={t`Status`}
            options={STATUS_OPTIONS()}
            value={search.status ?? ''}
            onChange={(e) =>
              onSearch({
                ...search,
                status: (e.target.value || undefined) as MemberStatus | undefined,
                page: undefined,
              })
            }
          />
          <SelectField
            label={t`Sort`}
            options={SORT_OPTIONS()}
            value={search.sort ?? '-created'}
            onChange={(e) => onSearch(sorted(search, e.target.value as MemberSort))}
          />
          <Button type="submit" className="sm:min-w-28">
            {t`Search`}
          </Button>
        </div>
      </form>
    </Card>
  );
}

/** The search with another order, from its first page. */
function sorted(search: MembersSearch, sort: MemberSort): MembersSearch {
  return { ...search, sort: sort === '-created' ? undefined : sort, page: undefined };
}

/** The page of members with its selection, bulk actions, CSV export and pager. */
function MembersResults({
  viewer,
  search,
  query,
  page,
  total,
  onSearch,
}: {
  viewer: string;
  search: MembersSearch;
  query: UseQueryResult<{ items: MemberRow[] }>;
  page: number;
  total: number;
  onSearch: (search: MembersSearch) => void;
}) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<string | null>(null);
  const shown = query.data?.items ?? [];
  const chosen = shown.filter((m) => selected.has(m.id));
  const bulk = useBulkActions(viewer, chosen, () => setSelected(new Set()));

  function select(ids: string[], checked: boolean) {
    setSelected((before) => {
      const next = new Set(before);
      for (const id of ids) {
        if (checked) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }

  async function exportCsv() {
    if (exporting) return;
    setExporting(true);
    setExportError(null);
    try {
      await downloadMembersCsv(search);
    } catch (err) {
      setExportError(adminErrorMessage(err, t`We couldn't start the download. Please try again.`));
    } finally {
      setExporting(false);
    }
  }

  return (
    <>
      <div className="flex flex-col gap-3 lg:flex-row lg:items-center lg:justify-between">
        <div
          role="group"
          aria-label={t`Bulk actions`}
          className="flex flex-wrap items-center gap-2"
        >
          <p className="text-sm font-medium text-slate-800 dark:text-slate-200" aria-live="polite">
            {chosen.length > 0 ? `${chosen.length} selected` : t`Select members for an action`}
          </p>
          {BULK_BUTTONS().map(({ action, label }) => (
            <Button
              key={action}
              variant={action === 'disable' ? 'danger' : 'secondary'}
              disabled={chosen.length === 0 || chosen.length > MAX_BULK || bulk.running}
              onClick={() => bulk.ask(action)}
            >
              {label}
            </Button>
          ))}
        </div>
        <Button
          variant="secondary"
          className="lg:min-w-36"
          disabled={exporting}
          onClick={() => void exportCsv()}
        >
          {exporting ? t`Preparing...` : t`Export CSV`}
        </Button>
      </div>
      <LiveMessage tone="success">
        {bulk.notice ? (
          <>
            <p>{bulk.notice.summary}</p>
            {bulk.notice.skipped.length > 0 ? (
              <ul className="mt-1 list-disc pl-5">
                {bulk.notice.skipped.map((line) => (
                  <li key={line} className="wrap-anywhere">
                    {line}
                  </li>
                ))}
              </ul>
            ) : null}
          </>
        ) : null}
      </LiveMessage>
      <LiveMessage tone="error">{bulk.error ?? exportError}</LiveMessage>
      <PagedResults
        query={query}
        loadingText={t`Loading members...`}
        failedText={t`We couldn't load the members.`}
        emptyText={t`No members match this search.`}
        page={page}
        perPage={PER_PAGE}
        total={total}
        pagerLabel={t`Member pages`}
        onPage={(next) => onSearch({ ...search, page: next > 1 ? String(next) : undefined })}
      >
        {(members) => (
          <MembersTable
            members={members}
            sort={search.sort ?? '-created'}
            onSort={(sort) => onSearch(sorted(search, sort))}
            selected={selected}
            onSelect={select}
            busy={query.isPlaceholderData}
          />
        )}
      </PagedResults>
      {bulk.asked ? (
        <ConfirmAction
          question={bulk.asked.question}
          running={bulk.running}
          onCancel={bulk.cancel}
          onConfirm={bulk.confirm}
        />
      ) : null}
    </>
  );
}
