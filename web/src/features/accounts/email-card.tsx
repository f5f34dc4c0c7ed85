import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useRef, useState } from 'react';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import type { UserRecord } from '../../lib/session';
import { useFormSubmit } from '../../lib/use-form-submit';
import { emailChangeErrorMessage, requestEmailChange } from './api';
import { checkNewEmail } from './validation';

/** Settings → Email: the current address; a link to confirm a new one goes to the new one. */
export function EmailCard({ user }: { user: UserRecord }) {
  const [newEmail, setNewEmail] = useState('');
  const refs = { newEmail: useRef<HTMLInputElement>(null) };
  const form = useFormSubmit({
    check: () => checkNewEmail(newEmail, user.email),
    fields: refs,
    submit: async () => {
      const sentTo = newEmail.trim();
      await requestEmailChange(sentTo);
      setNewEmail('');
      return sentTo;
    },
    failure: emailChangeErrorMessage,
  });

  return (
    <TitledCard title={t`Email`}>
      <p>
        <span className="text-sm font-medium text-slate-600 dark:text-slate-400">
          <Trans>Current email: </Trans>
        </span>
        <span className="wrap-anywhere">{user.email}</span>
      </p>
      <form noValidate onSubmit={form.onSubmit} aria-label={t`Change your email`}>
        <LiveMessage tone="error" alertClassName="mb-4">
          {form.error}
        </LiveMessage>
        <LiveMessage tone="success" alertClassName="mb-4">
          {form.result ? t`Check ${form.result} for a confirmation link.` : null}
        </LiveMessage>
        <div className="flex flex-col gap-4">
          <Field
            ref={refs.newEmail}
            label={t`New Email`}
            name="newEmail"
            type="email"
            autoComplete="email"
            required
            hint={t`We send a link to the new address; your email changes when you open it.`}
            value={newEmail}
            aria-invalid={form.invalid === 'newEmail' || undefined}
            onChange={(e) => setNewEmail(e.target.value)}
          />
          <div>
            <Button type="submit" className="w-full sm:w-auto sm:min-w-56" disabled={form.busy}>
              {form.busy ? t`Sending...` : t`Send Confirmation Link`}
            </Button>
          </div>
        </div>
      </form>
    </TitledCard>
  );
}
