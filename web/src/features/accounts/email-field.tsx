import { t } from '@lingui/core/macro';
import type { ChangeEventHandler, RefObject } from 'react';
import { Field } from '../../components/ui/field';

/** The email field, as sign-in, sign-up and the password-reset request ask for it. */
export function EmailField({
  value,
  onChange,
  invalid,
  passkeys = false,
  ref,
}: {
  value: string;
  onChange: ChangeEventHandler<HTMLInputElement>;
  invalid: boolean;
  /**
   * The sign-in form's field: the browser may also offer the member's passkeys for this site in
   * its autofill list (`autocomplete="username webauthn"`, WebAuthn's conditional mediation).
   */
  passkeys?: boolean;
  ref: RefObject<HTMLInputElement | null>;
}) {
  return (
    <Field
      ref={ref}
      label={t`Email`}
      name="email"
      type="email"
      autoComplete={passkeys ? 'username webauthn' : 'email'}
      required
      value={value}
      aria-invalid={invalid || undefined}
      onChange={onChange}
    />
  );
}
