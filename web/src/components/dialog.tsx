import { useId, useLayoutEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { cn } from './ui/cn';

/**
 * A modal dialog: the browser's own `<dialog>` opened with `showModal()`, so the page behind it is
 * inert (focus stays inside, screen readers read only the dialog) and it sits above everything.
 * It is named by its title and described by `description`. Escape (or the system's back gesture)
 * calls `onCancel`; the owner unmounts it to close it, and focus goes back to where it was (once
 * that control can take it again: a button that started a request may be disabled for a moment).
 *
 * Children that want focus take it in their own `useEffect`: the dialog is open by then. Without
 * `showModal` (jsdom) it is opened with the `open` attribute.
 *
 * Not in `ui/`: that folder ships with the first screen (docs/decisions/0045), and no screen a
 * visitor sees opens a dialog; this one comes with the code that opens it.
 */
export function Dialog({
  title,
  description,
  onCancel,
  returnFocusTo,
  children,
  className,
}: {
  title: string;
  description?: ReactNode;
  onCancel: () => void;
  /** Where focus goes back when it closes; by default, what had focus when it opened. */
  returnFocusTo?: HTMLElement | null;
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();

  // A layout effect: it runs before the children's effects, which may move focus inside.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const focused = document.activeElement;
    const opener =
      returnFocusTo ??
      (focused instanceof HTMLElement && focused !== document.body ? focused : null);
    if (typeof dialog.showModal === 'function') {
      if (!dialog.open) dialog.showModal();
    } else {
      dialog.setAttribute('open', '');
    }
    return () => {
      if (typeof dialog.close === 'function' && dialog.open) dialog.close();
      if (opener) returnFocus(opener);
    };
    // Opened once, on mount; where focus returns is fixed then.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  function onKeyDown(event: KeyboardEvent<HTMLDialogElement>) {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    onCancel();
  }

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onKeyDown={onKeyDown}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
      className={cn(
        'm-auto max-h-[calc(100dvh-2rem)] w-[calc(100%-2rem)] max-w-md overflow-y-auto rounded-xl border border-slate-200 bg-white p-5 text-slate-900 shadow-xl sm:p-6',
        'backdrop:bg-slate-950/60 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100',
        className,
      )}
    >
      <div className="flex flex-col gap-4">
        <div className="flex flex-col gap-1">
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          {description ? (
            <p id={descriptionId} className="text-sm text-slate-700 dark:text-slate-300">
              {description}
            </p>
          ) : null}
        </div>
        {children}
      </div>
    </dialog>
  );
}

/**
 * Gives focus back to `opener`. A control that is disabled while its request runs cannot take it
 * yet: focus waits (up to 10 s) for it to be enabled, unless the member has moved on.
 */
function returnFocus(opener: HTMLElement) {
  const tryFocus = () => {
    if (!opener.isConnected) return true;
    const idle = document.activeElement === document.body || document.activeElement === null;
    if (!idle) return true;
    opener.focus({ preventScroll: true });
    return document.activeElement === opener;
  };
  // After the dialog has left the page, so nothing inside it keeps focus.
  setTimeout(() => {
    if (tryFocus()) return;
    const watch = new MutationObserver(() => {
      if (tryFocus()) stop();
    });
    const timer = setTimeout(() => stop(), 10_000);
    const stop = () => {
      watch.disconnect();
      clearTimeout(timer);
    };
    watch.observe(opener, { attributes: true, attributeFilter: ['disabled'] });
  }, 0);
}
