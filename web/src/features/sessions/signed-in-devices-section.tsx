import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useId, useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { serverText } from '../../lib/messages';
import type { UserRecord } from '../../lib/session';
import { describeUserAgent } from '../../lib/user-agent';
import { useEndOtherSessions, useEndSession, useSessions, type DeviceSession } from './api';
import { SessionFacts } from './session-facts-section';
import { QueryStatus } from '../../components/ui/query-status';

/**
 * A session in words: its browser and system, or an operator viewing the account (for support,
 * docs/decisions/0056), whom the member can sign out like a device.
 */
function deviceName(session: DeviceSession): string {
  if (session.viewedBy === null || session.viewedBy === undefined) {
    return describeUserAgent(session.userAgent);
  }
  return session.viewedBy
    ? t`An operator (${session.viewedBy}) viewing your account`
    : t`An operator viewing your account`;
}

/** Settings → Signed-In Devices: every live session, with a way to end any but this one. */
export function SignedInDevicesSection({ user }: { user: UserRecord }) {
  const sessions = useSessions(user.id);
  const endOne = useEndSession(user.id);
  const endOthers = useEndOtherSessions(user.id);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const listId = useId();

  function start() {
    setNotice(null);
    setError(null);
  }

  function onSignOut(session: DeviceSession) {
    start();
    endOne.mutate(session.id, {
      onSuccess: () => setNotice(`${deviceName(session)} has been signed out.`),
      onError: (err) =>
        setError(serverText(err) ?? t`Failed to sign out that device. Please try again.`),
    });
  }

  function onSignOutOthers() {
    start();
    endOthers.mutate(undefined, {
      onSuccess: () => setNotice(t`All other devices have been signed out.`),
      onError: (err) =>
        setError(serverText(err) ?? t`Failed to sign out the other devices. Please try again.`),
    });
  }

  const others = sessions.data?.filter((s) => !s.current) ?? [];
  const busy = endOne.isPending || endOthers.isPending;

  return (
    <TitledCard
      title={t`Signed-In Devices`}
      description={t`Where your account is signed in now. Sign out any device you do not recognise.`}
    >
      <LiveMessage tone="success">{notice}</LiveMessage>
      <LiveMessage tone="error">{error}</LiveMessage>
      <QueryStatus
        query={sessions}
        loading={t`Loading devices...`}
        failed={t`We couldn't load your devices. Please try again later.`}
      />
      {sessions.isSuccess ? (
        <ul className="flex flex-col gap-2" aria-label={t`Your signed-in devices`}>
          {sessions.data.map((session) => {
            const nameId = `${listId}-${session.id}`;
            const ending = endOne.isPending && endOne.variables === session.id;
            return (
              <li
                key={session.id}
                className="flex flex-col gap-3 rounded-md border border-slate-200 px-3 py-3 sm:flex-row sm:items-center sm:justify-between dark:border-slate-700"
              >
                <div className="flex min-w-0 flex-col gap-1">
                  <p className="flex flex-wrap items-center gap-2">
                    <span id={nameId} className="font-semibold wrap-anywhere">
                      {deviceName(session)}
                    </span>
                    {session.current ? (
                      <span className="rounded-full bg-green-100 px-2 py-0.5 text-xs font-semibold text-green-900 dark:bg-green-900 dark:text-green-100">
                        <Trans>This device</Trans>
                      </span>
                    ) : null}
                  </p>
                  <SessionFacts session={session} />
                </div>
                {session.current ? null : (
                  <Button
                    variant="secondary"
                    className="min-w-32 shrink-0"
                    aria-describedby={nameId}
                    disabled={busy}
                    onClick={() => onSignOut(session)}
                  >
                    {ending ? t`Signing out...` : t`Sign Out`}
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
      {others.length > 0 ? (
        <div>
          <Button
            variant="danger"
            className="w-full sm:w-auto sm:min-w-60"
            disabled={busy}
            onClick={onSignOutOthers}
          >
            {endOthers.isPending ? t`Signing out...` : t`Sign Out All Other Devices`}
          </Button>
        </div>
      ) : null}
      {sessions.isSuccess && others.length === 0 ? (
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>No other device is signed in.</Trans>
        </p>
      ) : null}
    </TitledCard>
  );
}
