import { lazy, Suspense, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Link, useRouter, useRouterState } from '@tanstack/react-router';
import { appName } from '../lib/app-config';
import { useAuth, useCurrentUser } from '../lib/auth';
import type { UserRecord } from '../lib/session';
import { useLogOut } from '../lib/use-log-out';
import { Button, focusRing } from './ui/button';
import { cn } from './ui/cn';

// The member's face loads with the menu's first showing: a visitor's first screen has no menu.
const Avatar = lazy(() => import('./avatar').then((m) => ({ default: m.Avatar })));
// "Viewing as …" with Stop, while an operator views as a member: signed-in screens only.
const ViewingAsBar = lazy(() => import('./viewing-as-bar'));

/** The places the menu leads to, in order (docs/product.md, The app shell). */
const PLACES = [
  { to: '/home', label: 'Home' },
  { to: '/profile', label: 'Profile' },
  { to: '/settings', label: 'Settings' },
  { to: '/whats-new', label: "What's New" },
] as const;

/**
 * Every screen's frame: a skip link, while an operator views as a member the bar that says so,
 * the header with the APP_NAME wordmark and, for a signed-in member, the Menu (the places, who is
 * signed in, Log Out), then the screen in <main>
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
        Skip to content
      </a>
      {user ? (
        <Suspense fallback={null}>
          <ViewingAsBar />
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
          {user ? <AccountMenu user={user} pathname={pathname} /> : null}
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

/**
 * The signed-in member's menu: a disclosure (a button that shows and hides a list of links), so
 * each screen keeps one control per name and the spec's own buttons stay the only ones in view.
 * Escape, a click elsewhere, leaving it with Tab, or going to another screen closes it.
 */
function AccountMenu({ user, pathname }: { user: UserRecord; pathname: string }) {
  // A new name or photo shows at once (the session's record changes without a navigation).
  const member = useCurrentUser() ?? user;
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const router = useRouter();
  const logOut = useLogOut();

  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  return (
    <div
      ref={root}
      className="relative"
      onBlur={(event) => {
        if (!root.current?.contains(event.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <Button
        ref={button}
        variant="ghost"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((o) => !o)}
        className="px-3"
      >
        <Suspense fallback={<span className="size-7 shrink-0" />}>
          <Avatar member={member} size="sm" />
        </Suspense>
        Menu
      </Button>
      {open ? (
        <div
          id={panelId}
          className="absolute right-0 z-40 mt-2 w-64 max-w-[calc(100vw-2rem)] rounded-xl border border-slate-200 bg-white p-2 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <nav aria-label="Main">
            <ul className="flex flex-col">
              {PLACES.map((place) => {
                const current = pathname === place.to;
                return (
                  <li key={place.to}>
                    <Link
                      to={place.to}
                      aria-current={current ? 'page' : undefined}
                      onMouseEnter={() => router.preloadRoute({ to: place.to }).catch(() => {})}
                      className={cn(
                        'flex min-h-11 items-center rounded-md px-3 text-sm',
                        focusRing,
                        current
                          ? 'bg-blue-50 font-semibold text-blue-900 dark:bg-blue-950 dark:text-blue-100'
                          : 'text-slate-800 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800',
                      )}
                    >
                      {place.label}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </nav>
          <div className="mt-2 border-t border-slate-200 px-3 pt-3 pb-1 dark:border-slate-700">
            <p className="text-xs text-slate-600 dark:text-slate-400">Signed in as</p>
            <div className="mt-1 flex items-center gap-3">
              <Suspense fallback={<span className="size-10 shrink-0" />}>
                <Avatar member={member} size="md" />
              </Suspense>
              <div className="min-w-0">
                {member.name ? (
                  <p className="text-sm font-semibold wrap-anywhere">{member.name}</p>
                ) : null}
                <p className="text-sm font-medium wrap-anywhere">{member.email}</p>
              </div>
            </div>
            <Button variant="secondary" className="mt-3 w-full" onClick={() => void logOut()}>
              Log Out
            </Button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
