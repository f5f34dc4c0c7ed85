import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { NavButton } from '../../components/ui/nav-button';
import { ScreenHeading, ScreenShell, usePageTitle } from '../../components/ui/screen';
import { useAuth, useCurrentUser } from '../../lib/auth';
import { UpdateBannerSection } from '../changelog/update-banner-section';
import { securityEventsKeys } from '../audit/api';
import { inviteCodesKeys } from '../invites/api';
import { sessionsKeys } from '../sessions/api';

export function HomeScreen() {
  usePageTitle('Home');
  const auth = useAuth();
  const user = useCurrentUser();
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  async function logOut() {
    await auth.signOut();
    for (const queryKey of [inviteCodesKeys.all, sessionsKeys.all, securityEventsKeys.all]) {
      queryClient.removeQueries({ queryKey });
    }
    await navigate({ to: '/' });
  }

  return (
    <ScreenShell>
      <UpdateBannerSection />
      <Card className="flex flex-col gap-5">
        <div className="flex flex-col gap-2">
          <ScreenHeading>Welcome!</ScreenHeading>
          {user ? (
            <p className="text-slate-700 dark:text-slate-300">
              You are signed in as <span className="font-medium wrap-anywhere">{user.email}</span>.
            </p>
          ) : null}
        </div>
        <div className="flex flex-col gap-3">
          <NavButton to="/profile">View Profile</NavButton>
          <NavButton to="/whats-new" variant="secondary">
            What&apos;s New
          </NavButton>
          <Button variant="ghost" onClick={logOut}>
            Log Out
          </Button>
        </div>
      </Card>
    </ScreenShell>
  );
}
