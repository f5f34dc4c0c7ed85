import { t } from '@lingui/core/macro';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Card } from '../../components/ui/card';
import { PageSections } from '../../components/ui/page-sections';
import { ScreenHeading, textLink, usePageTitle } from '../../components/ui/screen';
import { statusOf } from '../../lib/api-error';
import { useCurrentUser } from '../../lib/auth';
import {
  adminErrorMessage,
  meQueryOptions,
  memberQueryOptions,
  treeQueryOptions,
  type MemberDetail,
} from './api';
import { ConfirmAction } from './confirm-action';
import { MemberActionsCard } from './member-actions-card';
import { MemberBadges } from './member-badges';
import { MemberCodesCard } from './member-codes-card';
import { MemberDetailsCard } from './member-details-card';
import { MemberDevicesCard } from './member-devices-card';
import { MemberEventsCard } from './member-events-card';
import { MemberInviteesCard } from './member-invitees-card';
import { useMemberActions } from './use-member-actions';

/**
 * Admin → a member's page: details, who invited them and whom they invited, their codes, sessions
 * and newest security events, and the operator's actions on the account.
 */
export function MemberScreen({ id }: { id: string }) {
  usePageTitle(t`Member`);
  const viewer = useCurrentUser()?.id ?? '';
  const member = useQuery(memberQueryOptions(viewer, id));

  if (member.isPending) {
    return (
      <>
        <ScreenHeading>{t`Member`}</ScreenHeading>
        <p className="text-slate-700 dark:text-slate-300">{t`Loading member...`}</p>
      </>
    );
  }
  if (member.isError) {
    const gone = statusOf(member.error) === 404;
    return (
      <>
        <ScreenHeading>{gone ? t`Member Not Found` : t`Member`}</ScreenHeading>
        <Card>
          <p role="alert" className="text-red-800 dark:text-red-200">
            {gone
              ? t`There is no member with this id. The account may have been deleted.`
              : t`We couldn't load this member. ${adminErrorMessage(member.error, t`Please try again later.`)}`}
          </p>
          <p className="mt-3">
            <Link to="/admin" className={textLink}>
              {t`Back to Members`}
            </Link>
          </p>
        </Card>
      </>
    );
  }
  return <MemberPage viewer={viewer} member={member.data} />;
}

/**
 * The page of a loaded member: its cards, one file each (member-*-card.tsx), and the operator's
 * actions (`useMemberActions`), whose outcome the live regions under the heading announce.
 */
function MemberPage({ viewer, member }: { viewer: string; member: MemberDetail }) {
  const me = useQuery(meQueryOptions(viewer));
  const invitees = useQuery({
    ...treeQueryOptions(viewer, member.id),
    enabled: member.invitees > 0,
  });
  const actions = useMemberActions(viewer, member);
  const emailOf = new Map(invitees.data?.children.map((c) => [c.id, c.email]) ?? []);
  const asked = actions.asked;

  return (
    <>
      <div>
        <ScreenHeading className="wrap-anywhere">{member.email}</ScreenHeading>
        {/* A member with no badge: no empty line under the heading. */}
        <p className="mt-2 flex flex-wrap items-center gap-2 empty:hidden">
          <MemberBadges member={member} />
        </p>
        {/* The live regions stay in the page (so that they are announced) and take no room empty. */}
        <LiveMessage tone="success" alertClassName="mt-4">
          {actions.notice}
        </LiveMessage>
        <LiveMessage tone="error" alertClassName="mt-4">
          {actions.error}
        </LiveMessage>
      </div>

      {/* "On this page" links to each card's heading; a card's id comes from its heading. */}
      <PageSections>
        <MemberDetailsCard member={member} />
        <MemberActionsCard
          member={member}
          isSelf={member.id === viewer}
          viewerIsInitialUser={me.data?.isInitialUser === true}
          actions={actions}
        />
        <MemberCodesCard member={member} emailOf={emailOf} actions={actions} />
        <MemberInviteesCard member={member} invitees={invitees} />
        <MemberDevicesCard member={member} />
        <MemberEventsCard member={member} />
      </PageSections>

      {asked ? (
        <ConfirmAction
          question={asked.question}
          running={actions.busy}
          onCancel={actions.cancel}
          onConfirm={() => void actions.confirm(asked.action)}
        />
      ) : null}
    </>
  );
}
