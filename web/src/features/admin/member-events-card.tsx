import { t } from '@lingui/core/macro';
import { Link } from '@tanstack/react-router';
import { TitledCard } from '../../components/ui/card';
import { textLink } from '../../components/ui/screen';
import { EventListSection } from '../audit/event-list-section';
import type { MemberDetail } from './api';

/** A member's page → Recent Security Events: the newest, and the way to all of them. */
export function MemberEventsCard({ member }: { member: MemberDetail }) {
  return (
    <TitledCard title={t`Recent Security Events`}>
      {member.events.length === 0 ? (
        <p className="text-slate-700 dark:text-slate-300">{t`No security events on record.`}</p>
      ) : (
        <EventListSection events={member.events} label={t`Their recent security events`} />
      )}
      <p className="text-sm">
        <Link to="/admin/security-log" search={{ member: member.id }} className={textLink}>
          {t`See all their events in the Security Log`}
        </Link>
      </p>
    </TitledCard>
  );
}
