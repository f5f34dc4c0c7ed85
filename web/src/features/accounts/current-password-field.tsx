import { t } from '@lingui/core/macro';
import type { ChangeEventHandler, RefObject } from 'react';
import { PasswordField } from '../../components/ui/password-field';

/**
 * The password a member already has, as sign-in, Settings and the email-change link ask for it:
 * a password input the browser fills with the saved password, with Show / Hide.
 */
export function CurrentPasswordField({
  label = t`Password`,
  name = 'password',
  value,
  onChange,
  invalid,
  error,
  ref,
}: {
  label?: string;
  name?: 'password' | 'oldPassword';
  value: string;
  onChange: ChangeEventHandler<HTMLInputElement>;
  invalid: boolean;
  /** The server's word on it, shown under the field (see `Field`). */
  error?: string | null;
  ref: RefObject<HTMLInputElement | null>;
}) {
  return (
    <PasswordField
      ref={ref}
      label={label}
      name={name}
      autoComplete="current-password"
      required
      value={value}
      aria-invalid={invalid || undefined}
      error={error}
      onChange={onChange}
    />
  );
}
