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

/** A centred column for a screen. */
export function ScreenShell({
  children,
  width = 'narrow',
}: {
  children: ReactNode;
  width?: 'narrow' | 'wide';
}) {
  return (
    <div
      className={cn(
        'mx-auto flex w-full flex-col gap-6 px-4 py-8 sm:py-12',
        width === 'narrow' ? 'max-w-md' : 'max-w-2xl',
      )}
    >
      {children}
    </div>
  );
}

export const textLink =
  'font-medium text-blue-700 underline underline-offset-2 hover:text-blue-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-700 rounded-sm dark:text-blue-300 dark:hover:text-blue-200 dark:focus-visible:outline-blue-300';
