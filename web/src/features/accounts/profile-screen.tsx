import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useRef } from 'react';
import { Link } from '@tanstack/react-router';
import { Avatar } from '../../components/avatar';
import { Card } from '../../components/ui/card';
import { NavButton } from '../../components/ui/nav-button';
import { ScreenHeading, ScreenShell, textLink, usePageTitle } from '../../components/ui/screen';
import { useCurrentUser } from '../../lib/auth';
import type { UserRecord } from '../../lib/session';
import { InviteCodesSection } from '../invites/invite-codes-section';
import { formatCreated } from './api';
import { DeleteAccount } from './delete-account';

export function ProfileScreen() {
  usePageTitle(t`Profile`);
  const current = useCurrentUser();
  // Keep showing the account while it is being deleted (the session ends just before leaving).
  const last = useRef<UserRecord | null>(current);
  if (current) last.current = current;
  const user = current ?? last.current;

  return (
    <ScreenShell width="wide">
      <ScreenHeading>
        <Trans>Profile</Trans>
      </ScreenHeading>
      {user ? (
        <>
          <Card aria-labelledby="account-details">
            <h2 id="account-details" className="text-lg font-semibold">
              <Trans>Account</Trans>
            </h2>
            <div className="mt-3 flex items-center gap-4">
              <Avatar member={user} size="lg" />
              <div className="min-w-0">
                <p className="text-xl font-semibold wrap-anywhere">{user.name || t`No name yet`}</p>
                <Link to="/settings" className={`${textLink} text-sm`}>
                  {user.name || user.avatar
                    ? t`Change your name or photo`
                    : t`Add your name and photo`}
                </Link>
              </div>
            </div>
            <dl className="mt-4 grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-[max-content_1fr]">
              <Detail term={t`Email`} value={user.email} />
              <Detail term={t`User ID`} value={user.id} mono />
              <Detail term={t`Email verified`} value={user.verified ? t`Yes` : t`No`} />
              <Detail term={t`Account created`} value={formatCreated(user.created)} />
            </dl>
          </Card>
          <InviteCodesSection user={user} />
        </>
      ) : (
        <Card>
          <p role="alert">
            <Trans>No user found.</Trans>
          </p>
        </Card>
      )}
      <div className="flex flex-col gap-3 sm:flex-row">
        <NavButton to="/home" variant="secondary">
          <Trans>Back to Home</Trans>
        </NavButton>
        <NavButton to="/settings" variant="secondary">
          <Trans>Settings</Trans>
        </NavButton>
      </div>
      {/* Apart from the way back, with space between: nobody deletes an account by a slip. */}
      <div className="mt-6">
        <DeleteAccount user={current} />
      </div>
    </ScreenShell>
  );
}

function Detail({ term, value, mono }: { term: string; value: string; mono?: boolean }) {
  return (
    <div className="contents">
      <dt className="text-sm font-medium text-slate-600 dark:text-slate-400">{term}</dt>
      <dd className={mono ? 'font-mono wrap-anywhere' : 'wrap-anywhere'}>{value}</dd>
    </div>
  );
}
