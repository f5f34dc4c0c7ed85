import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { formatDateTime } from '../../lib/dates';

/** Where and when a session was opened and last used (Settings' and the console's device rows). */
export function SessionFacts({
  session,
}: {
  session: { ip: string; created: string; lastSeen: string };
}) {
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 text-sm text-slate-700 dark:text-slate-300">
      <dt>
        <Trans>IP</Trans>
      </dt>
      <dd className="wrap-anywhere">{session.ip || t`Unknown`}</dd>
      <dt>
        <Trans>Signed in</Trans>
      </dt>
      <dd>{formatDateTime(session.created)}</dd>
      <dt>
        <Trans>Last active</Trans>
      </dt>
      <dd>{formatDateTime(session.lastSeen)}</dd>
    </dl>
  );
}
