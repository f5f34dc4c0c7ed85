import { TitledCard } from '../../components/ui/card';
import { formatDateTime, serverDate } from '../../lib/dates';
import type { UserRecord } from '../../lib/session';
import { RECENT_EVENTS, useRecentEvents } from './api';
import { describeEvent, eventSource } from './describe-event';

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
        <ol
          className="flex flex-col divide-y divide-slate-200 dark:divide-slate-700"
          aria-label="Your recent activity"
        >
          {events.data.map((event) => (
            <li key={event.id} className="flex flex-col gap-0.5 py-2 first:pt-0 last:pb-0">
              <span
                className={
                  event.outcome === 'failure'
                    ? 'font-medium text-red-800 wrap-anywhere dark:text-red-200'
                    : 'font-medium wrap-anywhere'
                }
              >
                {describeEvent(event)}
              </span>
              <span className="text-sm text-slate-700 wrap-anywhere dark:text-slate-300">
                <time dateTime={serverDate(event.created)?.toISOString()}>
                  {formatDateTime(event.created)}
                </time>
                {event.type === 'sign_in' ? null : ` · ${eventSource(event)}`}
              </span>
            </li>
          ))}
        </ol>
      ) : null}
    </TitledCard>
  );
}
