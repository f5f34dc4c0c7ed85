import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Spinner } from '../../components/ui/spinner';
import { ScreenHeader, ScreenShell, usePageTitle } from '../../components/ui/screen';
import { serverText } from '../../lib/messages';
import { redirectText, useCountdown } from '../../lib/use-countdown';
import { confirmVerification, isBadLink, requestVerification } from './api';
import { readLinkToken } from './link-token';
import { formatWait, useMailWait } from './resend-wait';

export const VERIFY_REDIRECT_SECONDS = 3;

export const VERIFY_FAILED_MESSAGE = msg`Failed to verify email. The link may be invalid or expired.`;

type State =
  { status: 'verifying' } | { status: 'verified' } | { status: 'failed'; message: string };

export function VerifyEmailScreen({ token }: { token: string }) {
  usePageTitle(t`Verify email`);
  const navigate = useNavigate();
  const link = readLinkToken(token, 'verification');
  const [state, setState] = useState<State>({ status: 'verifying' });
  // One confirmation per token, even when React StrictMode runs the effect twice.
  const requested = useRef<string | null>(null);

  useEffect(() => {
    if (requested.current === token) return;
    requested.current = token;
    // A link that can not work (unreadable, of another kind, past its expiry) fails at once.
    if (!readLinkToken(token, 'verification').usable) {
      setState({ status: 'failed', message: i18n._(VERIFY_FAILED_MESSAGE) });
      return;
    }
    setState({ status: 'verifying' });
    confirmVerification(token).then(
      () => setState({ status: 'verified' }),
      (err: unknown) =>
        setState({
          status: 'failed',
          message: isBadLink(err)
            ? i18n._(VERIFY_FAILED_MESSAGE)
            : (serverText(err) ?? i18n._(VERIFY_FAILED_MESSAGE)),
        }),
    );
  }, [token]);

  const goToLogin = () => void navigate({ to: '/', state: { email: link.email ?? '' } });
  const secondsLeft = useCountdown(VERIFY_REDIRECT_SECONDS, state.status === 'verified', goToLogin);

  return (
    <ScreenShell>
      {state.status === 'verifying' ? (
        <>
          <ScreenHeader key="verifying" title={t`Verifying Email...`} />
          <Card>
            <Spinner label={t`Please wait while we confirm your email address.`} />
          </Card>
        </>
      ) : null}
      {state.status === 'verified' ? (
        <>
          <ScreenHeader key="verified" title={t`Email Verified!`} />
          <Card className="flex flex-col gap-4">
            <p role="status">
              <Trans>Your email address has been verified. You can now sign in.</Trans>
            </p>
            <p className="text-slate-700 dark:text-slate-300">{redirectText(secondsLeft)}</p>
            <Button onClick={goToLogin} className="w-full">
              <Trans>Go to Login</Trans>
            </Button>
          </Card>
        </>
      ) : null}
      {state.status === 'failed' ? (
        <>
          <ScreenHeader key="failed" title={t`Verification Failed`} />
          <Card className="flex flex-col gap-4">
            <p role="alert" className="text-red-800 dark:text-red-200">
              {state.message}
            </p>
            {link.email ? (
              <NewVerificationLink email={link.email} />
            ) : (
              <p className="text-slate-700 dark:text-slate-300">
                <Trans>Sign in to ask for a new verification email.</Trans>
              </p>
            )}
            <Button onClick={goToLogin} className="w-full">
              <Trans>Go to Login</Trans>
            </Button>
          </Card>
        </>
      ) : null}
    </ScreenShell>
  );
}

/** The way forward from a link that failed: a new one to the address the link was for. */
function NewVerificationLink({ email }: { email: string }) {
  const wait = useMailWait('verification', email);
  const [step, setStep] = useState<'idle' | 'sending' | 'sent' | 'failed'>('idle');
  async function onSend() {
    setStep('sending');
    try {
      await requestVerification(email);
      wait.requested();
      setStep('sent');
    } catch {
      setStep('failed');
    }
  }
  return (
    <div className="flex flex-col gap-3">
      <p className="text-slate-700 dark:text-slate-300">
        <Trans>
          Verification links work for one day. We can send a new one to{' '}
          <span className="font-medium wrap-anywhere">{email}</span>.
        </Trans>
      </p>
      <LiveMessage tone="success">
        {step === 'sent'
          ? t`If this address still needs verifying, a new link is on its way. Check your inbox.`
          : null}
      </LiveMessage>
      <LiveMessage tone="error">
        {step === 'failed' ? t`Failed to resend verification email. Please try again.` : null}
      </LiveMessage>
      <Button
        variant="secondary"
        className="w-full"
        disabled={step === 'sending' || wait.secondsLeft > 0}
        onClick={onSend}
      >
        {step === 'sending'
          ? t`Sending...`
          : wait.secondsLeft > 0
            ? t`Send again in ${formatWait(wait.secondsLeft)}`
            : t`Send a New Link`}
      </Button>
    </div>
  );
}
