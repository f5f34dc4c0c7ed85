import { useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { Alert, LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { ScreenHeading, ScreenShell, textLink, usePageTitle } from '../../components/ui/screen';
import { appName } from '../../lib/app-config';
import { useCountdown } from '../../lib/use-countdown';
import { signUp, signUpErrorMessage } from './api';
import { NewPasswordFields } from './new-password-fields';
import { RedirectCard } from './redirect-card';
import { checkSignUp } from './validation';

type FieldName = 'email' | 'inviteCode' | 'password' | 'passwordConfirm';

export const SIGNUP_REDIRECT_SECONDS = 5;

export function SignUpScreen({ code }: { code?: string }) {
  usePageTitle('Sign up');
  const navigate = useNavigate();
  const [values, setValues] = useState({
    email: '',
    inviteCode: code ?? '',
    password: '',
    passwordConfirm: '',
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<FieldName | null>(null);
  const [created, setCreated] = useState(false);
  const refs = {
    email: useRef<HTMLInputElement>(null),
    inviteCode: useRef<HTMLInputElement>(null),
    password: useRef<HTMLInputElement>(null),
    passwordConfirm: useRef<HTMLInputElement>(null),
  };

  const goToLogin = () => void navigate({ to: '/' });
  const secondsLeft = useCountdown(SIGNUP_REDIRECT_SECONDS, created, goToLogin);

  const set = (field: FieldName) => (e: ChangeEvent<HTMLInputElement>) =>
    setValues((v) => ({ ...v, [field]: e.target.value }));

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const problem = checkSignUp(values);
    if (problem) {
      setInvalid(problem.field);
      setError(problem.message);
      refs[problem.field].current?.focus();
      return;
    }
    setInvalid(null);
    setError(null);
    setBusy(true);
    try {
      await signUp(values);
      setCreated(true);
    } catch (err) {
      setError(signUpErrorMessage(err));
      setBusy(false);
    }
  }

  if (created) {
    return (
      <RedirectCard
        title="Account created successfully"
        secondsLeft={secondsLeft}
        action="Back to Login"
        onAction={goToLogin}
      >
        Please check your inbox and spam folder for a verification email, then follow the link in it
        to verify your email address.
      </RedirectCard>
    );
  }

  return (
    <ScreenShell>
      <div className="flex flex-col gap-2">
        <ScreenHeading>Create your account</ScreenHeading>
        <p className="text-slate-700 dark:text-slate-300">
          {appName()} is invite-only: you need an invite code to sign up.
        </p>
      </div>
      {code ? (
        <Alert tone="info">
          <p className="font-semibold">Welcome! You&apos;ve been invited.</p>
          <p className="mt-1">
            Your invite code <span className="font-mono font-semibold wrap-anywhere">{code}</span>{' '}
            has been filled in for you.
          </p>
        </Alert>
      ) : null}
      <Card>
        <form noValidate onSubmit={onSubmit} aria-label="Sign up">
          <LiveMessage tone="error" alertClassName="mb-4">
            {error}
          </LiveMessage>
          <div className="flex flex-col gap-4">
            <Field
              ref={refs.email}
              label="Email"
              name="email"
              type="email"
              autoComplete="email"
              required
              value={values.email}
              aria-invalid={invalid === 'email' || undefined}
              onChange={set('email')}
            />
            <Field
              ref={refs.inviteCode}
              label="Invite Code"
              name="inviteCode"
              type="text"
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              required
              value={values.inviteCode}
              aria-invalid={invalid === 'inviteCode' || undefined}
              onChange={set('inviteCode')}
              className="font-mono"
            />
            <NewPasswordFields
              label="Password"
              password={values.password}
              passwordConfirm={values.passwordConfirm}
              onPasswordChange={set('password')}
              onPasswordConfirmChange={set('passwordConfirm')}
              invalid={invalid}
              refs={refs}
            />
            <Button type="submit" className="w-full" disabled={busy}>
              {busy ? 'Creating account...' : 'Sign Up'}
            </Button>
          </div>
        </form>
      </Card>
      <p className="text-center text-slate-700 dark:text-slate-300">
        Already have an account?{' '}
        <Link to="/" className={textLink}>
          Sign in
        </Link>
      </p>
    </ScreenShell>
  );
}
