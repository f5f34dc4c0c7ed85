import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { signInProviders } from '../../lib/app-config';
import { currentLanguage } from '../../lib/i18n';
import { useAuth, type SignInResult } from '../../lib/auth';

/**
 * The words for a failed sign-in with a provider: not part of the first screen's download (a
 * visitor rarely needs them), they load once a member picks a provider. Null when they could not.
 */
function failureWords() {
  return import('./provider-errors').catch(() => null);
}

/**
 * **Continue with {Provider}** under the login and sign-up forms, one button per configured
 * provider; nothing at all when the server has none. On sign-up the invite code comes along
 * (`createData.inviteCode`) and must be filled in first.
 */
export function ContinueWithProvidersSection(props: {
  /** Sign-up: the Invite Code field's value (required). Login: undefined. */
  inviteCode?: string;
  /** Sign-up: the Invite Code field is empty (the screen marks and focuses it). */
  onInviteCodeMissing?: () => void;
  onResult: (result: SignInResult) => void;
}) {
  const auth = useAuth();
  const providers = signInProviders();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const signingUp = props.inviteCode !== undefined;

  // The popup must open within the click: have the client library ready before it.
  useEffect(() => {
    if (providers.length > 0) import('../../lib/pb').catch(() => undefined);
  }, [providers.length]);

  if (providers.length === 0) return null;

  async function onContinue(name: string, displayName: string) {
    setError(null);
    const inviteCode = props.inviteCode?.trim();
    if (signingUp && !inviteCode) {
      setError(t`Invite code is required`);
      props.onInviteCodeMissing?.();
      return;
    }
    setBusy(name);
    // Its words for a failure, fetched while the provider's window is open.
    const failure = failureWords();
    try {
      // A sign-up's mail speaks the language the app speaks now (docs/decisions/0072).
      const createData = inviteCode ? { inviteCode, language: currentLanguage() } : undefined;
      const result = await auth.signInWithProvider(name, createData);
      setBusy(null);
      props.onResult(result);
    } catch (err) {
      const words = await failure;
      setBusy(null);
      setError(
        words
          ? words.providerErrorMessage(err, displayName)
          : t`Signing in with ${displayName} did not finish. Please try again.`,
      );
    }
  }

  return (
    <div className="mt-4 flex flex-col gap-3">
      <p className="flex items-center gap-3 text-sm text-slate-700 dark:text-slate-300">
        <Trans>
          <span aria-hidden="true" className="h-px flex-1 bg-slate-300 dark:bg-slate-700" />
          or
          <span aria-hidden="true" className="h-px flex-1 bg-slate-300 dark:bg-slate-700" />
        </Trans>
      </p>
      <LiveMessage tone="error">{error}</LiveMessage>
      {providers.map((p) => (
        <Button
          key={p.name}
          variant="secondary"
          className="w-full"
          disabled={busy !== null}
          onClick={() => void onContinue(p.name, p.displayName)}
        >
          {busy === p.name ? t`Continuing...` : t`Continue with ${p.displayName}`}
        </Button>
      ))}
    </div>
  );
}
