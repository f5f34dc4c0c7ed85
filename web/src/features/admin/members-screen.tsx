import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Avatar } from '../../components/avatar';
import { Button } from '../../components/ui/button';
import { Card, TitledCard } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { ScreenHeading, textLink, usePageTitle } from '../../components/ui/screen';
import { useCurrentUser } from '../../lib/auth';
import { formatDateTime } from '../../lib/dates';
import {
  COUNT_LIMIT,
  membersQueryOptions,
  pageNumber,
  PER_PAGE,
  type MemberSort,
  type MembersSearch,
  type MemberStatus,
} from './api';
import { MemberBadges } from './member-badges';
import { PagedResults } from './pager';
import { SelectField } from './select-field';

const STATUS_OPTIONS = [
  { value: '', label: 'All members' },
  { value: 'verified', label: 'Verified' },
  { value: 'unverified', label: 'Unverified' },
  { value: 'disabled', label: 'Disabled' },
];

const SORT_OPTIONS = [
  { value: '-created', label: 'Newest first' },
  { value: 'created', label: 'Oldest first' },
  { value: 'email', label: 'Email (A to Z)' },
];

/** Admin → Members: search by email, filter, sort, 30 a page. The address bar keeps the search. */
export function MembersScreen({
  search,
  onSearch,
}: {
  search: MembersSearch;
  onSearch: (search: MembersSearch) => void;
}) {
  usePageTitle('Members');
  const viewer = useCurrentUser()?.id ?? '';
  const page = pageNumber(search);
  const [q, setQ] = useState(search.q ?? '');
  // The total is counted once per search, with its first page; later pages skip it.
  const first = useQuery({ ...membersQueryOptions(viewer, { ...search, page: undefined }) });
  const current = useQuery({
    ...membersQueryOptions(viewer, search),
    placeholderData: keepPreviousData,
  });
  const total = first.data?.totalItems ?? -1;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onSearch({ ...search, q: q.trim() || undefined, page: undefined });
  }

  return (
    <>
      <ScreenHeading>Members</ScreenHeading>
      <Card>
        <form
          role="search"
          aria-label="Find members"
          noValidate
          onSubmit={onSubmit}
          className="flex flex-col gap-4"
        >
          <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
            <div className="grow">
              <Field
                label="Search by email"
                name="q"
                type="search"
                autoComplete="off"
                spellCheck={false}
                value={q}
                onChange={(e) => setQ(e.target.value)}
              />
            </div>
            <Button type="submit" className="sm:min-w-28">
              Search
            </Button>
          </div>
          <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
            <SelectField
              label="Status"
              options={STATUS_OPTIONS}
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
              label="Sort"
              options={SORT_OPTIONS}
              value={search.sort ?? '-created'}
              onChange={(e) =>
                onSearch({
                  ...search,
                  sort: e.target.value === '-created' ? undefined : (e.target.value as MemberSort),
                  page: undefined,
                })
              }
            />
          </div>
        </form>
      </Card>
      <TitledCard
        title={search.q ? `Members matching “${search.q}”` : 'All Members'}
        description={
          <span role="status">
            {total >= 0
              ? `${total.toLocaleString('en-US')} ${total === 1 ? 'member' : 'members'}`
              : first.data
                ? `More than ${COUNT_LIMIT.toLocaleString('en-US')} members`
                : ''}
          </span>
        }
      >
        <PagedResults
          query={current}
          loadingText="Loading members..."
          failedText="We couldn't load the members."
          emptyText="No members match this search."
          page={page}
          perPage={PER_PAGE}
          total={total}
          pagerLabel="Member pages"
          onPage={(next) => onSearch({ ...search, page: next > 1 ? String(next) : undefined })}
        >
          {(members) => (
            <ul
              className="flex flex-col divide-y divide-slate-200 dark:divide-slate-700"
              aria-label="Members"
              aria-busy={current.isPlaceholderData}
            >
              {members.map((member) => (
                <li key={member.id} className="flex items-center gap-3 py-2 first:pt-0 last:pb-0">
                  <Avatar member={member} size="md" />
                  <div className="flex min-w-0 flex-col gap-1">
                    <p className="flex flex-wrap items-center gap-2">
                      <Link
                        to="/admin/members/$id"
                        params={{ id: member.id }}
                        className={`${textLink} wrap-anywhere`}
                      >
                        {member.email}
                      </Link>
                      <MemberBadges member={member} />
                    </p>
                    <p className="text-sm text-slate-700 dark:text-slate-300">
                      {member.name ? (
                        <span className="font-medium wrap-anywhere">{member.name} · </span>
                      ) : null}
                      Joined {formatDateTime(member.created)}
                    </p>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </PagedResults>
      </TitledCard>
    </>
  );
}
