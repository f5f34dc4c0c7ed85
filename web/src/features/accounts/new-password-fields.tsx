import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import type { ChangeEventHandler, RefObject } from 'react';
import { PasswordField } from '../../components/ui/password-field';
import { MIN_PASSWORD_LENGTH } from './validation';

export const CONFIRM_MISMATCH_NOTE = msg`This does not match the password above.`;

/** The password and its confirmation, as sign-up, password reset and Settings ask for them. */
export function NewPasswordFields({
  label,
  confirmLabel = t`Confirm Password`,
  password,
  passwordConfirm,
  onPasswordChange,
  onPasswordConfirmChange,
  invalid,
  refs,
}: {
  label: string;
  confirmLabel?: string;
  password: string;
  passwordConfirm: string;
  onPasswordChange: ChangeEventHandler<HTMLInputElement>;
  onPasswordConfirmChange: ChangeEventHandler<HTMLInputElement>;
  invalid: string | null;
  refs: {
    password: RefObject<HTMLInputElement | null>;
    passwordConfirm: RefObject<HTMLInputElement | null>;
  };
}) {
  // Marked on the field as soon as the confirmation is as long as the password and differs, and
  // after a submit that found them different, whatever their lengths, until they match (the
  // form's own check still says "Passwords do not match" on submit).
  const mismatch =
    passwordConfirm !== password &&
    (invalid === 'passwordConfirm' ||
      (passwordConfirm !== '' && passwordConfirm.length >= password.length));
  return (
    <>
      <PasswordField
        ref={refs.password}
        label={label}
        name="password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        hint={t`At least 8 characters.`}
        value={password}
        aria-invalid={invalid === 'password' || undefined}
        onChange={onPasswordChange}
      />
      <PasswordField
        ref={refs.passwordConfirm}
        label={confirmLabel}
        name="passwordConfirm"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        value={passwordConfirm}
        aria-invalid={invalid === 'passwordConfirm' || undefined}
        error={mismatch ? i18n._(CONFIRM_MISMATCH_NOTE) : null}
        onChange={onPasswordConfirmChange}
      />
    </>
  );
}
