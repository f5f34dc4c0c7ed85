import { useRef, useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { Alert, LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { ScreenHeading, ScreenShell, textLink, usePageTitle } from '../../components/ui/screen';
import { useAuth } from '../../lib/auth';
import { useFormSubmit } from '../../lib/use-form-submit';
import { EmailField } from './email-field';
import { SecondStep } from './second-step';
import { checkLogin } from './validation';

// The client library loads on first use, keeping the first screen's download small: focusing the
// form starts loading it (and the API this screen uses).
function preloadApi() {
  import('./api').catch(() => undefined);
}

/** Where the sign-in stands: the password step (with what the second step sent back), or the code. */
type Step =
  | { kind: 'password'; unverifiedEmail?: string; error?: string }
  | { kind: 'code'; mfaId: string; email: string };

export function LoginScreen() {
  usePageTitle('Sign in');
  const [email, setEmail] = useState('');
  const [step, setStep] = useState<Step>({ kind: 'password' });
  if (step.kind === 'code') {
    return (
      <SecondStep
        mfaId={step.mfaId}
        onBack={(outcome) => setStep({ kind: 'password', ...outcome })}
        onUnverified={() => setStep({ kind: 'password', unverifiedEmail: step.email })}
      />
    );
  }
  return (
    <PasswordStep
      email={email}
      onEmailChange={setEmail}
      unverifiedEmail={step.unverifiedEmail}
      error={step.error}
      onSecondStep={(mfaId, signedInEmail) =>
        setStep({ kind: 'code', mfaId, email: signedInEmail })
      }
    />
  );
}

/** The first step: email and password (docs/product.md, Login). */
function PasswordStep(props: {
  email: string;
  onEmailChange: (email: string) => void;
  /** Set when the second step found the account unverified. */
  unverifiedEmail?: string;
  /** Set when the second step sent the member back (an expired second-step session). */
  error?: string;
  onSecondStep: (mfaId: string, email: string) => void;
}) {
  const auth = useAuth();
  const navigate = useNavigate();
  const { email } = props;
  const setEmail = props.onEmailChange;
  const [carried, setCarried] = useState({
    unverifiedEmail: props.unverifiedEmail ?? null,
    error: props.error ?? null,
  });
  const [password, setPassword] = useState('');
  const refs = {
    email: useRef<HTMLInputElement>(null),
    password: useRef<HTMLInputElement>(null),
  };
  const [resend, setResend] = useState<'idle' | 'sending' | 'sent' | 'failed'>('idle');
  const form = useFormSubmit({
    onStart: () => {
      setResend('idle');
      setCarried({ unverifiedEmail: null, error: null });
    },
    check: () => checkLogin({ email, password }),
    fields: refs,
    submit: async () => {
      const result = await auth.signIn(email, password);
      if (result === 'unverified') return { unverifiedEmail: email.trim() };
      if (result !== 'ok') {
        props.onSecondStep(result.mfaId, email.trim());
        return { unverifiedEmail: null };
      }
      await navigate({ to: '/home' });
      return { unverifiedEmail: null };
    },
    // Being told the password is wrong when it was the attempt limit would send people to
    // reset a password that works.
    failure: (err) =>
      (err as { status?: unknown } | null)?.status === 429
        ? 'Too many sign-in attempts. Please wait a minute and try again.'
        : 'Invalid email or password. Please try again.',
  });
  const unverifiedEmail = form.result?.unverifiedEmail ?? carried.unverifiedEmail;

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
        <form noValidate onSubmit={form.onSubmit} onFocus={preloadApi} aria-label="Sign in">
          <LiveMessage tone="error" alertClassName="mb-4">
            {form.error ?? carried.error}
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
            <EmailField
              ref={refs.email}
              value={email}
              invalid={form.invalid === 'email'}
              onChange={(e) => setEmail(e.target.value)}
            />
            <Field
              ref={refs.password}
              label="Password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              aria-invalid={form.invalid === 'password' || undefined}
              onChange={(e) => setPassword(e.target.value)}
            />
            <div className="flex justify-end">
              <Link to="/forgot-password" className={textLink}>
                Forgot password?
              </Link>
            </div>
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? 'Signing in...' : 'Sign In'}
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
