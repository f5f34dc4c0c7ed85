import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { ScreenHeader, ScreenShell, textLink } from '../../components/ui/screen';
import { fieldErrorsOf, messageOf, statusOf } from '../../lib/api-error';
import { useAuth } from '../../lib/auth';
import { useCountdown } from '../../lib/use-countdown';
import { useFormSubmit } from '../../lib/use-form-submit';
import { CodeInput } from './code-input';
import { EmailField } from './email-field';
import { formatWait } from './resend-wait';
import { checkEmail } from './validation';

/**
 * The server's sign-in codes (server/src/accounts/sign-in-code.ts, PocketBase's OTP defaults):
 * 8 digits, good for 3 minutes (auth-methods' `otp.duration`, 180 s).
 */
export const SIGN_IN_CODE_LENGTH = 8;
const SIGN_IN_CODE_MINUTES = 3;
/** How long "Send a new code" waits after a code was sent. */
export const NEW_CODE_WAIT_SECONDS = 30;

export const WRONG_CODE_MESSAGE = msg`That code isn't right or has expired.`;
/** PocketBase's words once a code's 5 tries are spent (429). */
const ATTEMPTS_SPENT = 'Too many attempts, please try again later with a new OTP.';

/** A refused code, in the product's words. */
export function codeSignInFailure(err: unknown): string {
  const status = statusOf(err);
  if (status === 400) return i18n._(WRONG_CODE_MESSAGE);
  if (status === 429) {
    return messageOf(err) === ATTEMPTS_SPENT
      ? t`Too many tries with this code. Send a new code and try again.`
      : t`Too many sign-in attempts. Please wait a minute and try again.`;
  }
  // A disabled account: the server says so (docs/api.md).
  if (status === 403) return messageOf(err) ?? t`This account has been disabled.`;
  return t`We couldn't sign you in. Please try again.`;
}

/** A refused request for a code, in the product's words. */
export function sendCodeFailure(err: unknown): string {
  const status = statusOf(err);
  if (status === 429)
    return t`Too many codes were asked for. Please wait a few minutes and try again.`;
  if (status === 400 && fieldErrorsOf(err).email) return t`Please enter a valid email address.`;
  return t`We couldn't send a code. Please try again.`;
}

/**
 * Sign-in with a code sent by email, beside the password form (docs/product.md, Login): the
 * address (filled in from the login form; with a valid one there, the code is sent at once), then
 * the code, one field per digit, which signs in by itself once whole. What the server answers
 * decides what follows, as for a password: the next screen, the second step (two-step sign-in
 * on), or the Email Not Verified notice. Loaded when the member asks for a code, not with the
 * login screen.
 */
export default function CodeSignIn(props: {
  email: string;
  /** Where a sign-in ends (an app path). */
  next: string;
  /** Back to the password form, with the address typed here. */
  onBack: (email: string) => void;
  onSecondStep: (mfaId: string) => void;
  onUnverified: (email: string) => void;
}) {
  const auth = useAuth();
  const [email, setEmail] = useState(props.email);
  const [sent, setSent] = useState<{ otpId: string; email: string } | null>(null);
  const refs = { email: useRef<HTMLInputElement>(null) };
  const send = useFormSubmit({
    check: () => checkEmail(email),
    fields: refs,
    submit: async () => {
      const address = email.trim();
      setSent({ otpId: await auth.requestSignInCode(address), email: address });
    },
    failure: sendCodeFailure,
  });
  // The login form's address is a valid one: send at once (once, whatever renders twice).
  const formRef = useRef<HTMLFormElement>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current || checkEmail(props.email)) return;
    started.current = true;
    formRef.current?.requestSubmit();
  }, [props.email]);

  if (sent) {
    return (
      <EnterCode
        {...props}
        sent={sent}
        onNewCode={(otpId) => setSent({ ...sent, otpId })}
        onOtherEmail={() => setSent(null)}
      />
    );
  }
  return (
    <ScreenShell>
      <ScreenHeader
        title={t`Sign in with a code`}
        description={t`We'll email you a code that signs you in, no password needed.`}
      />
      <Card>
        <form
          ref={formRef}
          noValidate
          onSubmit={send.onSubmit}
          aria-label={t`Email me a sign-in code`}
        >
          <LiveMessage tone="error" alertClassName="mb-4">
            {send.error}
          </LiveMessage>
          <div className="flex flex-col gap-4">
            <EmailField
              ref={refs.email}
              value={email}
              invalid={send.invalid === 'email'}
              onChange={(e) => setEmail(e.target.value)}
            />
            <Button type="submit" className="w-full" disabled={send.busy}>
              {send.busy ? t`Sending...` : t`Email Me a Code`}
            </Button>
            <Button
              variant="secondary"
              className="w-full"
              disabled={send.busy}
              onClick={() => props.onBack(email.trim())}
            >
              <Trans>Back</Trans>
            </Button>
          </div>
        </form>
      </Card>
    </ScreenShell>
  );
}

