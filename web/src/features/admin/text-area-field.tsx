import { useId, type Ref, type TextareaHTMLAttributes } from 'react';
import { cn } from '../../components/ui/cn';

interface TextAreaFieldProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
  label: string;
  hint?: string;
  /** As Field's: shown under it, announced, and marks it invalid while set. */
  error?: string | null;
  ref?: Ref<HTMLTextAreaElement>;
}

/**
 * The app's text field (components/ui/field.tsx) for several lines (one address a line, say): the
 * same label, hint and error under it.
 */
export function TextAreaField({ label, hint, error, className, id, ...area }: TextAreaFieldProps) {
  const generated = useId();
  const areaId = id ?? generated;
  const hintId = hint ? `${areaId}-hint` : undefined;
  const errorId = error === undefined ? undefined : `${areaId}-error`;
  const describedBy = [hintId, error ? errorId : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={areaId} className="text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      <textarea
        id={areaId}
        aria-describedby={describedBy}
        className={cn(
          'min-h-11 w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 placeholder:text-slate-500',
          'focus-visible:border-blue-700 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-700',
          'dark:border-slate-500 dark:bg-slate-900 dark:text-slate-100 dark:placeholder:text-slate-400 dark:focus-visible:border-blue-300 dark:focus-visible:outline-blue-300',
          className,
        )}
        {...area}
        aria-invalid={error ? true : area['aria-invalid']}
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
