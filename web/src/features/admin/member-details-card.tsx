import { t } from '@lingui/core/macro';
import type { ReactNode } from 'react';
import { Link } from '@tanstack/react-router';
import { Avatar } from '../../components/avatar';
import { TitledCard } from '../../components/ui/card';
import { textLink } from '../../components/ui/screen';
import { formatDateTime } from '../../lib/dates';
import type { MemberDetail, WaysIn } from './api';

/** "Password, two-step sign-in, 2 passkeys": how the member signs in. */
function waysInWords(ways: WaysIn): string {
  const words = [
    ...(ways.password ? [t`Password`] : []),
    ...(ways.twoStep ? ['two-step sign-in'] : []),
    ...(ways.passkeys > 0 ? [ways.passkeys === 1 ? '1 passkey' : `${ways.passkeys} passkeys`] : []),
    ...(ways.providers > 0
      ? [ways.providers === 1 ? t`1 connected account` : `${ways.providers} connected accounts`]
      : []),
  ];
  const text = words.join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** One line of Details: a term and its value. */
function Detail({ term, children, mono }: { term: string; children: ReactNode; mono?: boolean }) {
  return (
    <div className="contents">
      <dt className="text-sm font-medium text-slate-600 dark:text-slate-400">{term}</dt>
      <dd className={mono ? 'font-mono wrap-anywhere' : 'wrap-anywhere'}>{children}</dd>
    </div>
  );
}

/** A member's page → Details: who they are, how they sign in, their role, who invited them. */
export function MemberDetailsCard({ member }: { member: MemberDetail }) {
  return (
    <TitledCard title={t`Details`}>
      <Avatar member={member} size="lg" />
      <dl className="grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-[max-content_1fr]">
        <Detail term={t`Name`}>{member.name || t`Not set`}</Detail>
        <Detail term={t`Email`}>{member.email}</Detail>
        <Detail term={t`User ID`} mono>
          {member.id}
        </Detail>
        <Detail term={t`Status`}>{member.disabled ? t`Disabled` : t`Active`}</Detail>
        <Detail term={t`Email verified`}>{member.verified ? t`Yes` : t`No`}</Detail>
        <Detail term={t`Signs in with`}>{waysInWords(member.waysIn)}</Detail>
        <Detail term={t`Role`}>
          {member.isInitialUser ? t`Initial user` : member.isOperator ? t`Operator` : t`Member`}
        </Detail>
        <Detail term={t`Joined`}>{formatDateTime(member.created)}</Detail>
        <Detail term={t`Last sign-in`}>
          {member.lastSignIn ? formatDateTime(member.lastSignIn) : t`None on record`}
        </Detail>
        <Detail term={t`Invited by`}>
          {member.invitedBy ? (
            <Link to="/admin/members/$id" params={{ id: member.invitedBy.id }} className={textLink}>
              {member.invitedBy.email}
            </Link>
          ) : member.inviterDeleted ? (
            t`An account that has since been deleted`
          ) : (
            t`Nobody (the first account)`
          )}
        </Detail>
      </dl>
    </TitledCard>
  );
}
