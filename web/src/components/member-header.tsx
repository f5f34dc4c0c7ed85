import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { i18n } from '@lingui/core';
import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useRouter } from '@tanstack/react-router';
import { useCurrentUser } from '../lib/auth';
import { meQueryOptions } from '../lib/me';
import { saveMemberLanguage } from '../lib/member-language';
import type { UserRecord } from '../lib/session';
import { chooseLanguage, currentLanguage, LANGUAGES, type Language } from '../lib/i18n';
import { readTheme, storeTheme, THEMES, type Theme } from '../lib/theme';
import { useLogOut } from '../lib/use-log-out';
import { Button, focusRing } from './ui/button';
import { cn } from './ui/cn';

// The member's face loads with the header's first showing.
const Avatar = lazy(() => import('./avatar').then((m) => ({ default: m.Avatar })));

type Place = { to: '/home' | '/profile' | '/settings' | '/whats-new' | '/admin'; label: string };

/** The member's places, in order (docs/product.md, The app shell); Admin is for operators. */
const PLACES = (): readonly Place[] => [
  { to: '/home', label: t`Home` },
  { to: '/profile', label: t`Profile` },
  { to: '/settings', label: t`Settings` },
  { to: '/whats-new', label: t`What's New` },
];
const ADMIN = (): Place => ({ to: '/admin', label: t`Admin` });

/**
 * Whether the Menu is open after a change of language: the change renders the screens anew
 * (app.tsx), so the new Menu opens where the old one was, with focus on the language chosen, as a
 * choice of theme leaves it. Until the Menu closes.
 */
let openAfterLanguage = false;

/**
 * The signed-in member's part of the header (docs/decisions/0032-app-shell-and-ways-forward.md):
 * the places as links in a navigation landmark named "Main" (from 768 px wide), and the Menu: who
 * is signed in, the theme and Log Out, plus the places on a narrow screen, where the links give way
 * to it. Escape, a click elsewhere, leaving it with Tab, or going to another screen closes it.
 */
export default function MemberHeader({ user, pathname }: { user: UserRecord; pathname: string }) {
  // A new name or photo shows at once (the session's record changes without a navigation).
  const member = useCurrentUser() ?? user;
  // Operators only: this hides the way in, the server refuses everyone else (GET /api/gatehouse/me).
  const me = useQuery(meQueryOptions(member.id));
  const places = me.data?.isOperator ? [...PLACES(), ADMIN()] : PLACES();

  return (
    <div className="flex items-center gap-2">
      <Places places={places} pathname={pathname} className="hidden md:block" />
      <MemberMenu member={member} places={places} pathname={pathname} />
    </div>
  );
}

