import { useRef, useState, type ChangeEvent } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { Alert, LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { ScreenHeading, ScreenShell, textLink, usePageTitle } from '../../components/ui/screen';
import { appName } from '../../lib/app-config';
import { useCountdown } from '../../lib/use-countdown';
import { useFormSubmit } from '../../lib/use-form-submit';
import { signUp, signUpErrorMessage } from './api';
import { EmailField } from './email-field';
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
  const refs = {
    email: useRef<HTMLInputElement>(null),
    inviteCode: useRef<HTMLInputElement>(null),
    password: useRef<HTMLInputElement>(null),
    passwordConfirm: useRef<HTMLInputElement>(null),
  };
  const form = useFormSubmit({
    check: () => checkSignUp(values),
    fields: refs,
    submit: () => signUp(values),
    failure: signUpErrorMessage,
  });

  const goToLogin = () => void navigate({ to: '/' });
  const secondsLeft = useCountdown(SIGNUP_REDIRECT_SECONDS, form.done, goToLogin);

  const set = (field: FieldName) => (e: ChangeEvent<HTMLInputElement>) =>
    setValues((v) => ({ ...v, [field]: e.target.value }));

  if (form.done) {
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
        <form noValidate onSubmit={form.onSubmit} aria-label="Sign up">
          <LiveMessage tone="error" alertClassName="mb-4">
            {form.error}
          </LiveMessage>
          <div className="flex flex-col gap-4">
            <EmailField
              ref={refs.email}
              value={values.email}
              invalid={form.invalid === 'email'}
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
              aria-invalid={form.invalid === 'inviteCode' || undefined}
              onChange={set('inviteCode')}
              className="font-mono"
            />
            <NewPasswordFields
              label="Password"
              password={values.password}
              passwordConfirm={values.passwordConfirm}
              onPasswordChange={set('password')}
              onPasswordConfirmChange={set('passwordConfirm')}
              invalid={form.invalid}
              refs={refs}
            />
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? 'Creating account...' : 'Sign Up'}
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