/** The code screen: the digits, Sign In, and a new code after a wait. */
function EnterCode(props: {
  sent: { otpId: string; email: string };
  next: string;
  onBack: (email: string) => void;
  onSecondStep: (mfaId: string) => void;
  onUnverified: (email: string) => void;
  onNewCode: (otpId: string) => void;
  onOtherEmail: () => void;
}) {
  const { sent } = props;
  const auth = useAuth();
  const navigate = useNavigate();
  const [code, setCode] = useState('');
  // A new set of empty fields after a refused code, or for a new code.
  const [attempt, setAttempt] = useState(0);
  const refs = { code: useRef<HTMLInputElement>(null) };
  const formRef = useRef<HTMLFormElement>(null);
  const [waiting, setWaiting] = useState(true);
  const secondsLeft = useCountdown(NEW_CODE_WAIT_SECONDS, waiting, () => setWaiting(false));
  const [resend, setResend] = useState<'idle' | 'sending' | 'sent' | { failed: string }>('idle');

  const form = useFormSubmit({
    onStart: () => setResend('idle'),
    check: () =>
      code.length < SIGN_IN_CODE_LENGTH
        ? {
            field: 'code' as const,
            message: t`Please enter the ${SIGN_IN_CODE_LENGTH}-digit code from the email.`,
          }
        : null,
    fields: refs,
    submit: async () => {
      let result: Awaited<ReturnType<typeof auth.signInWithCode>>;
      try {
        result = await auth.signInWithCode(sent.otpId, code);
      } catch (err) {
        setCode('');
        setAttempt((n) => n + 1);
        throw err;
      }
      if (result === 'unverified') props.onUnverified(sent.email);
      else if (result !== 'ok') props.onSecondStep(result.mfaId);
      else await navigate({ href: props.next });
    },
    failure: codeSignInFailure,
  });

  async function onNewCode() {
    if (waiting || resend === 'sending') return;
    setResend('sending');
    try {
      const otpId = await auth.requestSignInCode(sent.email);
      props.onNewCode(otpId);
      setCode('');
      setAttempt((n) => n + 1);
      setResend('sent');
      setWaiting(true);
    } catch (err) {
      setResend({ failed: sendCodeFailure(err) });
    }
  }

  return (
    <ScreenShell>
      <ScreenHeader
        title={t`Check your email`}
        description={
          <>
            <Trans>
              If <span className="font-medium wrap-anywhere">{sent.email}</span> has an account, we
              sent it an {SIGN_IN_CODE_LENGTH}-digit sign-in code. It works once, for{' '}
              {SIGN_IN_CODE_MINUTES} minutes.
            </Trans>
          </>
        }
      />
      <Card>
        <form ref={formRef} noValidate onSubmit={form.onSubmit} aria-label={t`Sign in with a code`}>
          <LiveMessage tone="error" alertClassName="mb-4">
            {form.error ?? (typeof resend === 'object' ? resend.failed : null)}
          </LiveMessage>
          <LiveMessage tone="success" alertClassName="mb-4">
            {resend === 'sent' ? t`A new code is on its way. Enter the newest one.` : null}
          </LiveMessage>
          <div className="flex flex-col gap-4">
            <CodeInput
              key={attempt}
              length={SIGN_IN_CODE_LENGTH}
              label={t`Sign-in code`}
              hint={t`Paste it, or type it in: it signs you in once it is whole.`}
              firstRef={refs.code}
              autoFocus={attempt > 0}
              readOnly={form.busy}
              invalid={form.invalid === 'code'}
              onChange={setCode}
              onComplete={() => formRef.current?.requestSubmit()}
            />
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? t`Signing in...` : t`Sign In`}
            </Button>
            <Button
              variant="secondary"
              className="w-full"
              disabled={waiting || resend === 'sending' || form.busy}
              onClick={() => void onNewCode()}
            >
              {resend === 'sending'
                ? t`Sending...`
                : waiting
                  ? t`Send a new code in ${formatWait(secondsLeft)}`
                  : t`Send a new code`}
            </Button>
            <Button
              variant="secondary"
              className="w-full"
              disabled={form.busy}
              onClick={() => props.onBack(sent.email)}
            >
              <Trans>Back</Trans>
            </Button>
            <button
              type="button"
              className={`${textLink} self-center text-sm`}
              disabled={form.busy}
              onClick={props.onOtherEmail}
            >
              <Trans>Use a different email</Trans>
            </button>
          </div>
        </form>
      </Card>
    </ScreenShell>
  );
}
