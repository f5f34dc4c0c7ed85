import type { UserRecord } from '../../lib/session';
import { FirstStepsSection } from '../admin/first-steps-section';
import { InvitesLeftSection } from '../invites/invites-left-section';
import { SecurityNudgeCard } from './security-nudge-card';

/**
 * What a member comes to Home for, beside the spec's Welcome! (docs/decisions/0069): the initial
 * user's first steps, the nudge to protect the account, and the member's invites. Loaded after
 * Home itself (home-screen.tsx), so Home's own download, and the list of what every screen may
 * load that the first screen carries, stay as they were.
 */
export default function HomeCards({ user }: { user: UserRecord }) {
  return (
    <>
      {user.isInitialUser === true ? <FirstStepsSection user={user} /> : null}
      <SecurityNudgeCard user={user} />
      <InvitesLeftSection user={user} />
    </>
  );
}
