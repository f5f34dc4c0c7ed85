import { TitledCard } from '../../components/ui/card';
import type { UserRecord } from '../../lib/session';
import { RECENT_EVENTS, useRecentEvents } from './api';
import { EventListSection } from './event-list-section';

/** Settings → Recent Activity: the member's last security events, in plain words. */
export function RecentActivitySection({ user }: { user: UserRecord }) {
  const events = useRecentEvents(user.id);
  return (
    <TitledCard
      title="Recent Activity"
      description={`The last ${RECENT_EVENTS} sign-ins and changes to your account.`}
    >
      {events.isPending ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">Loading activity...</p>
      ) : null}
      {events.isError ? (
        <p role="alert" className="text-sm text-red-800 dark:text-red-200">
          We couldn&apos;t load your recent activity. Please try again later.
        </p>
      ) : null}
      {events.isSuccess && events.data.length === 0 ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">No recent activity.</p>
      ) : null}
      {events.isSuccess && events.data.length > 0 ? (
        <EventListSection events={events.data} label="Your recent activity" />
      ) : null}
    </TitledCard>
  );
}
