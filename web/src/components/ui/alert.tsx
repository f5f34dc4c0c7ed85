import type { ReactNode } from 'react';
import { cn } from './cn';

type Tone = 'error' | 'success' | 'info';

const tones: Record<Tone, string> = {
  error:
    'border-red-300 bg-red-50 text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-100',
  success:
    'border-green-300 bg-green-50 text-green-800 dark:border-green-800 dark:bg-green-950 dark:text-green-100',
  info: 'border-blue-300 bg-blue-50 text-blue-900 dark:border-blue-800 dark:bg-blue-950 dark:text-blue-100',
};

/**
 * A live region that is always in the DOM, so screen readers announce what is put in it.
 * Errors use role="alert" (assertive); other messages role="status" (polite).
 */
export function LiveMessage({
  tone = 'error',
  children,
  alertClassName,
}: {
  tone?: Tone;
  children?: ReactNode;
  /** Spacing for the message box; the empty region itself takes no space, nor a gap. */
  alertClassName?: string;
}) {
  const hasContent =
    children !== null && children !== undefined && children !== false && children !== '';
  return (
    // Empty, it is taken out of the flow (not hidden: it must stay in the accessibility tree), so
    // it adds no gap to the flex column it stands in.
    <div
      role={tone === 'error' ? 'alert' : 'status'}
      className={hasContent ? undefined : 'absolute'}
    >
      {hasContent ? (
        <Alert tone={tone} className={alertClassName}>
          {children}
        </Alert>
      ) : null}
    </div>
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
