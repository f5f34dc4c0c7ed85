import type { ReactNode } from 'react';
import { NOT_CONFIRMED_MESSAGE, notConfirmedText } from '../../lib/api-error';
import { cn } from './cn';

type Tone = 'error' | 'success' | 'info' | 'neutral';

const tones: Record<Tone, string> = {
  error:
    'border-red-300 bg-red-50 text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-100',
  success:
    'border-green-300 bg-green-50 text-green-800 dark:border-green-800 dark:bg-green-950 dark:text-green-100',
  info: 'border-blue-300 bg-blue-50 text-blue-900 dark:border-blue-800 dark:bg-blue-950 dark:text-blue-100',
  neutral:
    'border-slate-300 bg-slate-50 text-slate-800 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-200',
};

/**
 * A live region that is always in the DOM, so screen readers announce what is put in it.
 * Errors use role="alert" (assertive); other messages role="status" (polite).
 *
 * The screens show an action's failure here (`tone="error"`), and one of them is not an error: an
 * action the member chose not to confirm ("Confirm it's you") ends with the quiet
 * `NOT_CONFIRMED_MESSAGE` of `lib/api-error.ts` (what `messageOf` and `useFormSubmit` give for it).
 * An error region therefore has a polite one beside it, where that note goes in the neutral tone.
 */
export function LiveMessage({
  tone = 'error',
  children,
  alertClassName,
}: {
  tone?: Tone;
  children?: ReactNode;
  /** Spacing for the message box; the empty region itself takes no room, nor a gap. */
  alertClassName?: string;
}) {
  const error = tone === 'error';
  const note = error && (children === NOT_CONFIRMED_MESSAGE || children === notConfirmedText());
  const hasContent =
    !note && children !== null && children !== undefined && children !== false && children !== '';
  return (
    <>
      {/* Empty, it is taken out of the flow (not hidden: it must stay in the accessibility tree),
          so it adds no gap to the flex column it stands in. */}
      <div role={error ? 'alert' : 'status'} className={hasContent ? undefined : 'absolute'}>
        {hasContent ? (
          <Alert tone={tone} className={alertClassName}>
            {children}
          </Alert>
        ) : null}
      </div>
      {error ? (
        <LiveMessage tone="neutral" alertClassName={alertClassName}>
          {note ? notConfirmedText() : null}
        </LiveMessage>
      ) : null}
    </>
  );
}

export function Alert({
  tone = 'info',
  children,
  className,
}: {
  tone?: Tone;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div className={cn('rounded-md border px-4 py-3 text-sm break-words', tones[tone], className)}>
      {children}
    </div>
  );
}
