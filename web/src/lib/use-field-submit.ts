import { useState, type FormEvent, type RefObject } from 'react';
import { fieldText } from './messages';

/**
 * A form of one field that the server may refuse about that field (a backup's name or file, a
 * test email's address): ignore a submit while one is under way, run the form's own check, send,
 * and then show the server's refusal of the field in words under it (lib/messages.ts) (moving focus there) or any other refusal
 * as `failure` above the form. `useFormSubmit` is the same flow for forms that show every refusal
 * in one place; this one keeps the two apart, as the console's cards do.
 */
export function useFieldSubmit(options: {
  /** The field as the server names it in its errors (`data.{field}`). */
  field: string;
  input: RefObject<HTMLInputElement | null>;
  /** The form's own check before anything is sent: the message for the field, or null. */
  check?: () => string | null;
  submit: () => Promise<void>;
  /** Any refusal that is not about the field, in words. */
  failure: (err: unknown) => string;
  /** Runs first on every submit that is not ignored (a card clears its own notice here). */
  onStart?: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    options.onStart?.();
    setFailure(null);
    const local = options.check?.() ?? null;
    setProblem(local);
    if (local) {
      options.input.current?.focus();
      return;
    }
    setBusy(true);
    try {
      await options.submit();
    } catch (err) {
      const said = fieldText(err, options.field);
      if (said) {
        setProblem(said);
        options.input.current?.focus();
      } else setFailure(options.failure(err));
    } finally {
      setBusy(false);
    }
  }

  return { onSubmit, busy, problem, failure };
}
