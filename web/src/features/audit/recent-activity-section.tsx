import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { TitledCard } from '../../components/ui/card';
import type { UserRecord } from '../../lib/session';
import { RECENT_EVENTS, useRecentEvents } from './api';
import { EventListSection } from './event-list-section';
import { QueryStatus } from '../../components/ui/query-status';

/** Settings → Recent Activity: the member's last security events, in plain words. */
export function RecentActivitySection({ user }: { user: UserRecord }) {
  const events = useRecentEvents(user.id);
  return (
    <TitledCard
      title={t`Recent Activity`}
      description={t`The last ${RECENT_EVENTS} sign-ins and changes to your account.`}
    >
      <QueryStatus
        query={events}
        loading={t`Loading activity...`}
        failed={t`We couldn't load your recent activity. Please try again later.`}
      />
      {events.isSuccess && events.data.length === 0 ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>No recent activity.</Trans>
        </p>
      ) : null}
      {events.isSuccess && events.data.length > 0 ? (
        <EventListSection events={events.data} label={t`Your recent activity`} />
      ) : null}
    </TitledCard>
  );
}