function Places({
  places,
  pathname,
  className,
  stacked = false,
}: {
  places: readonly Place[];
  pathname: string;
  className?: string;
  stacked?: boolean;
}) {
  const router = useRouter();
  return (
    <nav aria-label={t`Main`} className={className}>
      <ul className={cn('flex', stacked ? 'flex-col' : 'items-center gap-1')}>
        {places.map((place) => {
          const current =
            pathname === place.to || (place.to === '/admin' && pathname.startsWith('/admin/'));
          return (
            <li key={place.to}>
              <Link
                to={place.to}
                aria-current={current ? 'page' : undefined}
                onMouseEnter={() => router.preloadRoute({ to: place.to }).catch(() => {})}
                className={cn(
                  'flex min-h-11 items-center rounded-md px-3 text-sm whitespace-nowrap',
                  focusRing,
                  current
                    ? 'bg-blue-50 font-semibold text-blue-900 dark:bg-blue-950 dark:text-blue-100'
                    : 'text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800',
                )}
              >
                {place.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function MemberMenu({
  member,
  places,
  pathname,
}: {
  member: UserRecord;
  places: readonly Place[];
  pathname: string;
}) {
  const [open, setOpen] = useState(openAfterLanguage);
  const [theme, setTheme] = useState<Theme>(readTheme);
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const logOut = useLogOut();

  // Another screen closes it (not the same screen shown anew in another language).
  const shownAt = useRef(pathname);
  useEffect(() => {
    if (shownAt.current === pathname) return;
    shownAt.current = pathname;
    setOpen(false);
  }, [pathname]);
  useEffect(() => {
    if (!open) openAfterLanguage = false;
  }, [open]);
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
        // Focus leaving for another control closes it; a click on something in it that takes no
        // focus (a theme choice's label) moves focus nowhere and keeps it open (a click
        // elsewhere closes it through the pointer listener).
        const next = event.relatedTarget as Node | null;
        if (next && !root.current?.contains(next)) setOpen(false);
      }}
    >
      <Button
        ref={button}
        variant="ghost"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((o) => !o)}
        className="px-2 md:px-2"
      >
        <Suspense fallback={<span className="size-7 shrink-0" />}>
          <Avatar member={member} size="sm" />
        </Suspense>
        <span className="md:sr-only">
          <Trans>Menu</Trans>
        </span>
      </Button>
      {open ? (
        <div
          id={panelId}
          className="absolute right-0 z-40 mt-2 w-72 max-w-[calc(100vw-2rem)] rounded-xl border border-slate-200 bg-white p-2 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <Places
            places={places}
            pathname={pathname}
            stacked
            className="mb-2 border-b border-slate-200 pb-2 md:hidden dark:border-slate-700"
          />
          <div className="px-3 pt-1 pb-1">
            <p className="text-xs text-slate-600 dark:text-slate-400">
              <Trans>Signed in as</Trans>
            </p>
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
            <Choices
              legend={t`Theme`}
              options={THEMES.map((option) => ({ ...option, label: i18n._(option.label) }))}
              value={theme}
              onChange={(value) => {
                storeTheme(value);
                setTheme(value);
              }}
            />
            <Choices
              legend={t`Language`}
              options={Object.entries(LANGUAGES).map(([value, label]) => ({
                value: value as Language,
                label,
                lang: value,
              }))}
              value={currentLanguage()}
              focusChosen={openAfterLanguage}
              onChange={(value) => {
                openAfterLanguage = true;
                void chooseLanguage(value);
                // The member's mail follows (their record's language), quietly.
                if (value !== member.language) void saveMemberLanguage(member.id, value);
              }}
            />
            <Button variant="secondary" className="mt-3 w-full" onClick={() => void logOut()}>
              <Trans>Log Out</Trans>
            </Button>
          </div>
        </div>
      ) : null}
    </div>
  );
}

/**
 * One of a few choices, side by side (the Menu's theme and language): radio buttons, so the arrow
 * keys move between them, each option in its own language when it names one (`lang`).
 */
function Choices<T extends string>({
  legend,
  options,
  value,
  onChange,
  focusChosen = false,
}: {
  legend: string;
  options: ReadonlyArray<{ value: T; label: string; lang?: string }>;
  value: T;
  onChange: (value: T) => void;
  /** Focus the chosen option once shown (after the screen's heading took focus as it appeared). */
  focusChosen?: boolean;
}) {
  const name = useId();
  const chosen = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!focusChosen) return;
    const timer = window.setTimeout(() => chosen.current?.focus(), 0);
    return () => window.clearTimeout(timer);
  }, [focusChosen]);
  return (
    <fieldset className="mt-3">
      <legend className="text-xs text-slate-600 dark:text-slate-400">{legend}</legend>
      <div
        className="mt-1 grid gap-1 rounded-lg bg-slate-100 p-1 dark:bg-slate-800"
        style={{ gridTemplateColumns: `repeat(${options.length}, minmax(0, 1fr))` }}
      >
        {options.map((option) => (
          <label
            key={option.value}
            lang={option.lang}
            className={cn(
              'flex min-h-11 cursor-pointer items-center justify-center rounded-md text-sm has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-blue-700 dark:has-[:focus-visible]:outline-blue-300',
              value === option.value
                ? 'bg-white font-semibold text-slate-900 shadow-sm dark:bg-slate-950 dark:text-slate-100'
                : 'text-slate-700 dark:text-slate-300',
            )}
          >
            <input
              ref={value === option.value ? chosen : undefined}
              type="radio"
              name={name}
              value={option.value}
              checked={value === option.value}
              onChange={() => onChange(option.value)}
              className="sr-only"
            />
            {option.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
