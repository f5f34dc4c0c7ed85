import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { TitledCard } from '../../components/ui/card';
import type { UserRecord } from '../../lib/session';
import { useFormSubmit } from '../../lib/use-form-submit';
import { securityEventsKeys } from '../audit/api';
import { sessionsKeys } from '../sessions/api';
import { changePassword, changePasswordErrorMessage } from './api';
import { CurrentPasswordField } from './current-password-field';
import { NewPasswordFields } from './new-password-fields';
import { checkChangePassword } from './validation';

export const PASSWORD_CHANGED_MESSAGE = msg`Password changed. Your other devices have been signed out.`;

/** Settings → Password: the current password, a new one twice; other devices are signed out. */
export function PasswordCard({ user }: { user: UserRecord }) {
  const queryClient = useQueryClient();
  const [oldPassword, setOldPassword] = useState('');
  const [password, setPassword] = useState('');
  const [passwordConfirm, setPasswordConfirm] = useState('');
  const refs = {
    oldPassword: useRef<HTMLInputElement>(null),
    password: useRef<HTMLInputElement>(null),
    passwordConfirm: useRef<HTMLInputElement>(null),
  };
  const form = useFormSubmit({
    check: () => checkChangePassword({ oldPassword, password, passwordConfirm }),
    fields: refs,
    submit: async () => {
      await changePassword(user.id, { oldPassword, password, passwordConfirm });
      setOldPassword('');
      setPassword('');
      setPasswordConfirm('');
      void queryClient.invalidateQueries({ queryKey: sessionsKeys.of(user.id) });
      void queryClient.invalidateQueries({ queryKey: securityEventsKeys.of(user.id) });
    },
    failure: changePasswordErrorMessage,
  });

  return (
    <TitledCard title={t`Password`}>
      <form noValidate onSubmit={form.onSubmit} aria-label={t`Change your password`}>
        <LiveMessage tone="error" alertClassName="mb-4">
          {form.error}
        </LiveMessage>
        <LiveMessage tone="success" alertClassName="mb-4">
          {form.done ? i18n._(PASSWORD_CHANGED_MESSAGE) : null}
        </LiveMessage>
        <div className="flex flex-col gap-4">
          <CurrentPasswordField
            ref={refs.oldPassword}
            label={t`Current Password`}
            name="oldPassword"
            value={oldPassword}
            invalid={form.invalid === 'oldPassword'}
            onChange={(e) => setOldPassword(e.target.value)}
          />
          <NewPasswordFields
            label={t`New Password`}
            confirmLabel={t`Confirm New Password`}
            password={password}
            passwordConfirm={passwordConfirm}
            onPasswordChange={(e) => setPassword(e.target.value)}
            onPasswordConfirmChange={(e) => setPasswordConfirm(e.target.value)}
            invalid={form.invalid}
            refs={refs}
          />
          <div>
            <Button type="submit" className="w-full sm:w-auto sm:min-w-48" disabled={form.busy}>
              {form.busy ? t`Changing...` : t`Change Password`}
            </Button>
          </div>
        </div>
      </form>
    </TitledCard>
  );
}
