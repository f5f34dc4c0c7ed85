import { useId, type InputHTMLAttributes, type Ref, type TextareaHTMLAttributes } from 'react';
import { cn } from './cn';

interface FieldCommon {
  label: string;
  hint?: string;
  /**
   * A message about this field, shown under it and announced (the region is always there, so a
   * screen reader hears it appear). Marks the input invalid while it is set.
   */
  error?: string | null;
}

/** A field of one line: an `input`. */
export type InputFieldProps = FieldCommon & {
  multiline?: false;
  ref?: Ref<HTMLInputElement>;
} & InputHTMLAttributes<HTMLInputElement>;

/** With `multiline`, a field of several lines (one address a line, say): a `textarea`. */
type FieldProps =
  | InputFieldProps
  | (FieldCommon & {
      multiline: true;
      ref?: Ref<HTMLTextAreaElement>;
    } & TextareaHTMLAttributes<HTMLTextAreaElement>);

export function Field({ label, hint, error, className, id, multiline, ...input }: FieldProps) {
  const generated = useId();
  const inputId = id ?? generated;
  const hintId = hint ? `${inputId}-hint` : undefined;
  const errorId = error === undefined ? undefined : `${inputId}-error`;
  const describedBy = [hintId, error ? errorId : undefined].filter(Boolean).join(' ') || undefined;
  // The props of the one kind or the other, as the caller's type checked them.
  const Control = (multiline ? 'textarea' : 'input') as 'input';
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={inputId} className="text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      <Control
        id={inputId}
        aria-describedby={describedBy}
        className={cn(
          'min-h-11 w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 placeholder:text-slate-500',
          'focus-visible:border-blue-700 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-700',
          'dark:border-slate-500 dark:bg-slate-900 dark:text-slate-100 dark:placeholder:text-slate-400 dark:focus-visible:border-blue-300 dark:focus-visible:outline-blue-300',
          className,
        )}
        {...(input as InputHTMLAttributes<HTMLInputElement>)}
        aria-invalid={error ? true : input['aria-invalid']}
      />
      {hint ? (
        <p id={hintId} className="text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
      {errorId ? (
        <p id={errorId} role="alert" className="text-sm text-red-800 dark:text-red-200">
          {error}
        </p>
      ) : null}
    </div>
  );
}
