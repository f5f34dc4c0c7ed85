import { formatDateTime } from '../../lib/dates';

/** Where and when a session was opened and last used (Settings' and the console's device rows). */
export function SessionFacts({
  session,
}: {
  session: { ip: string; created: string; lastSeen: string };
}) {
  return (
    <dl className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 text-sm text-slate-700 dark:text-slate-300">
      <dt>IP</dt>
      <dd className="wrap-anywhere">{session.ip || 'Unknown'}</dd>
      <dt>Signed in</dt>
      <dd>{formatDateTime(session.created)}</dd>
      <dt>Last active</dt>
      <dd>{formatDateTime(session.lastSeen)}</dd>
    </dl>
  );
}
