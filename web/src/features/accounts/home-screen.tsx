import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { lazy, Suspense } from 'react';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { NavButton } from '../../components/ui/nav-button';
import { ScreenHeader, ScreenShell, usePageTitle } from '../../components/ui/screen';
import { useCurrentUser } from '../../lib/auth';
import { useLogOut } from '../../lib/use-log-out';
import { UpdateBannerSection } from '../changelog/update-banner-section';

/** Home's cards beside the spec's (docs/decisions/0069), loaded after the screen itself. */
const HomeCards = lazy(() => import('./home-cards'));

export function HomeScreen() {
  usePageTitle(t`Home`);
  const user = useCurrentUser();
  const logOut = useLogOut();

  return (
    <ScreenShell width="wide">
      <ScreenHeader
        title={t`Welcome!`}
        description={
          user ? (
            <>
              <Trans>
                You are signed in as <span className="font-medium wrap-anywhere">{user.email}</span>
                .
              </Trans>
            </>
          ) : null
        }
      />
      <UpdateBannerSection />
      <Card className="flex flex-col gap-3 sm:flex-row sm:flex-wrap">
        <NavButton to="/profile" className="sm:flex-1">
          <Trans>View Profile</Trans>
        </NavButton>
        <NavButton to="/whats-new" variant="secondary" className="sm:flex-1">
          <Trans>What&apos;s New</Trans>
        </NavButton>
        <Button variant="ghost" className="sm:flex-1" onClick={() => void logOut()}>
          <Trans>Log Out</Trans>
        </Button>
      </Card>
      {user ? (
        <Suspense fallback={null}>
          <HomeCards user={user} />
        </Suspense>
      ) : null}
    </ScreenShell>
  );
}
