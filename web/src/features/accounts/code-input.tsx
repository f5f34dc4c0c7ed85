import { t } from '@lingui/core/macro';
import {
  useEffect,
  useId,
  useRef,
  useState,
  type ClipboardEvent,
  type KeyboardEvent,
  type RefObject,
} from 'react';
import { cn } from '../../components/ui/cn';

/**
 * A code of `length` digits, one field per digit (a mailed sign-in code, an authenticator app's
 * code). Typing a digit moves to the next field, Backspace on an empty one to the one before, the
 * arrow keys between them. The whole code may arrive in any field at once: pasted, or filled in by
 * the phone's one-time-code suggestion (`autocomplete="one-time-code"` on the first field); it is
 * spread over the fields from the first. Once every field holds a digit, `onComplete` is called
 * (the form submits itself), once per whole code, after it shows.
 *
 * The fields are a group named by `label` (a fieldset and its legend); each field is "Digit 2 of
 * 8". Give the component a new `key` to empty it (after a refused code).
 *
 * `onText`: text that is not a code of digits (a recovery code typed or pasted into the fields);
 * without it such text is ignored.
 */
export function CodeInput({
  length,
  label,
  hint,
  invalid = false,
  readOnly = false,
  autoFocus = false,
  firstRef,
  onChange,
  onComplete,
  onText,
}: {
  length: number;
  label: string;
  hint?: string;
  invalid?: boolean;
  /** While the code is being checked (the fields keep their focus, unlike disabled ones). */
  readOnly?: boolean;
  /** Focus the first field when it appears (a new code after a refused one). */
  autoFocus?: boolean;
  /** The first field, for the form to focus. */
  firstRef?: RefObject<HTMLInputElement | null>;
  /** The digits so far, in order (holes left out). */
  onChange?: (code: string) => void;
  onComplete: (code: string) => void;
  onText?: (text: string) => void;
}) {
  const [cells, setCells] = useState<string[]>(() => Array.from({ length }, () => ''));
  const inputs = useRef<Array<HTMLInputElement | null>>([]);
  const hintId = useId();
  // Told once per whole code, after it shows (so the form that submits reads it in its state).
  const completed = useRef('');
  const done = useRef(onComplete);
  useEffect(() => {
    done.current = onComplete;
  });
  useEffect(() => {
    const code = cells.join('');
    if (code.length < length) completed.current = '';
    else if (code !== completed.current) {
      completed.current = code;
      done.current(code);
    }
  }, [cells, length]);

  function focusCell(index: number) {
    const input = inputs.current[Math.max(0, Math.min(length - 1, index))];
    input?.focus();
    input?.select();
  }

  function update(next: string[]) {
    setCells(next);
    onChange?.(next.join(''));
  }

  /** Puts `digits` into the fields from `start`; a whole code always starts at the first. */
  function spread(digits: string, start: number) {
    const from = digits.length >= length ? 0 : start;
    const next = [...cells];
    for (let i = 0; i < digits.length && from + i < length; i++) next[from + i] = digits[i]!;
    focusCell(from + digits.length);
    update(next);
  }

  /** What arrived in field `index` (a keystroke, a fill, an autofill): digits, or other text. */
  function take(text: string, index: number) {
    if (readOnly) return;
    const compact = text.replace(/[\s-]/g, '');
    if (compact === '') {
      const next = [...cells];
      next[index] = '';
      update(next);
      return;
    }
    if (/^\d+$/.test(compact)) {
      spread(compact, index);
      return;
    }
    onText?.(text.trim());
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>, index: number) {
    if (readOnly) return;
    if (event.key === 'Backspace' && cells[index] === '' && index > 0) {
      event.preventDefault();
      const next = [...cells];
      next[index - 1] = '';
      focusCell(index - 1);
      update(next);
    } else if (event.key === 'ArrowLeft' && index > 0) {
      event.preventDefault();
      focusCell(index - 1);
    } else if (event.key === 'ArrowRight' && index < length - 1) {
      event.preventDefault();
      focusCell(index + 1);
    }
  }

  function onPaste(event: ClipboardEvent<HTMLInputElement>, index: number) {
    event.preventDefault();
    take(event.clipboardData.getData('text'), index);
  }

  return (
    <fieldset aria-describedby={hint ? hintId : undefined} className="flex flex-col gap-1">
      <legend className="mb-1 text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </legend>
      <div className="flex gap-1.5 sm:gap-2">
        {cells.map((cell, index) => (
          <input
            key={index}
            ref={(el) => {
              inputs.current[index] = el;
              if (index === 0 && firstRef) firstRef.current = el;
            }}
            type="text"
            inputMode="numeric"
            autoComplete={index === 0 ? 'one-time-code' : 'off'}
            // The first field takes a whole code at once (a phone's suggestion, a fill).
            maxLength={index === 0 ? 64 : 2}
            aria-label={t`Digit ${index + 1} of ${length}`}
            aria-invalid={invalid || undefined}
            autoFocus={autoFocus && index === 0}
            readOnly={readOnly}
            value={cell}
            onFocus={(event) => event.target.select()}
            onChange={(event) => {
              const value = event.target.value;
              // A keystroke in a field that held a digit: the new one is what was added.
              const typed =
                cell !== '' && value.length === 2 && value.includes(cell)
                  ? value.replace(cell, '')
                  : value;
              take(typed, index);
            }}
            onKeyDown={(event) => onKeyDown(event, index)}
            onPaste={(event) => onPaste(event, index)}
            className={cn(
              'h-12 w-full min-w-0 rounded-md border border-slate-400 bg-white text-center font-mono text-xl text-slate-900',
              'focus-visible:border-blue-700 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-700',
              'dark:border-slate-500 dark:bg-slate-900 dark:text-slate-100 dark:focus-visible:border-blue-300 dark:focus-visible:outline-blue-300',
              invalid && 'border-red-700 dark:border-red-300',
            )}
          />
        ))}
      </div>
      {hint ? (
        <p id={hintId} className="text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
    </fieldset>
  );
}
