import { useEffect, useState } from 'react';

/**
 * The server sends at most one verification (or reset) mail per account every 2 minutes and
 * answers 204 either way (docs/api.md). This browser remembers when it last asked for one, per
 * email and kind, for the visit (sessionStorage: a reload keeps it), so a button can wait out the
 * 2 minutes with a countdown instead of claiming a send that it knows would be throttled.
 */
export const RESEND_WAIT_SECONDS = 120;

type Kind = 'verification' | 'reset';

const KEY = 'gatehouse.mailRequested';

function read(): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(window.sessionStorage.getItem(KEY) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, number>) : {};
  } catch {
    return {};
  }
}

const keyOf = (kind: Kind, email: string) => `${kind}:${email.trim().toLowerCase()}`;

/** Records that a mail of `kind` was just asked for `email`. */
export function noteMailRequested(kind: Kind, email: string, at = Date.now()): void {
  const all = read();
  // Only the last 2 minutes matter: older entries are dropped as new ones come.
  for (const [key, when] of Object.entries(all)) {
    if (typeof when !== 'number' || at - when > RESEND_WAIT_SECONDS * 1000) delete all[key];
  }
  all[keyOf(kind, email)] = at;
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    // Storage blocked: the button simply does not wait.
  }
}

/** Whole seconds until another mail of `kind` could go out to `email` (0: now). */
export function secondsUntilNextMail(kind: Kind, email: string, now = Date.now()): number {
  if (!email.trim()) return 0;
  const when = read()[keyOf(kind, email)];
  if (typeof when !== 'number') return 0;
  const left = Math.ceil((when + RESEND_WAIT_SECONDS * 1000 - now) / 1000);
  return Math.min(RESEND_WAIT_SECONDS, Math.max(0, left));
}

/** The seconds left for `email`, ticking down; `requested()` starts a new wait. */
export function useMailWait(kind: Kind, email: string) {
  const [, setTick] = useState(0);
  const left = secondsUntilNextMail(kind, email);
  const waiting = left > 0;
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => setTick((n) => n + 1), 250);
    return () => clearInterval(timer);
  }, [waiting]);
  return {
    secondsLeft: left,
    requested: () => {
      noteMailRequested(kind, email);
      setTick((n) => n + 1);
    },
  };
}

/** 95 → "1:35". */
export function formatWait(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}
