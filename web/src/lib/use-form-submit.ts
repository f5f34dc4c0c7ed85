import { useState, type FormEvent, type RefObject } from 'react';
import { useMutation } from '@tanstack/react-query';

/** What a form's own check found: the first field in error and the message to show. */
export interface FieldProblem<F extends string> {
  field: F;
  message: string;
}

/**
 * The one way a form submits: ignore a submit while one is under way, run the form's check (on a
 * problem: mark the field, show the message, move focus to it), then run `submit` as a mutation and
 * show `failure(err)` when it throws. `busy` stays on until `submit` settles, so a `submit` that
 * ends by navigating keeps its busy label until the next screen shows.
 */
export function useFormSubmit<F extends string, T>(options: {
  check: () => FieldProblem<F> | null;
  fields: Record<F, RefObject<HTMLInputElement | null>>;
  submit: () => Promise<T>;
  failure: (err: unknown) => string;
  /** Runs first on every submit that is not ignored (a screen clears its own notices here). */
  onStart?: () => void;
}) {
  const mutation = useMutation({ mutationFn: options.submit });
  const [problem, setProblem] = useState<FieldProblem<F> | null>(null);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (mutation.isPending) return;
    options.onStart?.();
    mutation.reset();
    const found = options.check();
    setProblem(found);
    if (found) {
      options.fields[found.field].current?.focus();
      return;
    }
    mutation.mutate();
  }

  return {
    onSubmit,
    busy: mutation.isPending,
    /** The check's message, else the failure's, else null. */
    error: problem?.message ?? (mutation.isError ? options.failure(mutation.error) : null),
    invalid: problem?.field ?? null,
    /** What `submit` returned, once it has. */
    result: mutation.isSuccess ? mutation.data : undefined,
    done: mutation.isSuccess,
  };
}
