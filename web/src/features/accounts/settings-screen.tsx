import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import type { ComponentType } from 'react';
import { Card } from '../../components/ui/card';
import { NavButton } from '../../components/ui/nav-button';
import { PageSections } from '../../components/ui/page-sections';
import { ScreenHeading, ScreenShell, usePageTitle } from '../../components/ui/screen';
import { useCurrentUser } from '../../lib/auth';
import type { UserRecord } from '../../lib/session';
import { RecentActivitySection } from '../audit/recent-activity-section';
import { ConnectedAccountsSection } from '../providers/connected-accounts-section';
import { ConnectedAppsSection } from '../oidc/connected-apps-section';
import { PasskeysSection } from '../passkeys/passkeys-section';
import { SignedInDevicesSection } from '../sessions/signed-in-devices-section';
import { EmailCard } from './email-card';
import { PasswordCard } from './password-card';
import { ProfileCard } from './profile-card';
import { TwoStepCard } from './two-step-card';
import { YourDataCard } from './your-data-card';

/**
 * The cards of Settings, in order. Each is independent (its own heading, data and messages), so a
 * new part (Connected Accounts) is one more entry here.
 */
const CARDS: ReadonlyArray<{ key: string; Card: ComponentType<{ user: UserRecord }> }> = [
  { key: 'profile', Card: ProfileCard },
  { key: 'password', Card: PasswordCard },
  { key: 'two-step', Card: TwoStepCard },
  { key: 'passkeys', Card: PasskeysSection },
  { key: 'email', Card: EmailCard },
  // Only when the server has sign-in providers (it renders nothing otherwise).
  { key: 'providers', Card: ConnectedAccountsSection },
  // Only once the member let an app know their name and email (Gatehouse as an OpenID provider).
  { key: 'apps', Card: ConnectedAppsSection },
  { key: 'devices', Card: SignedInDevicesSection },
  { key: 'activity', Card: RecentActivitySection },
  { key: 'data', Card: YourDataCard },
];

export function SettingsScreen() {
  usePageTitle(t`Settings`);
  const user = useCurrentUser();
  return (
    <ScreenShell width="wide">
      <ScreenHeading>
        <Trans>Settings</Trans>
      </ScreenHeading>
      {/* "On this page" links to each card's heading; a card's id comes from its heading. */}
      <PageSections>
        {user ? (
          CARDS.map(({ key, Card: SettingsCard }) => <SettingsCard key={key} user={user} />)
        ) : (
          <Card>
            <p role="alert">
              <Trans>No user found.</Trans>
            </p>
          </Card>
        )}
        <div className="flex flex-col gap-3 sm:flex-row">
          <NavButton to="/profile" variant="secondary">
            <Trans>Back to Profile</Trans>
          </NavButton>
          <NavButton to="/home" variant="secondary">
            <Trans>Back to Home</Trans>
          </NavButton>
        </div>
      </PageSections>
    </ScreenShell>
  );
}
