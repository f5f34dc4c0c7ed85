import { i18n } from '@lingui/core';
import { lazy, Suspense, useRef, useState } from 'react';
import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { Link, useNavigate } from '@tanstack/react-router';
import { Alert, LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { ScreenHeader, ScreenShell, textLink, usePageTitle } from '../../components/ui/screen';
import { messageOf, statusOf } from '../../lib/api-error';
import { useAuth } from '../../lib/auth';
import { END_REASON_TEXT, NOTICE_TEXT, useCarriedEmail, useNotice } from '../../lib/history-state';
import { afterSignIn } from '../../lib/return-to';
import { useFormSubmit } from '../../lib/use-form-submit';
import { ContinueWithProvidersSection } from '../providers/continue-with-providers-section';
import { CurrentPasswordField } from './current-password-field';
import { EmailField } from './email-field';
import { PasskeySignInSection } from '../passkeys/passkey-sign-in-section';
import { formatWait, useMailWait } from './resend-wait';
import { checkLogin } from './validation';

// The client library loads on first use, keeping the first screen's download small: focusing the
// form starts loading it (and the API this screen uses).
function preloadApi() {
  import('./api').catch(() => undefined);
}

// The steps after the first load with them (few visitors need them): the second step of two-step
// sign-in, and the sign-in with a code sent by email (docs/decisions/0045, the first screen's size).
const loadSecondStep = () => import('./second-step');
const loadCodeSignIn = () => import('./code-sign-in');
const SecondStep = lazy(() => loadSecondStep().then((m) => ({ default: m.SecondStep })));
const CodeSignIn = lazy(loadCodeSignIn);
const preload = (load: () => Promise<unknown>) => () => void load().catch(() => undefined);

/**
 * Where the sign-in stands: the password step (with what a later step sent back), the second
 * step's code, or a sign-in with a code sent by email.
 */
type Step =
  | { kind: 'password'; unverifiedEmail?: string; error?: string }
  | { kind: 'code'; mfaId: string }
  | { kind: 'email-code' };

/**
 * `returnTo`: the screen a visitor was going to when a signed-in screen sent them here (the
 * `redirect` search param); a sign-in ends there when it is a path of this app, else on Home.
 */
export function LoginScreen({ returnTo }: { returnTo?: string }) {
  usePageTitle(t`Sign in`);
  const carriedEmail = useCarriedEmail();
  const [email, setEmail] = useState(carriedEmail);
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const next = afterSignIn(returnTo);
  const toSecondStep = (mfaId: string) => setStep({ kind: 'code', mfaId });
  const unverified = (unverifiedEmail: string) => setStep({ kind: 'password', unverifiedEmail });
  if (step.kind === 'code') {
    return (
      <Suspense fallback={null}>
        <SecondStep
          mfaId={step.mfaId}
          next={next}
          onBack={(outcome) => setStep({ kind: 'password', ...outcome })}
          onUnverified={unverified}
        />
      </Suspense>
    );
  }
  if (step.kind === 'email-code') {
    return (
      <Suspense fallback={null}>
        <CodeSignIn
          email={email}
          next={next}
          onBack={(typed) => {
            setEmail(typed);
            setStep({ kind: 'password' });
          }}
          onSecondStep={toSecondStep}
          onUnverified={unverified}
        />
      </Suspense>
    );
  }
  return (
    <PasswordStep
      email={email}
      next={next}
      onEmailChange={setEmail}
      unverifiedEmail={step.unverifiedEmail}
      error={step.error}
      onSecondStep={toSecondStep}
      onEmailCode={() => setStep({ kind: 'email-code' })}
    />
  );
}

/** The first step: email and password (docs/product.md, Login). */
function PasswordStep(props: {
  email: string;
  /** Where a sign-in ends (an app path). */
  next: string;
  onEmailChange: (email: string) => void;
  /** Set when the second step found the account unverified. */
  unverifiedEmail?: string;
  /** Set when the second step sent the member back (an expired second-step session). */
  error?: string;
  onSecondStep: (mfaId: string) => void;
  /** "Email me a sign-in code": the code sign-in, with the address typed here. */
  onEmailCode: () => void;
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
  // What brought the member here (a Log Out, a deletion), until they try to sign in.
  const notice = useNotice();
  // Or why the session ended elsewhere (the server's reason), when that brought them here.
  const [endReason] = useState(() => auth.endReason());
  const [showNotice, setShowNotice] = useState(true);
  const form = useFormSubmit({
    onStart: () => {
      setResend('idle');
      setShowNotice(false);
      setCarried({ unverifiedEmail: null, error: null });
    },
    check: () => checkLogin({ email, password }),
    fields: refs,
    submit: async () => {
      const result = await auth.signIn(email, password);
      if (result === 'unverified') return { unverifiedEmail: email.trim() };
      if (result !== 'ok') {
        props.onSecondStep(result.mfaId);
        return { unverifiedEmail: null };
      }
      await navigate({ href: props.next });
      return { unverifiedEmail: null };
    },
    // Being told the password is wrong when it was the attempt limit would send people to
    // reset a password that works.
    failure: (err) => {
      if (statusOf(err) === 429) {
        return t`Too many sign-in attempts. Please wait a minute and try again.`;
      }
      // The right password for a disabled account: the server says so (docs/api.md).
      const said = statusOf(err) === 403 ? messageOf(err) : undefined;
      return said ?? t`Invalid email or password. Please try again.`;
    },
  });
  const unverifiedEmail = form.result?.unverifiedEmail ?? carried.unverifiedEmail;
  // A mail this browser asked for in the last 2 minutes: the server would not send another yet.
  const wait = useMailWait('verification', unverifiedEmail ?? '');

  async function onResend() {
    if (!unverifiedEmail || wait.secondsLeft > 0) return;
    setResend('sending');
    try {
      const { requestVerification } = await import('./api');
      await requestVerification(unverifiedEmail);
      wait.requested();
      setResend('sent');
    } catch {
      setResend('failed');
    }
  }

  return (
    <ScreenShell>
      <ScreenHeader title={t`Welcome back`} description={t`Sign in to your account.`} />
      <Card>
        <form noValidate onSubmit={form.onSubmit} onFocus={preloadApi} aria-label={t`Sign in`}>
          <LiveMessage tone="success" alertClassName="mb-4">
            {notice && showNotice ? i18n._(NOTICE_TEXT[notice]) : null}
          </LiveMessage>
          <LiveMessage tone="info" alertClassName="mb-4">
            {!notice && endReason && showNotice ? i18n._(END_REASON_TEXT[endReason]) : null}
          </LiveMessage>
          <LiveMessage tone="error" alertClassName="mb-4">
            {form.error ?? carried.error}
          </LiveMessage>
          <div role="status">
            {unverifiedEmail ? (
              <Alert tone="info" className="mb-4">
                <h2 className="font-semibold">
                  <Trans>Email Not Verified</Trans>
                </h2>
                <p className="mt-1">
                  <Trans>
                    Please verify your email address before signing in. Check your inbox (and spam
                    folder) for the verification link we sent to{' '}
                    <span className="font-medium wrap-anywhere">{unverifiedEmail}</span>.
                  </Trans>
                </p>
                <Button
                  variant="secondary"
                  className="mt-3 min-w-56"
                  onClick={onResend}
                  disabled={resend === 'sending' || wait.secondsLeft > 0}
                >
                  {resend === 'sending'
                    ? t`Sending...`
                    : wait.secondsLeft > 0
                      ? t`Resend in ${formatWait(wait.secondsLeft)}`
                      : t`Resend Verification Email`}
                </Button>
                {wait.secondsLeft > 0 ? (
                  <p className="mt-2 text-sm">
                    <Trans>
                      A verification email was sent less than 2 minutes ago. You can ask for another
                      when the countdown ends.
                    </Trans>
                  </p>
                ) : null}
              </Alert>
            ) : null}
          </div>
          <div role="status">
            {resend === 'sent' ? (
              <Alert tone="success" className="mb-4">
                <Trans>Verification email sent! Check your inbox.</Trans>
              </Alert>
            ) : null}
          </div>
          <div role="alert">
            {resend === 'failed' ? (
              <Alert tone="error" className="mb-4">
                <Trans>Failed to resend verification email. Please try again.</Trans>
              </Alert>
            ) : null}
          </div>
          <div className="flex flex-col gap-4">
            <EmailField
              ref={refs.email}
              passkeys
              value={email}
              invalid={form.invalid === 'email'}
              onChange={(e) => setEmail(e.target.value)}
            />
            <CurrentPasswordField
              ref={refs.password}
              value={password}
              invalid={form.invalid === 'password'}
              onChange={(e) => setPassword(e.target.value)}
            />
            <div className="flex justify-end">
              <Link to="/forgot-password" state={{ email: email.trim() }} className={textLink}>
                <Trans>Forgot password?</Trans>
              </Link>
            </div>
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? t`Signing in...` : t`Sign In`}
            </Button>
            <Button
              variant="secondary"
              className="w-full"
              disabled={form.busy}
              onPointerEnter={preload(loadCodeSignIn)}
              onFocus={preload(loadCodeSignIn)}
              onClick={props.onEmailCode}
            >
              <Trans>Email me a sign-in code</Trans>
            </Button>
          </div>
        </form>
        <ContinueWithProvidersSection
          onResult={(result) => {
            if (result === 'ok') void navigate({ href: props.next });
            else if (result === 'unverified') {
              setCarried({
                unverifiedEmail: null,
                error: t`Please verify your email address before signing in. Check your inbox (and spam folder) for the verification link.`,
              });
            } else props.onSecondStep(result.mfaId);
          }}
        />
      </Card>
      <PasskeySignInSection
        next={props.next}
        paused={form.busy}
        onUnverified={(unverified) => {
          setResend('idle');
          setCarried({ unverifiedEmail: unverified, error: null });
        }}
        onSecondStep={props.onSecondStep}
      />
      <p className="text-center text-slate-700 dark:text-slate-300">
        <Trans>
          Don&apos;t have an account?{' '}
          <Link to="/signup" state={{ email: email.trim() }} className={textLink}>
            Sign up
          </Link>
        </Trans>
      </p>
    </ScreenShell>
  );
}
