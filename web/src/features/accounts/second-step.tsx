import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useRef, useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { ScreenHeader, ScreenShell } from '../../components/ui/screen';
import { textLink } from '../../components/ui/screen';
import { useAuth } from '../../lib/auth';
import { useFormSubmit } from '../../lib/use-form-submit';
import { CodeInput } from './code-input';
import { checkAuthenticationCode, codeFailureMessage, secondStepFailure } from './validation';

export const SECOND_STEP_EXPIRED_MESSAGE = msg`Your sign-in took too long. Please enter your email and password again.`;

/** The authenticator app's codes: 6 digits (docs/api.md, totp/setup's otpauth URL). */
const APP_CODE_LENGTH = 6;
const CODE_HINT = msg`A 6-digit code or a recovery code.`;

/**
 * The login screen's second step, for a member with two-step sign-in on: a code from the
 * authenticator app or a recovery code (`auth.completeSecondStep`). The app's code goes in one
 * field per digit and submits itself once whole; a recovery code (letters and dashes) in one text
 * field, which "Use a recovery code" opens, as does typing or pasting one into the digits. Back
 * returns to the first step. Loaded with the step, not with the login screen.
 */
export function SecondStep({
  mfaId,
  next,
  onBack,
  onUnverified,
}: {
  mfaId: string;
  /** Where a sign-in ends (an app path). */
  next: string;
  /** Back to the first step, with a message when the second-step session is no longer valid. */
  onBack: (outcome: { error?: string }) => void;
  /** The code was right but the account is not verified: the first step shows its notice. */
  onUnverified: (email: string) => void;
}) {
  const auth = useAuth();
  const navigate = useNavigate();
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);
  // Empties the digits after a refused code (a new key, a new set of fields).
  const [attempt, setAttempt] = useState(0);
  const refs = { code: useRef<HTMLInputElement>(null) };
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormSubmit({
    check: () => checkAuthenticationCode(code),
    fields: refs,
    submit: async () => {
      let result: Awaited<ReturnType<typeof auth.completeSecondStep>>;
      try {
        result = await auth.completeSecondStep(mfaId, code);
      } catch (err) {
        if (secondStepFailure(err) === 'expired') {
          onBack({ error: i18n._(SECOND_STEP_EXPIRED_MESSAGE) });
          return;
        }
        if (!recovery) {
          setCode('');
          setAttempt((n) => n + 1);
        }
        throw err;
      }
      if (result !== 'ok') {
        onUnverified(result.email);
        return;
      }
      await navigate({ href: next });
    },
    failure: codeFailureMessage,
  });

  return (
    <ScreenShell>
      <ScreenHeader
        title={t`Two-Step Verification`}
        description={t`Enter the 6-digit code from your authenticator app, or one of your recovery codes.`}
      />
      <Card>
        <form
          ref={formRef}
          noValidate
          onSubmit={form.onSubmit}
          aria-label={t`Two-step verification`}
        >
          <LiveMessage tone="error" alertClassName="mb-4">
            {form.error}
          </LiveMessage>
          <div className="flex flex-col gap-4">
            {recovery ? (
              <Field
                ref={refs.code}
                label={t`Authentication Code`}
                name="code"
                type="text"
                autoComplete="one-time-code"
                autoCapitalize="none"
                autoCorrect="off"
                spellCheck={false}
                required
                autoFocus
                hint={i18n._(CODE_HINT)}
                value={code}
                aria-invalid={form.invalid === 'code' || undefined}
                onChange={(e) => setCode(e.target.value)}
              />
            ) : (
              <CodeInput
                key={attempt}
                length={APP_CODE_LENGTH}
                label={t`Authentication Code`}
                hint={i18n._(CODE_HINT)}
                firstRef={refs.code}
                autoFocus={attempt > 0}
                readOnly={form.busy}
                invalid={form.invalid === 'code'}
                onChange={setCode}
                onComplete={() => formRef.current?.requestSubmit()}
                onText={(text) => {
                  setCode(text);
                  setRecovery(true);
                }}
              />
            )}
            <button
              type="button"
              className={`${textLink} self-start text-sm`}
              onClick={() => {
                setCode('');
                setRecovery((r) => !r);
              }}
            >
              {recovery ? t`Use a 6-digit code` : t`Use a recovery code`}
            </button>
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? t`Verifying...` : t`Verify`}
            </Button>
            <Button
              variant="secondary"
              className="w-full"
              disabled={form.busy}
              onClick={() => onBack({})}
            >
              <Trans>Back</Trans>
            </Button>
          </div>
        </form>
      </Card>
    </ScreenShell>
  );
}
