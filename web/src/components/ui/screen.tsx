import { useEffect, useRef, type ReactNode } from 'react';
import { pageTitle } from '../../lib/app-config';
import { cn } from './cn';

/** Sets the page title of a screen: `<Screen> · <APP_NAME>`. */
export function usePageTitle(screen: string): void {
  useEffect(() => {
    document.title = pageTitle(screen);
  }, [screen]);
}

/**
 * The h1 of a screen (or of a new state of it). It takes focus when it appears, so keyboard and
 * screen-reader users land on the new content. Give it a `key` to refocus when the state changes.
 */
export function ScreenHeading({
  children,
  className,
}: {
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLHeadingElement>(null);
  // A passive effect, not a layout one: React runs layout effects again when a suspended part of
  // the page shows again (a lazy card arriving), which would take focus from where the member is.
  useEffect(() => {
    ref.current?.focus({ preventScroll: false });
  }, []);
  return (
    <h1
      ref={ref}
      tabIndex={-1}
      className={cn('text-2xl font-bold tracking-tight focus:outline-none sm:text-3xl', className)}
    >
      {children}
    </h1>
  );
}

/**
 * The top of every screen, always above its cards: the h1 (which takes focus) and an optional
 * line under it. Give it a `key` to refocus when the screen's state changes.
 */
export function ScreenHeader({
  title,
  description,
}: {
  title: ReactNode;
  description?: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-2">
      <ScreenHeading>{title}</ScreenHeading>
      {description ? <p className="text-slate-700 dark:text-slate-300">{description}</p> : null}
    </div>
  );
}

/**
 * A centred column for a screen, in one of three widths: `narrow` for the forms and one-step
 * screens (sign-in, sign-up, links from mail, errors), `wide` for the signed-in member's pages,
 * `full` for a screen built around a table (the console's Members).
 */
export function ScreenShell({
  children,
  width = 'narrow',
}: {
  children: ReactNode;
  width?: 'narrow' | 'wide' | 'full';
}) {
  return (
    <div
      className={cn(
        'mx-auto flex w-full flex-col gap-6 px-4 py-8 sm:py-12',
        { narrow: 'max-w-md', wide: 'max-w-2xl', full: 'max-w-7xl' }[width],
      )}
    >
      {children}
    </div>
  );
}

export const textLink =
  'font-medium text-blue-700 underline underline-offset-2 hover:text-blue-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-700 rounded-sm dark:text-blue-300 dark:hover:text-blue-200 dark:focus-visible:outline-blue-300';
