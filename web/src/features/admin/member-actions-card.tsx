import { t } from '@lingui/core/macro';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import type { MemberDetail } from './api';
import type { MemberActions } from './use-member-actions';

/**
 * A member's page → Actions: disable or enable, resend verification, make or remove an operator
 * (the initial user only), reset two-step sign-in, view as the member, delete. The initial user and
 * the operator's own account cannot be disabled or deleted here; View as Member is for verified,
 * enabled members who are not operators (docs/decisions/0056).
 */
export function MemberActionsCard({
  member,
  isSelf,
  viewerIsInitialUser,
  actions,
}: {
  member: MemberDetail;
  isSelf: boolean;
  viewerIsInitialUser: boolean;
  actions: MemberActions;
}) {
  const { ask, busy, isRunning } = actions;
  const protectedAccount = member.isInitialUser || isSelf;
  const canReset = member.waysIn.twoStep || member.waysIn.passkeys > 0;
  const canViewAs = !protectedAccount && !member.isOperator && !member.disabled && member.verified;
  return (
    <TitledCard
      title={t`Actions`}
      description={
        member.isInitialUser
          ? t`The initial user cannot be disabled, deleted or lose the operator role.`
          : isSelf
            ? t`This is your own account: another operator can disable it; delete it from your profile.`
            : undefined
      }
    >
      {/* One width for every action: a grid of equal columns, whatever each label says. */}
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-2 lg:grid-cols-3">
        {protectedAccount ? null : member.disabled ? (
          <Button className="w-full" disabled={busy} onClick={() => ask('enable')}>
            {isRunning('enable') ? t`Enabling...` : t`Enable`}
          </Button>
        ) : (
          <Button
            variant="danger"
            className="w-full"
            disabled={busy}
            onClick={() => ask('disable')}
          >
            {isRunning('disable') ? t`Disabling...` : t`Disable`}
          </Button>
        )}
        {member.verified ? null : (
          <Button
            variant="secondary"
            className="w-full"
            disabled={busy}
            onClick={() => void actions.resend()}
          >
            {isRunning('resend') ? t`Sending...` : t`Resend Verification`}
          </Button>
        )}
        {viewerIsInitialUser && !member.isInitialUser ? (
          <Button
            variant="secondary"
            className="w-full"
            disabled={busy}
            onClick={() => ask(member.isOperator ? 'remove-operator' : 'make-operator')}
          >
            {isRunning('operator')
              ? t`Saving...`
              : member.isOperator
                ? t`Remove Operator`
                : t`Make Operator`}
          </Button>
        ) : null}
        {protectedAccount || !canReset ? null : (
          <Button
            variant="secondary"
            className="w-full"
            disabled={busy}
            onClick={() => ask('reset')}
          >
            {isRunning('reset') ? t`Resetting...` : t`Reset Two-Step Sign-In`}
          </Button>
        )}
        {canViewAs ? (
          <Button
            variant="secondary"
            className="w-full"
            disabled={busy}
            onClick={() => ask('view-as')}
          >
            {isRunning('view-as') ? t`Opening...` : t`View as Member`}
          </Button>
        ) : null}
        {protectedAccount ? null : (
          <Button variant="danger" className="w-full" disabled={busy} onClick={() => ask('delete')}>
            {isRunning('delete') ? t`Deleting...` : t`Delete`}
          </Button>
        )}
      </div>
    </TitledCard>
  );
}
