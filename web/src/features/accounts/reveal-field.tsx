import { useState, type ComponentProps } from 'react';
import { Field } from '../../components/ui/field';

/**
 * A password `Field` with Show / Hide over the right end of its input. Kept out of `Field` (and of
 * the login screen's first download, which is at its budget). The button stays out of the Tab
 * order, so the form's keyboard order is the spec's; Alt+F8 in the field toggles it too, as in
 * Edge's own reveal button.
 */
export function RevealField({ className, ...field }: Omit<ComponentProps<typeof Field>, 'type'>) {
  const [shown, setShown] = useState(false);
  return (
    <div className="relative">
      <Field
        {...field}
        type={shown ? 'text' : 'password'}
        aria-keyshortcuts="Alt+F8"
        onKeyDown={(e) => {
          if (e.altKey && e.key === 'F8') setShown(!shown);
        }}
        className={`pr-16 ${className ?? ''}`}
      />
      {/* The label's line (1.25rem) and the gap (0.25rem) above the input. */}
      <button
        type="button"
        tabIndex={-1}
        onClick={() => setShown(!shown)}
        className="absolute top-6 right-0 h-11 px-3 text-sm font-medium text-blue-800 hover:underline dark:text-blue-300"
      >
        {shown ? 'Hide' : 'Show'}
      </button>
    </div>
  );
}
