import { useRef, useState, type FormEvent } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { Alert, LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { ScreenHeading, ScreenShell, textLink, usePageTitle } from '../../components/ui/screen';
import { useAuth } from '../../lib/auth';
import { checkEmail } from './validation';

type Resend = 'idle' | 'sending' | 'sent' | 'failed';

// The client library loads on first use, keeping the first screen's download small: focusing the
// form starts loading it (and the API this screen uses).
function preloadApi() {
  import('./api').catch(() => undefined);
}

export function LoginScreen() {
  usePageTitle('Sign in');
  const auth = useAuth();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<'email' | 'password' | null>(null);
  const [unverifiedEmail, setUnverifiedEmail] = useState<string | null>(null);
  const [resend, setResend] = useState<Resend>('idle');
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setError(null);
    setUnverifiedEmail(null);
    setResend('idle');
    const problem = checkEmail(email);
    if (problem) {
      setInvalid('email');
      setError(problem.message);
      emailRef.current?.focus();
      return;
    }
    if (!password) {
      setInvalid('password');
      setError('Please enter your password.');
      passwordRef.current?.focus();
      return;
    }
    setInvalid(null);
    setBusy(true);
    try {
      const result = await auth.signIn(email, password);
      if (result === 'unverified') {
        setUnverifiedEmail(email.trim());
        setBusy(false);
        return;
      }
      await navigate({ to: '/home' });
    } catch (err) {
      // Being told the password is wrong when it was the attempt limit would send people to
      // reset a password that works.
      const limited = (err as { status?: unknown } | null)?.status === 429;
      setError(
        limited
          ? 'Too many sign-in attempts. Please wait a minute and try again.'
          : 'Invalid email or password. Please try again.',
      );
      setBusy(false);
    }
  }

  async function onResend() {
    if (!unverifiedEmail) return;
    setResend('sending');
    try {
      const { requestVerification } = await import('./api');
      await requestVerification(unverifiedEmail);
      setResend('sent');
    } catch {
      setResend('failed');
    }
  }

  return (
    <ScreenShell>
      <div className="flex flex-col gap-2">
        <ScreenHeading>Welcome back</ScreenHeading>
        <p className="text-slate-700 dark:text-slate-300">Sign in to your account.</p>
      </div>
      <Card>
        <form noValidate onSubmit={onSubmit} onFocus={preloadApi} aria-label="Sign in">
          <LiveMessage tone="error" alertClassName="mb-4">
            {error}
          </LiveMessage>
          <div role="status">
            {unverifiedEmail ? (
              <Alert tone="info" className="mb-4">
                <h2 className="font-semibold">Email Not Verified</h2>
                <p className="mt-1">
                  Please verify your email address before signing in. Check your inbox (and spam
                  folder) for the verification link we sent to{' '}
                  <span className="font-medium wrap-anywhere">{unverifiedEmail}</span>.
                </p>
                <Button
                  variant="secondary"
                  className="mt-3 min-w-56"
                  onClick={onResend}
                  disabled={resend === 'sending'}
                >
                  {resend === 'sending' ? 'Sending...' : 'Resend Verification Email'}
                </Button>
              </Alert>
            ) : null}
          </div>
          <div role="status">
            {resend === 'sent' ? (
              <Alert tone="success" className="mb-4">
                Verification email sent! Check your inbox.
              </Alert>
            ) : null}
          </div>
          <div role="alert">
            {resend === 'failed' ? (
              <Alert tone="error" className="mb-4">
                Failed to resend verification email. Please try again.
              </Alert>
            ) : null}
          </div>
          <div className="flex flex-col gap-4">
            <Field
              ref={emailRef}
              label="Email"
              name="email"
              type="email"
              autoComplete="email"
              required
              value={email}
              aria-invalid={invalid === 'email' || undefined}
              onChange={(e) => setEmail(e.target.value)}
            />
            <Field
              ref={passwordRef}
              label="Password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              aria-invalid={invalid === 'password' || undefined}
              onChange={(e) => setPassword(e.target.value)}
            />
            <div className="flex justify-end">
              <Link to="/forgot-password" className={textLink}>
                Forgot password?
              </Link>
            </div>
            <Button type="submit" className="w-full" disabled={busy}>
              {busy ? 'Signing in...' : 'Sign In'}
            </Button>
          </div>
        </form>
      </Card>
      <p className="text-center text-slate-700 dark:text-slate-300">
        Don&apos;t have an account?{' '}
        <Link to="/signup" className={textLink}>
          Sign up
        </Link>
      </p>
    </ScreenShell>
  );
}
