import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useCallback, useEffect, useRef, useState, type ChangeEvent } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { Alert, LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { ScreenHeader, ScreenShell, textLink, usePageTitle } from '../../components/ui/screen';
import { appName } from '../../lib/app-config';
import { useCarriedEmail } from '../../lib/history-state';
import { useCountdown } from '../../lib/use-countdown';
import { useFormSubmit } from '../../lib/use-form-submit';
import { ContinueWithProvidersSection } from '../providers/continue-with-providers-section';
import { checkInviteCode, signUp, signUpErrorMessage } from './api';
import { EmailField } from './email-field';
import { checkName } from './name-rule';
import { NewPasswordFields } from './new-password-fields';
import { RedirectCard } from './redirect-card';
import { checkSignUp } from './validation';

type FieldName = 'email' | 'inviteCode' | 'password' | 'passwordConfirm' | 'name';

export const SIGNUP_REDIRECT_SECONDS = 5;

export function SignUpScreen({ code }: { code?: string }) {
  usePageTitle(t`Sign up`);
  const navigate = useNavigate();
  const carriedEmail = useCarriedEmail();
  const [values, setValues] = useState({
    email: carriedEmail,
    inviteCode: code ?? '',
    password: '',
    passwordConfirm: '',
    name: '',
  });
  const refs = {
    email: useRef<HTMLInputElement>(null),
    inviteCode: useRef<HTMLInputElement>(null),
    password: useRef<HTMLInputElement>(null),
    passwordConfirm: useRef<HTMLInputElement>(null),
    name: useRef<HTMLInputElement>(null),
  };
  const codeCheck = useInviteCodeCheck(values.inviteCode, code);
  const form = useFormSubmit({
    // The spec's checks in its order, then the optional name's length.
    check: () => checkSignUp(values) ?? checkName(values.name),
    fields: refs,
    submit: () => signUp(values),
    failure: signUpErrorMessage,
  });

  // Sign-up with a provider: a verified email signs the member in; otherwise the same next step
  // as the form (the verification mail is on its way).
  const [providerJoined, setProviderJoined] = useState(false);
  const [inviteMissing, setInviteMissing] = useState(false);
  const done = form.done || providerJoined;
  const goToLogin = () => void navigate({ to: '/', state: { email: values.email.trim() } });
  const secondsLeft = useCountdown(SIGNUP_REDIRECT_SECONDS, done, goToLogin);

  const set = (field: FieldName) => (e: ChangeEvent<HTMLInputElement>) => {
    if (field === 'inviteCode') setInviteMissing(false);
    setValues((v) => ({ ...v, [field]: e.target.value }));
  };

  if (done) {
    return (
      <RedirectCard
        title={t`Account created successfully`}
        secondsLeft={secondsLeft}
        action={t`Back to Login`}
        onAction={goToLogin}
      >
        <Trans>
          Please check your inbox and spam folder for a verification email, then follow the link in
          it to verify your email address.
        </Trans>
      </RedirectCard>
    );
  }

  const name = appName();
  return (
    <ScreenShell>
      <ScreenHeader
        title={t`Create your account`}
        description={t`${name} is invite-only: you need an invite code to sign up.`}
      />
      {code ? <InviteLinkBanner code={code} status={codeCheck.linkStatus} /> : null}
      <Card>
        <form noValidate onSubmit={form.onSubmit} aria-label={t`Sign up`}>
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
              label={t`Invite Code`}
              name="inviteCode"
              type="text"
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              required
              value={values.inviteCode}
              aria-invalid={form.invalid === 'inviteCode' || inviteMissing || undefined}
              error={codeCheck.error}
              onChange={set('inviteCode')}
              onBlur={codeCheck.check}
              className="font-mono"
            />
            <NewPasswordFields
              label={t`Password`}
              password={values.password}
              passwordConfirm={values.passwordConfirm}
              onPasswordChange={set('password')}
              onPasswordConfirmChange={set('passwordConfirm')}
              invalid={form.invalid}
              refs={refs}
            />
            <Field
              ref={refs.name}
              label={t`Name`}
              name="name"
              type="text"
              autoComplete="name"
              hint={t`Optional. The person who invited you and the people you invite see it.`}
              value={values.name}
              aria-invalid={form.invalid === 'name' || undefined}
              onChange={set('name')}
            />
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? t`Creating account...` : t`Sign Up`}
            </Button>
          </div>
        </form>
        <ContinueWithProvidersSection
          inviteCode={values.inviteCode}
          onInviteCodeMissing={() => {
            setInviteMissing(true);
            refs.inviteCode.current?.focus();
          }}
          onResult={(result) => {
            if (result === 'ok') void navigate({ to: '/home' });
            else if (result === 'unverified') setProviderJoined(true);
            // An identity that already has an account with two-step sign-in: sign in there.
            else void navigate({ to: '/' });
          }}
        />
      </Card>
      <p className="text-center text-slate-700 dark:text-slate-300">
        <Trans>
          Already have an account?{' '}
          <Link to="/" state={{ email: values.email.trim() }} className={textLink}>
            Sign in
          </Link>
        </Trans>
      </p>
    </ScreenShell>
  );
}

