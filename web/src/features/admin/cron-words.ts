/**
 * A cron expression in words, for the schedules that read easily ("Every hour at :10", "Every day
 * at 03:00 UTC"); null for the others, which the Crons screen shows as they are. Expressions are
 * PocketBase's (five fields, or a macro; UTC); a job in code may give seconds first.
 */

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const MACROS: Record<string, string> = {
  '@yearly': 'Every year on January 1 at 00:00 UTC',
  '@annually': 'Every year on January 1 at 00:00 UTC',
  '@monthly': 'On the 1st of every month at 00:00 UTC',
  '@weekly': 'Every Sunday at 00:00 UTC',
  '@daily': 'Every day at 00:00 UTC',
  '@midnight': 'Every day at 00:00 UTC',
  '@hourly': 'Every hour',
};

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

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th'}`;
}

export function cronInWords(expression: string): string | null {
  const macro = MACROS[expression.trim()];
  if (macro) return macro;
  const fields = expression.trim().split(/\s+/);
  if (fields.length === 6) {
    const [second, ...rest] = fields as [string, ...string[]];
    if (rest.every((f) => f === '*')) {
      if (second === '*') return 'Every second';
      const every = step(second);
      if (every) return `Every ${every} seconds`;
      const at = value(second, 0, 59);
      return at === undefined ? null : `Every minute at ${at} seconds past`;
    }
    return second === '0' ? cronInWords(rest.join(' ')) : null;
  }
  if (fields.length !== 5) return null;
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  if (month !== '*') return null;
  if (hour === '*' && day === '*' && weekday === '*') {
    if (minute === '*') return 'Every minute';
    const every = step(minute);
    if (every) return `Every ${every} minutes`;
    const at = value(minute, 0, 59);
    return at === undefined ? null : at === 0 ? 'Every hour' : `Every hour at :${two(at)}`;
  }
  const at = value(minute, 0, 59);
  if (at === undefined) return null;
  if (day === '*' && weekday === '*') {
    const every = step(hour);
    if (every) return `Every ${every} hours at :${two(at)}`;
  }
  const h = value(hour, 0, 23);
  if (h === undefined) return null;
  const time = `${two(h)}:${two(at)} UTC`;
  if (day === '*' && weekday === '*') return `Every day at ${time}`;
  if (day === '*') {
    const w = value(weekday, 0, 6);
    return w === undefined ? null : `Every ${WEEKDAYS[w]} at ${time}`;
  }
  if (weekday === '*') {
    const d = value(day, 1, 31);
    return d === undefined ? null : `On the ${ordinal(d)} of every month at ${time}`;
  }
  return null;
}
