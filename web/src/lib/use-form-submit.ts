import { useState, type FormEvent, type RefObject } from 'react';
import { isNotConfirmed, notConfirmedText } from './api-error';

/** What a form's own check found: the first field in error and the message to show. */
export interface FieldProblem<F extends string> {
  field: F;
  message: string;
}

type Submission<T> =
  | { status: 'idle' }
  | { status: 'busy' }
  | { status: 'done'; result: T }
  | { status: 'failed'; error: unknown };

/**
 * The one way a form submits: ignore a submit while one is under way, run the form's check (on a
 * problem: mark the field, show the message, move focus to it), then run `submit` and show
 * `failure(err)` when it throws. `busy` stays on until `submit` settles, so a `submit` that ends by
 * navigating keeps its busy label until the next screen shows.
 *
 * An action the member chose not to confirm ("Confirm it's you") did not fail: its text is always
 * the quiet `NOT_CONFIRMED_MESSAGE`, whatever the form's `failure` would make of a 403, and
 * `LiveMessage` shows that one as a status, not an error.
 *
 * Plain state rather than a TanStack Query mutation: the login screen is the first screen a visitor
 * downloads, and the mutation machinery would add ~3 KB gzip to it.
 */
export function useFormSubmit<F extends string, T>(options: {
  check: () => FieldProblem<F> | null;
  fields: Record<F, RefObject<HTMLInputElement | null>>;
  submit: () => Promise<T>;
  failure: (err: unknown) => string;
  /** Runs first on every submit that is not ignored (a screen clears its own notices here). */
  onStart?: () => void;
}) {
  const [submission, setSubmission] = useState<Submission<T>>({ status: 'idle' });
  const [problem, setProblem] = useState<FieldProblem<F> | null>(null);
  const busy = submission.status === 'busy';

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    options.onStart?.();
    const found = options.check();
    setProblem(found);
    if (found) {
      setSubmission({ status: 'idle' });
      options.fields[found.field].current?.focus();
      return;
    }
    setSubmission({ status: 'busy' });
    try {
      setSubmission({ status: 'done', result: await options.submit() });
    } catch (error) {
      setSubmission({ status: 'failed', error });
    }
  }

  return {
    onSubmit,
    busy,
    /** The check's message, else the failure's (or the note of an unconfirmed action), else null. */
    error:
      problem?.message ??
      (submission.status === 'failed' ? failureText(submission.error, options.failure) : null),
    invalid: problem?.field ?? null,
    /** What `submit` returned, once it has. */
    result: submission.status === 'done' ? submission.result : undefined,
    done: submission.status === 'done',
  };
}

function failureText(err: unknown, failure: (err: unknown) => string): string {
  return isNotConfirmed(err) ? notConfirmedText() : failure(err);
}
