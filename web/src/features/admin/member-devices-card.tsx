import { t } from '@lingui/core/macro';
import { TitledCard } from '../../components/ui/card';
import { describeUserAgent } from '../../lib/user-agent';
import { SessionFacts } from '../sessions/session-facts-section';
import type { MemberDetail } from './api';

/** A member's page → Signed-In Devices: where they are signed in now. */
export function MemberDevicesCard({ member }: { member: MemberDetail }) {
  return (
    <TitledCard title={t`Signed-In Devices`}>
      {member.sessions.length === 0 ? (
        <p className="text-slate-700 dark:text-slate-300">{t`Not signed in anywhere.`}</p>
      ) : (
        <ul className="flex flex-col gap-2" aria-label={t`Their signed-in devices`}>
          {member.sessions.map((session) => (
            <li
              key={session.id}
              className="flex flex-col gap-1 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700"
            >
              <span className="font-semibold wrap-anywhere">
                {session.viewedBy === null
                  ? describeUserAgent(session.userAgent)
                  : t`An operator (${session.viewedBy || 'account deleted'}) viewing as them`}
              </span>
              <SessionFacts session={session} />
            </li>
          ))}
        </ul>
      )}
    </TitledCard>
  );
}
