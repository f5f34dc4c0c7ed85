import { plural, t } from '@lingui/core/macro';
import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Avatar } from '../../components/avatar';
import { TitledCard } from '../../components/ui/card';
import { textLink } from '../../components/ui/screen';
import { adminErrorMessage, type MemberDetail, type TreeNode } from './api';
import { MemberBadges } from './member-badges';

/** How many of a member's invitees the page lists (the Invite Tree shows them all). */
const INVITEES_SHOWN = 50;

/** A member's page → People They Invited: the first 50, and the way to the Invite Tree. */
export function MemberInviteesCard({
  member,
  invitees,
}: {
  member: MemberDetail;
  invitees: UseQueryResult<TreeNode>;
}) {
  return (
    <TitledCard
      title={t`People They Invited`}
      description={
        member.invitees === 0
          ? t`Nobody has signed up with their codes yet.`
          : plural(member.invitees, {
              one: '# person signed up with their codes.',
              other: '# people signed up with their codes.',
            })
      }
    >
      {member.invitees > 0 && invitees.isPending ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">{t`Loading...`}</p>
      ) : null}
      {invitees.isError ? (
        <p role="alert" className="text-sm text-red-800 dark:text-red-200">
          {adminErrorMessage(invitees.error, t`We couldn't load the people they invited.`)}
        </p>
      ) : null}
      {invitees.isSuccess && invitees.data.children.length > 0 ? (
        <ul className="flex flex-col gap-1" aria-label={t`People they invited`}>
          {invitees.data.children.slice(0, INVITEES_SHOWN).map((child) => (
            <li key={child.id} className="flex flex-wrap items-center gap-2">
              <Avatar member={child} size="sm" />
              <Link
                to="/admin/members/$id"
                params={{ id: child.id }}
                className={`${textLink} wrap-anywhere`}
              >
                {child.email}
              </Link>
              {child.name ? (
                <span className="text-sm text-slate-700 wrap-anywhere dark:text-slate-300">
                  {child.name}
                </span>
              ) : null}
              <MemberBadges member={child} />
            </li>
          ))}
        </ul>
      ) : null}
      {member.invitees > INVITEES_SHOWN ? (
        <p className="text-sm">
          <Link to="/admin/tree" className={textLink}>
            {t`See everyone in the Invite Tree`}
          </Link>
        </p>
      ) : null}
    </TitledCard>
  );
}
