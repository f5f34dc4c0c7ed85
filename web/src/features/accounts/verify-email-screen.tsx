import { useEffect, useRef, useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Spinner } from '../../components/ui/spinner';
import { ScreenHeading, ScreenShell, usePageTitle } from '../../components/ui/screen';
import { errorMessage } from '../../lib/pb';
import { redirectText, useCountdown } from '../../lib/use-countdown';
import { confirmVerification } from './api';

export const VERIFY_REDIRECT_SECONDS = 3;

type State =
  { status: 'verifying' } | { status: 'verified' } | { status: 'failed'; message: string };

export function VerifyEmailScreen({ token }: { token: string }) {
  usePageTitle('Verify email');
  const navigate = useNavigate();
  const [state, setState] = useState<State>({ status: 'verifying' });
  // One confirmation per token, even when React StrictMode runs the effect twice.
  const requested = useRef<string | null>(null);

  useEffect(() => {
    if (requested.current === token) return;
    requested.current = token;
    setState({ status: 'verifying' });
    confirmVerification(token).then(
      () => setState({ status: 'verified' }),
      (err: unknown) =>
        setState({
          status: 'failed',
          message:
            errorMessage(err) ?? 'Failed to verify email. The link may be invalid or expired.',
        }),
    );
  }, [token]);

  const goToLogin = () => void navigate({ to: '/' });
  const secondsLeft = useCountdown(VERIFY_REDIRECT_SECONDS, state.status === 'verified', goToLogin);

  return (
    <ScreenShell>
      <Card className="flex flex-col gap-4">
        {state.status === 'verifying' ? (
          <>
            <ScreenHeading key="verifying">Verifying Email...</ScreenHeading>
            <Spinner label="Please wait while we confirm your email address." />
          </>
        ) : null}
        {state.status === 'verified' ? (
          <>
            <ScreenHeading key="verified">Email Verified!</ScreenHeading>
            <p role="status">Your email address has been verified. You can now sign in.</p>
            <p className="text-slate-700 dark:text-slate-300">{redirectText(secondsLeft)}</p>
          </>
        ) : null}
        {state.status === 'failed' ? (
          <>
            <ScreenHeading key="failed">Verification Failed</ScreenHeading>
            <p role="alert" className="text-red-800 dark:text-red-200">
              {state.message}
            </p>
          </>
        ) : null}
        {state.status !== 'verifying' ? (
          <Button onClick={goToLogin} className="w-full">
            Go to Login
          </Button>
        ) : null}
      </Card>
    </ScreenShell>
  );
}
