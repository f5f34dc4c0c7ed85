import type { ChangeEventHandler, RefObject } from 'react';
import { Field } from '../../components/ui/field';
import { MIN_PASSWORD_LENGTH } from './validation';

/** The password and its confirmation, as sign-up, password reset and Settings ask for them. */
export function NewPasswordFields({
  label,
  confirmLabel = 'Confirm Password',
  password,
  passwordConfirm,
  onPasswordChange,
  onPasswordConfirmChange,
  invalid,
  refs,
}: {
  label: 'Password' | 'New Password';
  confirmLabel?: 'Confirm Password' | 'Confirm New Password';
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
  return (
    <>
      <Field
        ref={refs.password}
        label={label}
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        hint="At least 8 characters."
        value={password}
        aria-invalid={invalid === 'password' || undefined}
        onChange={onPasswordChange}
      />
      <Field
        ref={refs.passwordConfirm}
        label={confirmLabel}
        name="passwordConfirm"
        type="password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        value={passwordConfirm}
        aria-invalid={invalid === 'passwordConfirm' || undefined}
        onChange={onPasswordConfirmChange}
      />
    </>
  );
}
