import { t } from '@lingui/core/macro';
import { useId, useLayoutEffect, useRef, useState } from 'react';
import { Field, type InputFieldProps } from './field';

/**
 * Every password input of the app: a `Field` with **Show** / **Hide** over the right end of its
 * input (the button's name says what it will do). The button stays out of the Tab order, so a
 * form's keyboard order is the spec's; Alt+F8 in the field toggles it too, as Edge's own reveal
 * button does. A click leaves focus and the caret (or selection) where they were, and never submits
 * the form. No button on a read-only or disabled field: there is nothing the member typed to see.
 */
export function PasswordField({
  className,
  ref,
  id,
  onKeyDown,
  ...field
}: Omit<InputFieldProps, 'type' | 'multiline'>) {
  const [shown, setShown] = useState(false);
  const generated = useId();
  const inputId = id ?? generated;
  const input = useRef<HTMLInputElement | null>(null);
  // Where the caret was when the type changed: a browser may move it to the start.
  const caret = useRef<[number | null, number | null] | null>(null);
  const toggle = () => {
    const el = input.current;
    caret.current =
      el && el === document.activeElement ? [el.selectionStart, el.selectionEnd] : null;
    setShown(!shown);
  };
  useLayoutEffect(() => {
    if (caret.current) input.current?.setSelectionRange(...caret.current);
    caret.current = null;
  }, [shown]);
  const locked = field.readOnly || field.disabled;
  return (
    <div className="relative">
      <Field
        {...field}
        id={inputId}
        ref={(el) => {
          input.current = el;
          if (typeof ref === 'function') return ref(el);
          if (ref) ref.current = el;
        }}
        type={shown ? 'text' : 'password'}
        aria-keyshortcuts={locked ? undefined : 'Alt+F8'}
        onKeyDown={(e) => {
          onKeyDown?.(e);
          if (!locked && e.altKey && e.key === 'F8') {
            e.preventDefault();
            toggle();
          }
        }}
        className={`pr-16 ${className ?? ''}`}
      />
      {locked ? null : (
        // The label's line (1.25rem) and the gap (0.25rem) above the input.
        <button
          type="button"
          tabIndex={-1}
          aria-controls={inputId}
          onMouseDown={(e) => e.preventDefault()}
          onClick={toggle}
          className="absolute top-6 right-0 h-11 min-w-11 rounded-md px-3 text-sm font-medium text-blue-800 hover:underline dark:text-blue-300"
        >
          {shown ? t`Hide` : t`Show`}
        </button>
      )}
    </div>
  );
}
