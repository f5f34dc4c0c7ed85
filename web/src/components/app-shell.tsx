import { Trans } from '@lingui/react/macro';
import { lazy, Suspense, useRef, type ReactNode } from 'react';
import { Link, useRouterState } from '@tanstack/react-router';
import { appName } from '../lib/app-config';
import { useAuth } from '../lib/auth';
import { QueryScope } from './query-scope';
import { focusRing } from './ui/button';
import { cn } from './ui/cn';

// The signed-in member's places and Menu (and their face in it) load once someone is signed in: a
// visitor's first screen has neither, so their code stays out of the first download.
const MemberHeader = lazy(() => import('./member-header'));
// "Viewing as …" with Stop, while an operator views as a member: signed-in screens only.
const ViewingAsBar = lazy(() => import('./viewing-as-bar'));

/**
 * Every screen's frame: a skip link, while an operator views as a member the bar that says so,
 * the header with the APP_NAME wordmark and, for a signed-in member, the places (Home, Profile,
 * Settings, What's New, Admin for operators) and the Menu (who is signed in, the theme, Log Out),
 * then the screen in <main>
 * (docs/decisions/0032-app-shell-and-ways-forward.md).
 */
export function AppShell({ children }: { children: ReactNode }) {
  const auth = useAuth();
  // The session changes only with a navigation (sign-in, Log Out, deletion, a session ended
  // elsewhere), so the header reads it again whenever the location does; reading the stored
  // session keeps the client library out of a visitor's first download.
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  const user = auth.user();
  const mainRef = useRef<HTMLElement>(null);

  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#content"
        className={cn(
          'sr-only rounded-md bg-white px-4 py-2 font-semibold text-blue-800 shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 dark:bg-slate-900 dark:text-blue-200',
          focusRing,
        )}
        onClick={(event) => {
          event.preventDefault();
          mainRef.current?.focus();
        }}
      >
        <Trans>Skip to content</Trans>
      </a>
      {user ? (
        <Suspense fallback={null}>
          <QueryScope>
            <ViewingAsBar />
          </QueryScope>
        </Suspense>
      ) : null}
      <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
        <div className="mx-auto flex min-h-14 w-full max-w-2xl items-center justify-between gap-3 px-4">
          <Link
            to={user ? '/home' : '/'}
            className={cn(
              'flex min-h-11 items-center gap-2 rounded-md text-lg font-bold tracking-tight',
              focusRing,
            )}
          >
            <Mark />
            <span className="wrap-anywhere">{appName()}</span>
          </Link>
          {user ? (
            // The placeholder holds the Menu button's place while its code loads.
            <Suspense fallback={<span className="min-h-11 w-24" />}>
              <QueryScope>
                <MemberHeader user={user} pathname={pathname} />
              </QueryScope>
            </Suspense>
          ) : null}
        </div>
      </header>
      <main id="content" ref={mainRef} tabIndex={-1} className="flex-1 focus:outline-none">
        {children}
      </main>
    </div>
  );
}

function Mark() {
  return (
    <svg aria-hidden="true" viewBox="0 0 32 32" className="size-7 shrink-0">
      <rect width="32" height="32" rx="6" className="fill-blue-700 dark:fill-blue-500" />
      <path d="M9 27V13l7-6 7 6v14h-5v-8h-4v8z" fill="#fff" />
    </svg>
  );
}
