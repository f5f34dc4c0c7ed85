import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useRef, useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { useFormSubmit } from '../../lib/use-form-submit';
import { disableTwoStep, newRecoveryCodes, twoStepPasswordErrorMessage } from './api';
import { CurrentPasswordField } from './current-password-field';
import { StepHeading, wideButton } from './two-step-parts';

/** Turn Off, or New Recovery Codes: the member's password first. */
export function TwoStepPasswordView({
  action,
  onDone,
  onCancel,
}: {
  action: 'disable' | 'renew';
  /** New recovery codes, or none after turning off. */
  onDone: (codes: string[] | null) => void;
  onCancel: () => void;
}) {
  const [password, setPassword] = useState('');
  const refs = { password: useRef<HTMLInputElement>(null) };
  const form = useFormSubmit({
    check: () =>
      password ? null : { field: 'password' as const, message: t`Please enter your password.` },
    fields: refs,
    submit: async () => {
      if (action === 'renew') {
        onDone(await newRecoveryCodes(password));
      } else {
        await disableTwoStep(password);
        onDone(null);
      }
    },
    failure: twoStepPasswordErrorMessage,
  });
  const renew = action === 'renew';

  return (
    <form
      noValidate
      onSubmit={form.onSubmit}
      aria-label={renew ? t`Get new recovery codes` : t`Turn off two-step sign-in`}
      className="flex flex-col gap-4"
    >
      <StepHeading>{renew ? t`New Recovery Codes` : t`Turn Off Two-Step Sign-In`}</StepHeading>
      <p className="text-sm">
        {renew
          ? t`Enter your password to get 10 new recovery codes. Your current ones will stop working.`
          : t`Enter your password to turn two-step sign-in off. Your recovery codes will stop working.`}
      </p>
      <LiveMessage tone="error">{form.error}</LiveMessage>
      <CurrentPasswordField
        ref={refs.password}
        value={password}
        invalid={form.invalid === 'password'}
        onChange={(e) => setPassword(e.target.value)}
      />
      <div className="flex flex-col gap-3 sm:flex-row">
        <Button
          type="submit"
          variant={renew ? 'primary' : 'danger'}
          className={wideButton}
          disabled={form.busy}
        >
          {renew
            ? form.busy
              ? t`Creating...`
              : t`New Recovery Codes`
            : form.busy
              ? t`Turning off...`
              : t`Turn Off`}
        </Button>
        <Button variant="secondary" className={wideButton} disabled={form.busy} onClick={onCancel}>
          <Trans>Cancel</Trans>
        </Button>
      </div>
    </form>
  );
}
