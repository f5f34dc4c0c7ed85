import { selectOrdinal, t } from '@lingui/core/macro';
/**
 * A cron expression in words, for the schedules that read easily ("Every hour at :10", "Every day
 * at 03:00 UTC"); null for the others, which the Crons screen shows as they are. Expressions are
 * PocketBase's (five fields, or a macro; UTC); a job in code may give seconds first.
 */

const WEEKDAYS = () => [
  t`Sunday`,
  t`Monday`,
  t`Tuesday`,
  t`Wednesday`,
  t`Thursday`,
  t`Friday`,
  t`Saturday`,
];

const MACROS = (): Record<string, string> => ({
  '@yearly': t`Every year on January 1 at 00:00 UTC`,
  '@annually': t`Every year on January 1 at 00:00 UTC`,
  '@monthly': t`On the 1st of every month at 00:00 UTC`,
  '@weekly': t`Every Sunday at 00:00 UTC`,
  '@daily': t`Every day at 00:00 UTC`,
  '@midnight': t`Every day at 00:00 UTC`,
  '@hourly': t`Every hour`,
});

/** A whole number within min–max, else undefined. */
function value(text: string, min: number, max: number): number | undefined {
  if (!/^\d{1,2}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

/** `*\/n` → n (n above 1), else undefined. */
function step(text: string): number | undefined {
  const match = /^\*\/(\d{1,2})$/.exec(text);
  const n = match ? Number(match[1]) : undefined;
  return n !== undefined && n > 1 ? n : undefined;
}

const two = (n: number) => String(n).padStart(2, '0');

/** "1st", "22nd" (each language writes its own: "1.", "22." in German). */
const ordinal = (n: number) =>
  selectOrdinal(n, { one: '#st', two: '#nd', few: '#rd', other: '#th' });

export function cronInWords(expression: string): string | null {
  const macro = MACROS()[expression.trim()];
  if (macro) return macro;
  const fields = expression.trim().split(/\s+/);
  if (fields.length === 6) {
    const [second, ...rest] = fields as [string, ...string[]];
    if (rest.every((f) => f === '*')) {
      if (second === '*') return t`Every second`;
      const every = step(second);
      if (every) return t`Every ${every} seconds`;
      const at = value(second, 0, 59);
      return at === undefined ? null : t`Every minute at ${at} seconds past`;
    }
    return second === '0' ? cronInWords(rest.join(' ')) : null;
  }
  if (fields.length !== 5) return null;
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  if (month !== '*') return null;
  if (hour === '*' && day === '*' && weekday === '*') {
    if (minute === '*') return t`Every minute`;
    const every = step(minute);
    if (every) return t`Every ${every} minutes`;
    const at = value(minute, 0, 59);
    return at === undefined ? null : at === 0 ? t`Every hour` : t`Every hour at :${two(at)}`;
  }
  const at = value(minute, 0, 59);
  if (at === undefined) return null;
  if (day === '*' && weekday === '*') {
    const every = step(hour);
    if (every) return t`Every ${every} hours at :${two(at)}`;
  }
  const h = value(hour, 0, 23);
  if (h === undefined) return null;
  const time = t`${two(h)}:${two(at)} UTC`;
  if (day === '*' && weekday === '*') return t`Every day at ${time}`;
  if (day === '*') {
    const w = value(weekday, 0, 6);
    const weekdayName = w === undefined ? undefined : WEEKDAYS()[w];
    return weekdayName === undefined ? null : t`Every ${weekdayName} at ${time}`;
  }
  if (weekday === '*') {
    const d = value(day, 1, 31);
    return d === undefined ? null : t`On the ${ordinal(d)} of every month at ${time}`;
  }
  return null;
}
