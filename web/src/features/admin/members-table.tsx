import { t } from '@lingui/core/macro';
import { useEffect, useRef } from 'react';
import { Link } from '@tanstack/react-router';
import { Avatar } from '../../components/avatar';
import { focusRing } from '../../components/ui/button';
import { cn } from '../../components/ui/cn';
import { textLink } from '../../components/ui/screen';
import { formatDateTime } from '../../lib/dates';
import type { MemberRow, MemberSort } from './api';
import { Badge } from './member-badges';

/** The columns one can sort by, the field each sorts, and which way a first press sorts it. */
const SORTABLE = {
  email: { field: 'email', first: 'asc' },
  status: { field: 'disabled', first: 'asc' },
  verified: { field: 'verified', first: 'asc' },
  twoStep: { field: 'twoStep', first: 'desc' },
  lastSignIn: { field: 'lastSignIn', first: 'desc' },
  inviter: { field: 'invitedBy', first: 'asc' },
  joined: { field: 'created', first: 'desc' },
} as const;
type SortColumn = keyof typeof SORTABLE;

/** The table's order as a column and a direction. */
function orderOf(sort: MemberSort): { field: string; direction: 'asc' | 'desc' } {
  return sort.startsWith('-')
    ? { field: sort.slice(1), direction: 'desc' }
    : { field: sort, direction: 'asc' };
}

/** The sort a press on `column`'s header asks for: the other way if it sorts now, else its first. */
export function nextSort(current: MemberSort, column: SortColumn): MemberSort {
  const { field, first } = SORTABLE[column];
  const now = orderOf(current);
  const direction = now.field === field ? (now.direction === 'asc' ? 'desc' : 'asc') : first;
  return (direction === 'desc' ? `-${field}` : field) as MemberSort;
}

const cell = 'px-3 py-2 text-left align-middle';

/** A header one presses to sort by its column (aria-sort says how the table is sorted). */
function SortHeader({
  column,
  label,
  sort,
  onSort,
}: {
  column: SortColumn;
  label: string;
  sort: MemberSort;
  onSort: (sort: MemberSort) => void;
}) {
  const now = orderOf(sort);
  const sorted = now.field === SORTABLE[column].field ? now.direction : undefined;
  return (
    <th
      scope="col"
      className={cn(cell, 'py-1')}
      aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
    >
      <button
        type="button"
        className={cn(
          '-mx-2 inline-flex min-h-11 items-center gap-1 rounded-md px-2 font-semibold whitespace-nowrap hover:bg-slate-100 dark:hover:bg-slate-800',
          focusRing,
        )}
        onClick={() => onSort(nextSort(sort, column))}
      >
        {label}
        <span aria-hidden="true" className="w-3 text-xs text-slate-600 dark:text-slate-400">
          {sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : '↕'}
        </span>
      </button>
    </th>
  );
}

const checkbox =
  'size-5 cursor-pointer accent-blue-700 dark:accent-blue-400 ' +
  'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-700 dark:focus-visible:outline-blue-300';

/** The page's select-all box: checked when all are selected, mixed when some are. */
function SelectAll({
  all,
  some,
  onChange,
}: {
  all: boolean;
  some: boolean;
  onChange: (checked: boolean) => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = some && !all;
  }, [all, some]);
  return (
    <input
      ref={ref}
      type="checkbox"
      className={checkbox}
      aria-label={t`Select every member on this page`}
      checked={all}
      onChange={(e) => onChange(e.target.checked)}
    />
  );
}

/**
 * The Members table: a row per member (a box to select them, their face, name and email linking to
 * their page, status, email verified, two-step sign-in, last sign-in, who invited them, when they
 * joined). Every column sorts the list when its header is pressed (the server sorts; members who
 * never signed in or have no inviter come first going up, last going down). Narrower than its columns (a phone), it scrolls sideways in its own region.
 */
