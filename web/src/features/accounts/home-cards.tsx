import { lazy, Suspense } from 'react';
import { loadCatalogue } from '../../lib/i18n';
import type { UserRecord } from '../../lib/session';
import { InvitesLeftSection } from '../invites/invites-left-section';
import { SecurityNudgeCard } from './security-nudge-card';

// The initial user's first steps are the console's (their texts in its catalogue): they come with
// it, and only for the initial user.
const FirstStepsSection = lazy(() =>
  Promise.all([import('../admin/first-steps-section'), loadCatalogue('console')]).then(([m]) => ({
    default: m.FirstStepsSection,
  })),
);

/**
 * What a member comes to Home for, beside the spec's Welcome! (docs/decisions/0069): the initial
 * user's first steps, the nudge to protect the account, and the member's invites. Loaded after
 * Home itself (home-screen.tsx), so Home's own download, and the list of what every screen may
 * load that the first screen carries, stay as they were.
 */
export default function HomeCards({ user }: { user: UserRecord }) {
  return (
    <>
      {user.isInitialUser === true ? (
        <Suspense fallback={null}>
          <FirstStepsSection user={user} />
        </Suspense>
      ) : null}
      <SecurityNudgeCard user={user} />
      <InvitesLeftSection user={user} />
    </>
  );
}
