import type { ChangeEventHandler, RefObject } from 'react';
import { Field } from '../../components/ui/field';

/** The email field, as sign-in, sign-up and the password-reset request ask for it. */
export function EmailField({
  value,
  onChange,
  invalid,
  ref,
}: {
  value: string;
  onChange: ChangeEventHandler<HTMLInputElement>;
  invalid: boolean;
  ref: RefObject<HTMLInputElement | null>;
}) {
  return (
    <Field
      ref={ref}
      label="Email"
      name="email"
      type="email"
      autoComplete="email"
      required
      value={value}
      aria-invalid={invalid || undefined}
      onChange={onChange}
    />
  );
}
