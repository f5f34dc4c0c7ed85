import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useRef, useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { Field } from '../../components/ui/field';
import { fieldCodeOf, statusOf } from '../../lib/api-error';
import { serverText } from '../../lib/messages';
import { useFormSubmit } from '../../lib/use-form-submit';
import { enableTwoStep } from './api';
import { StepHeading, wideButton } from './two-step-parts';
import { checkAuthenticationCode, codeFailureMessage } from './validation';

/** The seed in groups of four, easier to type. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/** Setting up: the new seed as a QR code and as a key, then a code from the app turns it on. */
export function TwoStepSetupView({
  secret,
  qrSvg,
  onEnabled,
  onCancel,
}: {
  secret: string;
  qrSvg: string;
  onEnabled: (codes: string[]) => void;
  onCancel: () => void;
}) {
  const [code, setCode] = useState('');
  const refs = { code: useRef<HTMLInputElement>(null) };
  const form = useFormSubmit({
    check: () => checkAuthenticationCode(code),
    fields: refs,
    submit: async () => onEnabled(await enableTwoStep(code)),
    // A wrong code or the lock in the login screen's words; "Set up the authenticator app first."
    // and the like as the server says them.
    failure: (err) =>
      fieldCodeOf(err, 'code') || statusOf(err) === 429
        ? codeFailureMessage(err)
        : (serverText(err) ?? codeFailureMessage(err)),
  });

  return (
    <form
      noValidate
      onSubmit={form.onSubmit}
      aria-label={t`Set up the authenticator app`}
      className="flex flex-col gap-4"
    >
      <StepHeading>
        <Trans>Set Up Authenticator App</Trans>
      </StepHeading>
      <p className="text-sm">
        <Trans>
          Scan this QR code with your authenticator app, then enter the 6-digit code it shows.
        </Trans>
      </p>
      <img
        src={`data:image/svg+xml;utf8,${encodeURIComponent(qrSvg)}`}
        alt={t`QR code to add your account to an authenticator app`}
        width={192}
        height={192}
        className="size-48 rounded-md border border-slate-300 bg-white p-2 dark:border-slate-600"
      />
      <div className="flex flex-col gap-1">
        <p className="text-sm">
          <Trans>Can&apos;t scan it? Type this key into the app instead:</Trans>
        </p>
        <code
          aria-label={t`Setup key`}
          className="rounded-md bg-slate-100 px-3 py-2 font-mono text-base wrap-anywhere dark:bg-slate-800"
        >
          {grouped(secret)}
        </code>
      </div>
      <LiveMessage tone="error">{form.error}</LiveMessage>
      <Field
        ref={refs.code}
        label={t`Authentication Code`}
        name="code"
        type="text"
        inputMode="numeric"
        autoComplete="one-time-code"
        spellCheck={false}
        required
        value={code}
        aria-invalid={form.invalid === 'code' || undefined}
        onChange={(e) => setCode(e.target.value)}
      />
      <div className="flex flex-col gap-3 sm:flex-row">
        <Button type="submit" className={wideButton} disabled={form.busy}>
          {form.busy ? t`Turning on...` : t`Turn On`}
        </Button>
        <Button variant="secondary" className={wideButton} disabled={form.busy} onClick={onCancel}>
          <Trans>Cancel</Trans>
        </Button>
      </div>
    </form>
  );
}
