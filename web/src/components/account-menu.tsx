import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import { Link, useRouter } from '@tanstack/react-router';
import { useCurrentUser } from '../lib/auth';
import type { UserRecord } from '../lib/session';
import { useLogOut } from '../lib/use-log-out';
import { Button, focusRing } from './ui/button';
import { cn } from './ui/cn';

// The member's face loads with the menu's first showing.
const Avatar = lazy(() => import('./avatar').then((m) => ({ default: m.Avatar })));

/** The places the menu leads to, in order (docs/product.md, The app shell). */
const PLACES = [
  { to: '/home', label: 'Home' },
  { to: '/profile', label: 'Profile' },
  { to: '/settings', label: 'Settings' },
  { to: '/whats-new', label: "What's New" },
] as const;

/**
 * The signed-in member's menu: a disclosure (a button that shows and hides a list of links), so
 * each screen keeps one control per name and the spec's own buttons stay the only ones in view.
 * Escape, a click elsewhere, leaving it with Tab, or going to another screen closes it.
 */
export default function AccountMenu({ user, pathname }: { user: UserRecord; pathname: string }) {
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
