import { useRef, useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { ScreenHeader, ScreenShell } from '../../components/ui/screen';
import { useAuth } from '../../lib/auth';
import { useFormSubmit } from '../../lib/use-form-submit';
import { checkAuthenticationCode, codeFailureMessage, secondStepFailure } from './validation';

export const SECOND_STEP_EXPIRED_MESSAGE =
  'Your sign-in took too long. Please enter your email and password again.';

/**
 * The login screen's second step, for a member with two-step sign-in on: a code from the
 * authenticator app or a recovery code (`auth.completeSecondStep`). Back returns to the first step.
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
  const refs = { code: useRef<HTMLInputElement>(null) };
  const form = useFormSubmit({
    check: () => checkAuthenticationCode(code),
    fields: refs,
    submit: async () => {
      let result: Awaited<ReturnType<typeof auth.completeSecondStep>>;
      try {
        result = await auth.completeSecondStep(mfaId, code);
      } catch (err) {
        if (secondStepFailure(err) === 'expired') {
          onBack({ error: SECOND_STEP_EXPIRED_MESSAGE });
          return;
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
        title="Two-Step Verification"
        description="Enter the 6-digit code from your authenticator app, or one of your recovery codes."
      />
      <Card>
        <form noValidate onSubmit={form.onSubmit} aria-label="Two-step verification">
          <LiveMessage tone="error" alertClassName="mb-4">
            {form.error}
          </LiveMessage>
          <div className="flex flex-col gap-4">
            <Field
              ref={refs.code}
              label="Authentication Code"
              name="code"
              type="text"
              autoComplete="one-time-code"
              autoCapitalize="none"
              autoCorrect="off"
              spellCheck={false}
              required
              hint="A 6-digit code or a recovery code."
              value={code}
              aria-invalid={form.invalid === 'code' || undefined}
              onChange={(e) => setCode(e.target.value)}
            />
            <Button type="submit" className="w-full" disabled={form.busy}>
              {form.busy ? 'Verifying...' : 'Verify'}
            </Button>
            <Button
              variant="secondary"
              className="w-full"
              disabled={form.busy}
              onClick={() => onBack({})}
            >
              Back
            </Button>
          </div>
        </form>
      </Card>
    </ScreenShell>
  );
}