/**
 * Looks at the typed invite code before the rest of the form is filled: when the field is left,
 * and at once for a code from the link. Only a code the server refused shows a message (under
 * the field); a failed look says nothing, and sign-up itself decides.
 */
function useInviteCodeCheck(typed: string, fromLink: string | undefined) {
  const [result, setResult] = useState<{ code: string; error: string | null } | null>(null);
  const [linkStatus, setLinkStatus] = useState<LinkStatus>('pending');
  const asked = useRef<string | null>(null);
  const run = useCallback(
    (code: string) => {
      if (!code || asked.current === code) return;
      asked.current = code;
      void checkInviteCode(code).then((answer) => {
        setResult({ code, error: answer.status === 'invalid' ? answer.message : null });
        if (code === fromLink?.trim()) setLinkStatus(answer.status);
      });
    },
    [fromLink],
  );
  useEffect(() => {
    if (fromLink) run(fromLink.trim());
  }, [fromLink, run]);
  // The message belongs to the code it was about: editing the field clears it.
  const error = result && result.code === typed.trim() ? result.error : null;
  return { check: () => run(typed.trim()), error, linkStatus };
}

type LinkStatus = 'pending' | 'ok' | 'initial' | 'unknown' | 'invalid';

/**
 * The banner above the form for a code from the link: the spec's welcome, unless the server said
 * the code no longer works (then no welcome that the field's error would contradict), or that it
 * is the printed code that makes the first member (then they are setting up the community).
 */
function InviteLinkBanner({ code, status }: { code: string; status: LinkStatus }) {
  // A block of its own in the line: the code moves to the next line whole rather than breaking
  // mid-code; only a code longer than the whole line breaks.
  const shown = (
    <span className="inline-block max-w-full font-mono font-semibold wrap-anywhere">{code}</span>
  );
  if (status === 'invalid') {
    return (
      <Alert tone="neutral">
        <p className="font-semibold">
          <Trans>This invite link no longer works.</Trans>
        </p>
        <p className="mt-1">
          <Trans>
            The code {shown} has been used or is not valid. Ask the person who invited you for a new
            link, or type another code below.
          </Trans>
        </p>
      </Alert>
    );
  }
  if (status === 'initial') {
    return (
      <Alert tone="info">
        <p className="font-semibold">
          <Trans>Welcome! You&apos;re setting up {appName()}.</Trans>
        </p>
        <p className="mt-1">
          <Trans>
            No one has joined yet: your account will be the first, and you will run the community.
            Your setup code {shown} has been filled in for you.
          </Trans>
        </p>
      </Alert>
    );
  }
  return (
    <Alert tone="info">
      <p className="font-semibold">
        <Trans>Welcome! You&apos;ve been invited.</Trans>
      </p>
      <p className="mt-1">
        <Trans>Your invite code {shown} has been filled in for you.</Trans>
      </p>
    </Alert>
  );
}
