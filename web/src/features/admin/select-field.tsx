import { useId, type SelectHTMLAttributes } from 'react';
import { cn } from '../../components/ui/cn';

/** A labelled drop-down, styled as the app's text fields. */
export function SelectField({
  label,
  options,
  className,
  ...select
}: {
  label: string;
  options: ReadonlyArray<{ value: string; label: string }>;
} & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className={cn('flex flex-col gap-1', className)}>
      <label htmlFor={id} className="text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      <select
        id={id}
        className={cn(
          'min-h-11 w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900',
          'focus-visible:border-blue-700 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-700',
          'dark:border-slate-500 dark:bg-slate-900 dark:text-slate-100 dark:focus-visible:border-blue-300 dark:focus-visible:outline-blue-300',
        )}
        {...select}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
