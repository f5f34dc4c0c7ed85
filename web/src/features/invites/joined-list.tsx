import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import type { ReactNode } from 'react';
import { Avatar } from '../../components/avatar';
import { formatDateTime } from '../../lib/dates';
import type { UsedInviteCode } from './api';

/** Who a row names: their name, else the email they show, else words for neither. */
export function whoJoined(used: UsedInviteCode): string {
  if (!used.member) return t`An account that has since been deleted`;
  return used.member.name || used.member.email || t`Someone who has not added a name`;
}

/**
 * The profile's "Joined with Your Codes": each code someone signed up with, with who (their photo
 * or initials, their name, the email only when they show it) and when, most recent first. A new
 * one comes in over realtime with the rest of the list (`useInviteCodes`).
 */
export function JoinedList({
  used,
  headingId,
  title = t`Joined with Your Codes`,
  when = (row) => (
    <>
      <Trans>
        Joined {formatDateTime(row.usedAt)} with{' '}
        <code className="font-mono text-xs wrap-anywhere">{row.code}</code>
      </Trans>
    </>
  ),
  children,
}: {
  used: UsedInviteCode[];
  headingId: string;
  title?: string;
  /** The line under each name: when they joined (the profile adds with which code). */
  when?: (row: UsedInviteCode) => ReactNode;
  /** What follows the list (Home's way to the whole list). */
  children?: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-2 border-t border-slate-200 pt-4 dark:border-slate-700">
      <h3 id={headingId} className="font-semibold">
        {title}
      </h3>
      {used.length === 0 ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>Nobody has joined with your codes yet. When someone does, they show here.</Trans>
        </p>
      ) : (
        <ul className="flex flex-col gap-2" aria-labelledby={headingId}>
          {used.map((row) => (
            <li key={row.id} className="flex items-center gap-3">
              <Avatar member={row.member ?? { id: row.id, name: '?' }} size="md" />
              <div className="flex min-w-0 flex-col">
                <span className="font-medium wrap-anywhere">{whoJoined(row)}</span>
                <span className="text-sm text-slate-700 dark:text-slate-300">{when(row)}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
      {children}
    </div>
  );
}