export function MembersTable({
  members,
  sort,
  onSort,
  selected,
  onSelect,
  busy,
}: {
  members: MemberRow[];
  sort: MemberSort;
  onSort: (sort: MemberSort) => void;
  selected: ReadonlySet<string>;
  onSelect: (ids: string[], checked: boolean) => void;
  busy: boolean;
}) {
  const chosen = members.filter((m) => selected.has(m.id)).length;
  return (
    <div
      role="region"
      aria-label={t`Members table`}
      // Scrolls sideways on a narrow screen: a keyboard reaches it to scroll it.
      tabIndex={0}
      className={cn('-mx-5 overflow-x-auto sm:-mx-6', focusRing)}
    >
      <table aria-label={t`Members`} aria-busy={busy} className="w-full min-w-[60rem] text-sm">
        <thead className="border-b border-slate-300 dark:border-slate-600">
          <tr>
            <th scope="col" className={cn(cell, 'w-10 pl-5 sm:pl-6')}>
              <SelectAll
                all={members.length > 0 && chosen === members.length}
                some={chosen > 0}
                onChange={(checked) =>
                  onSelect(
                    members.map((m) => m.id),
                    checked,
                  )
                }
              />
            </th>
            <SortHeader column="email" label={t`Email`} sort={sort} onSort={onSort} />
            <SortHeader column="status" label={t`Status`} sort={sort} onSort={onSort} />
            <SortHeader column="verified" label={t`Verified`} sort={sort} onSort={onSort} />
            <SortHeader column="twoStep" label={t`Two-step`} sort={sort} onSort={onSort} />
            <SortHeader column="lastSignIn" label={t`Last sign-in`} sort={sort} onSort={onSort} />
            <SortHeader column="inviter" label={t`Inviter`} sort={sort} onSort={onSort} />
            <SortHeader column="joined" label={t`Joined`} sort={sort} onSort={onSort} />
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200 dark:divide-slate-700">
          {members.map((member) => (
            <tr
              key={member.id}
              className={selected.has(member.id) ? 'bg-blue-50 dark:bg-slate-800' : undefined}
            >
              <td className={cn(cell, 'pl-5 sm:pl-6')}>
                <input
                  type="checkbox"
                  className={checkbox}
                  aria-label={t`Select ${member.email}`}
                  checked={selected.has(member.id)}
                  onChange={(e) => onSelect([member.id], e.target.checked)}
                />
              </td>
              <th scope="row" className={cn(cell, 'font-normal')}>
                <div className="flex items-center gap-3">
                  <Avatar member={member} size="sm" />
                  <div className="flex min-w-0 flex-col">
                    {member.name ? (
                      <span className="font-medium wrap-anywhere">{member.name}</span>
                    ) : null}
                    <span className="flex flex-wrap items-center gap-2">
                      <Link
                        to="/admin/members/$id"
                        params={{ id: member.id }}
                        className={cn(textLink, 'wrap-anywhere')}
                      >
                        {member.email}
                      </Link>
                      {member.isInitialUser ? (
                        <Badge tone="blue">{t`Initial User`}</Badge>
                      ) : member.isOperator ? (
                        <Badge tone="blue">{t`Operator`}</Badge>
                      ) : null}
                    </span>
                  </div>
                </div>
              </th>
              <td className={cell}>
                {member.disabled ? <Badge tone="red">{t`Disabled`}</Badge> : t`Active`}
              </td>
              <td className={cell}>
                {member.verified ? t`Yes` : <Badge tone="amber">{t`No`}</Badge>}
              </td>
              <td className={cell}>{member.twoStep ? t`On` : t`Off`}</td>
              <td className={cn(cell, 'whitespace-nowrap')}>
                {member.lastSignIn ? formatDateTime(member.lastSignIn) : t`None on record`}
              </td>
              <td className={cell}>
                {member.invitedBy ? (
                  <Link
                    to="/admin/members/$id"
                    params={{ id: member.invitedBy.id }}
                    className={cn(textLink, 'wrap-anywhere')}
                  >
                    {member.invitedBy.email}
                  </Link>
                ) : member.inviterDeleted ? (
                  t`A deleted account`
                ) : (
                  t`Nobody`
                )}
              </td>
              <td className={cn(cell, 'whitespace-nowrap')}>{formatDateTime(member.created)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
