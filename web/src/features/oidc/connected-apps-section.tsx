import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useId, useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { serverText } from '../../lib/messages';
import { formatDateTime } from '../../lib/dates';
import type { UserRecord } from '../../lib/session';
import { useConnectedApps, useRevokeApp } from './api';

/**
 * Settings → Connected Apps: the apps the member let know their name and email (the consent
 * screen's remembered answer), each with **Stop Sharing**: the app's access ends and it asks again
 * next time. Shown once there is at least one.
 */
export function ConnectedAppsSection({ user }: { user: UserRecord }) {
  const apps = useConnectedApps(user.id);
  const revoke = useRevokeApp(user.id);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const listId = useId();
  const items = apps.data ?? [];
  // Kept while a notice is up, so the last removal's message stays in view.
  if (items.length === 0 && !notice) return null;

  function onRevoke(id: string, name: string) {
    setNotice(null);
    setError(null);
    revoke.mutate(id, {
      onSuccess: () => setNotice(`${name} no longer knows your name and email.`),
      onError: (err) => setError(serverText(err) ?? t`Failed to stop sharing with ${name}.`),
    });
  }

  return (
    <TitledCard
      title={t`Connected Apps`}
      description={t`Apps you signed in to with your membership. They know your name and email.`}
    >
      <LiveMessage tone="success">{notice}</LiveMessage>
      <LiveMessage tone="error">{error}</LiveMessage>
      {items.length > 0 ? (
        <ul className="flex flex-col gap-2" aria-label={t`Connected apps`}>
          {items.map((app) => {
            const nameId = `${listId}-${app.id}`;
            return (
              <li
                key={app.id}
                className="flex flex-col gap-3 rounded-md border border-slate-200 px-3 py-3 sm:flex-row sm:items-center sm:justify-between dark:border-slate-700"
              >
                <div className="flex min-w-0 flex-col gap-1">
                  <span id={nameId} className="font-semibold wrap-anywhere">
                    {app.name}
                  </span>
                  <span className="text-sm text-slate-700 dark:text-slate-300">
                    <Trans>
                      Allowed {formatDateTime(app.created)} · last used{' '}
                      {formatDateTime(app.lastUsed)}
                    </Trans>
                  </span>
                </div>
                <Button
                  variant="secondary"
                  className="min-w-36 shrink-0"
                  aria-describedby={nameId}
                  disabled={revoke.isPending}
                  onClick={() => onRevoke(app.id, app.name)}
                >
                  {revoke.isPending && revoke.variables === app.id
                    ? t`Stopping...`
                    : t`Stop Sharing`}
                </Button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </TitledCard>
  );
}
