import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useId, useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { signInProviders } from '../../lib/app-config';
import { useAuth } from '../../lib/auth';
import { formatDateTime } from '../../lib/dates';
import { serverText } from '../../lib/messages';
import type { UserRecord } from '../../lib/session';
import { useConnectedProviders, useDisconnectProvider, useRefreshProviders } from './api';
import { providerErrorMessage } from './provider-errors';
import { QueryStatus } from '../../components/ui/query-status';

/**
 * Settings → Connected Accounts (only when the server has providers): each provider with
 * **Connect** or **Disconnect**. The last way in cannot be disconnected (the server refuses too).
 */
export function ConnectedAccountsSection({ user }: { user: UserRecord }) {
  const providers = signInProviders();
  if (providers.length === 0) return null;
  return <ConnectedAccounts user={user} />;
}

function ConnectedAccounts({ user }: { user: UserRecord }) {
  const auth = useAuth();
  const providers = signInProviders();
  const connected = useConnectedProviders(user.id);
  const disconnect = useDisconnectProvider(user.id);
  const refresh = useRefreshProviders(user.id);
  const [connecting, setConnecting] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const listId = useId();

  function start() {
    setNotice(null);
    setError(null);
  }

  async function onConnect(name: string, displayName: string) {
    start();
    setConnecting(name);
    try {
      await auth.connectProvider(name);
      setNotice(`${displayName} connected. You can now sign in with it.`);
    } catch (err) {
      setError(providerErrorMessage(err, displayName));
    } finally {
      setConnecting(null);
      void refresh();
    }
  }

  function onDisconnect(name: string, displayName: string) {
    start();
    disconnect.mutate(name, {
      onSuccess: () => setNotice(`${displayName} disconnected.`),
      onError: (err) =>
        setError(serverText(err) ?? t`Failed to disconnect ${displayName}. Please try again.`),
    });
  }

  const busy = connecting !== null || disconnect.isPending;

  return (
    <TitledCard
      title={t`Connected Accounts`}
      description={t`Sign in with an account you already have elsewhere.`}
    >
      <LiveMessage tone="success">{notice}</LiveMessage>
      <LiveMessage tone="error">{error}</LiveMessage>
      <QueryStatus
        query={connected}
        loading={t`Loading connected accounts...`}
        failed={t`We couldn't load your connected accounts. Please try again later.`}
      />
      {connected.isSuccess ? (
        <ul className="flex flex-col gap-2" aria-label={t`Sign-in providers`}>
          {providers.map((p) => {
            const link = connected.data.items.find((i) => i.name === p.name);
            const nameId = `${listId}-${p.name}`;
            const ending = disconnect.isPending && disconnect.variables === p.name;
            return (
              <li
                key={p.name}
                className="flex flex-col gap-3 rounded-md border border-slate-200 px-3 py-3 sm:flex-row sm:items-center sm:justify-between dark:border-slate-700"
              >
                <div className="flex min-w-0 flex-col gap-1">
                  <span id={nameId} className="font-semibold wrap-anywhere">
                    {p.displayName}
                  </span>
                  <span className="text-sm text-slate-700 dark:text-slate-300">
                    {link ? t`Connected ${formatDateTime(link.created)}` : t`Not connected`}
                  </span>
                  {link && !link.canDisconnect ? (
                    <span className="text-sm text-slate-700 dark:text-slate-300">
                      <Trans>
                        Your only way to sign in: set a password (Forgot password on the login
                        screen) before disconnecting it.
                      </Trans>
                    </span>
                  ) : null}
                </div>
                {link ? (
                  <Button
                    variant="secondary"
                    className="min-w-36 shrink-0"
                    aria-describedby={nameId}
                    disabled={busy || !link.canDisconnect}
                    onClick={() => onDisconnect(p.name, p.displayName)}
                  >
                    {ending ? t`Disconnecting...` : t`Disconnect`}
                  </Button>
                ) : (
                  <Button
                    variant="secondary"
                    className="min-w-36 shrink-0"
                    aria-describedby={nameId}
                    disabled={busy}
                    onClick={() => void onConnect(p.name, p.displayName)}
                  >
                    {connecting === p.name ? t`Connecting...` : t`Connect`}
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
    </TitledCard>
  );
}
