import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { LiveMessage } from '../../components/ui/alert';
import { Button, buttonClass } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { ScreenHeader, ScreenShell, usePageTitle } from '../../components/ui/screen';
import { Spinner } from '../../components/ui/spinner';
import { statusOf } from '../../lib/api-error';
import { serverText } from '../../lib/messages';
import { appName } from '../../lib/app-config';
import { useAuth } from '../../lib/auth';
import { completeStep, interactionQueryOptions, type InteractionStep } from './api';

/**
 * Where an app that signs its members in with Gatehouse sends the browser (docs/decisions/0060):
 * a guest is asked to sign in (any way in; membership is by invitation, nothing here makes an
 * account) and comes back here; a signed-in member goes on to the app at once, or is asked the
 * first time whether the app may know their name and email (remembered; Settings → Connected Apps).
 */
export function AuthorizeScreen({ uid }: { uid: string }) {
  const auth = useAuth();
  const user = auth.user();
  const navigate = useNavigate();
  const details = useQuery({ ...interactionQueryOptions(uid, user?.id), retry: false });
  const [busy, setBusy] = useState<InteractionStep | null>(null);
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  const data = details.data;
  const app = data?.app.name ?? t`The app`;
  usePageTitle(data?.prompt === 'consent' ? t`Allow ${app}` : t`Sign In to an App`);

  async function go(step: InteractionStep) {
    setBusy(step);
    setError(null);
    try {
      window.location.assign(await completeStep(uid, step));
    } catch (err) {
      setBusy(null);
      setError(serverText(err) ?? t`Something went wrong. Please try again.`);
    }
  }

  // A signed-in member who may use the app goes on without a click.
  const signInNow = !!user && data?.prompt === 'login' && data.allowed;
  useEffect(() => {
    if (!signInNow || started.current) return;
    started.current = true;
    void go('login');
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [signInNow]);

  if (details.isPending || signInNow) {
    return (
      <ScreenShell>
        <ScreenHeader title={data ? t`Signing in to ${app}…` : t`Signing in to the app…`} />
        <LiveMessage tone="error">{error}</LiveMessage>
        {error ? null : <Spinner label={t`Signing in`} />}
      </ScreenShell>
    );
  }

  if (details.isError || !data) {
    const expired = statusOf(details.error) === 404;
    return (
      <ScreenShell>
        <ScreenHeader
          title={expired ? t`This Sign-In Has Expired` : t`Something Went Wrong`}
          description={
            expired
              ? t`Go back to the app and sign in again.`
              : (serverText(details.error) ?? t`Please try again.`)
          }
        />
        <Link to={user ? '/home' : '/'} className={buttonClass('secondary', 'self-start')}>
          {user ? t`Go to Home` : t`Go to Login`}
        </Link>
      </ScreenShell>
    );
  }

  const back = (
    <Button variant="secondary" disabled={busy !== null} onClick={() => void go('abort')}>
      {busy === 'abort' ? t`Going back…` : t`Back to ${app}`}
    </Button>
  );

  if (!user) {
    return (
      <ScreenShell>
        <ScreenHeader
          title={t`Sign in to continue to ${app}`}
          description={`${app} uses your ${appName()} membership.`}
        />
        <Card className="flex flex-col gap-4">
          <LiveMessage tone="error">{error}</LiveMessage>
          <p className="text-slate-700 dark:text-slate-300">
            <Trans>
              Membership is by invitation: if you have no account, ask a member for an invite.
            </Trans>
          </p>
          <div className="flex flex-wrap gap-3">
            <Button
              onClick={() => void navigate({ to: '/', search: { redirect: `/authorize/${uid}` } })}
            >
              <Trans>Sign In</Trans>
            </Button>
            {back}
          </div>
        </Card>
      </ScreenShell>
    );
  }

  if (!data.allowed) {
    return (
      <ScreenShell>
        <ScreenHeader
          title={`${app} is for operators only`}
          description={t`Your membership does not include it.`}
        />
        <LiveMessage tone="error">{error}</LiveMessage>
        <div className="flex flex-wrap gap-3">{back}</div>
      </ScreenShell>
    );
  }

  return (
    <ScreenShell>
      <ScreenHeader title={t`Allow ${app}?`} />
      <Card className="flex flex-col gap-4">
        <LiveMessage tone="error">{error}</LiveMessage>
        <p>
          <Trans>
            <strong>{app}</strong> will know your name and email.
          </Trans>
        </p>
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>
            Signed in as {user.email}. You can stop sharing in Settings, under Connected Apps.
          </Trans>
        </p>
        <div className="flex flex-wrap gap-3">
          <Button disabled={busy !== null} onClick={() => void go('consent')}>
            {busy === 'consent' ? t`Allowing…` : t`Allow`}
          </Button>
          <Button variant="secondary" disabled={busy !== null} onClick={() => void go('abort')}>
            <Trans>Cancel</Trans>
          </Button>
        </div>
      </Card>
    </ScreenShell>
  );
}
