import { t } from '@lingui/core/macro';
import { intlLocale } from './i18n';
/** "2026-08-14 07:16:55.123Z" (the server's UTC format) → a Date, or null when it is not one. */
export function serverDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const date = new Date(value.trim().replace(' ', 'T'));
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A server date and time in the member's own time zone: "Nov 23, 2026, 10:15 AM". */
export function formatDateTime(value: string | null | undefined): string {
  const date = serverDate(value);
  if (!date) return value || t`Unknown`;
  return date.toLocaleString(intlLocale(), { dateStyle: 'medium', timeStyle: 'short' });
}

const RELATIVE_UNITS: ReadonlyArray<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

/**
 * How long ago a server date was, in words: "just now", "5 minutes ago", "yesterday",
 * "3 weeks ago". Pair it with `formatDateTime` where the exact time matters (a `<time>`'s title).
 */
export function formatTimeAgo(value: string | null | undefined, now = Date.now()): string {
  const date = serverDate(value);
  if (!date) return value || t`Unknown`;
  const seconds = Math.max(0, Math.floor((now - date.getTime()) / 1000));
  const words = new Intl.RelativeTimeFormat(intlLocale(), { numeric: 'auto' });
  for (const [unit, size] of RELATIVE_UNITS) {
    if (seconds >= size) return words.format(-Math.floor(seconds / size), unit);
  }
  return t`just now`;
}
