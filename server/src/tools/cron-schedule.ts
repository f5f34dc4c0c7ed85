/**
 * PocketBase's cron expressions (its tools/cron), the one reader of every schedule here: the
 * settings' `backups.cron` is checked with it, and the job registry (core/cron.ts) times every
 * job with it. Five fields (minute, hour, day of the month, month, day of the week; Sunday is 0),
 * each `*`, a value, a range `1-5`, a step `*\/15` or `1-30/5`, or a comma list of those; or a
 * macro (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly). A time is due when
 * every field matches it (the day of the month and the day of the week both), in UTC. Errors
 * carry PocketBase's messages, which the settings show as they are.
 *
 * Jobs registered in code may also give a sixth field first, the seconds (`* * * * * *`: every
 * second), with `{seconds: true}`; PocketBase has none, and the settings never take one.
 */

export interface CronSchedule {
  /**
   * The first time strictly after `after` that the expression names, to the second; undefined when
   * none comes within eight years (`0 0 30 2 *` never does).
   */
  next(after: Date): Date | undefined;
}

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** How far `next` looks: past a leap day's four years, with room. */
const HORIZON_MS = 8 * 366 * 24 * 60 * 60_000;

/** Why an expression is not one (its message is PocketBase's). */
export class CronExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CronExpressionError';
  }
}

export function parseCron(expression: string, options: { seconds?: boolean } = {}): CronSchedule {
  const segments = (MACROS[expression] ?? expression).split(' ');
  const withSeconds = options.seconds === true && segments.length === 6;
  if (segments.length !== 5 && !withSeconds) {
    throw new CronExpressionError(
      options.seconds
        ? 'invalid cron expression - must be a valid macro or to have exactly 5 or 6 space separated segments'
        : 'invalid cron expression - must be a valid macro or to have exactly 5 space separated segments',
    );
  }
  const seconds = withSeconds ? parseSegment(segments.shift()!, 0, 59) : new Set([0]);
  const [minutes, hours, days, months, weekdays] = [
    parseSegment(segments[0]!, 0, 59),
    parseSegment(segments[1]!, 0, 23),
    parseSegment(segments[2]!, 1, 31),
    parseSegment(segments[3]!, 1, 12),
    parseSegment(segments[4]!, 0, 6),
  ];
  const dayMatches = (at: Date) => days.has(at.getUTCDate()) && weekdays.has(at.getUTCDay());
  return {
    next: (after) => {
      // From the next whole second, each field that does not match moves to the start of the next
      // unit of its own (a month, a day, an hour, a minute, a second), so few steps are taken.
      let t = new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000);
      const limit = after.getTime() + HORIZON_MS;
      while (t.getTime() <= limit) {
        const [y, mo, d, h, mi] = [
          t.getUTCFullYear(),
          t.getUTCMonth(),
          t.getUTCDate(),
          t.getUTCHours(),
          t.getUTCMinutes(),
        ];
        if (!months.has(mo + 1)) t = new Date(Date.UTC(y, mo + 1, 1));
        else if (!dayMatches(t)) t = new Date(Date.UTC(y, mo, d + 1));
        else if (!hours.has(h)) t = new Date(Date.UTC(y, mo, d, h + 1));
        else if (!minutes.has(mi)) t = new Date(Date.UTC(y, mo, d, h, mi + 1));
        else if (!seconds.has(t.getUTCSeconds())) t = new Date(t.getTime() + 1000);
        else return t;
      }
      return undefined;
    },
  };
}

/** Go's strconv.Atoi, as far as a cron field needs it: an optional sign and digits. */
function integer(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) {
    throw new CronExpressionError(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  }
  return Number(text);
}

function parseSegment(segment: string, min: number, max: number): Set<number> {
  const slots = new Set<number>();
  for (const part of segment.split(',')) {
    const stepParts = part.split('/');
    let step = 1;
    if (stepParts.length === 2) {
      step = integer(stepParts[1]!);
      if (step < 1 || step > max) {
        throw new CronExpressionError(
          `invalid segment step boundary - the step must be between 1 and the ${max}`,
        );
      }
    } else if (stepParts.length !== 1) {
      throw new CronExpressionError(
        'invalid segment step format - must be in the format */n or 1-30/n',
      );
    }
    let from = min;
    let to = max;
    if (stepParts[0] !== '*') {
      const range = stepParts[0]!.split('-');
      if (range.length === 1) {
        if (step !== 1) {
          throw new CronExpressionError(
            'invalid segment step - step > 1 could be used only with the wildcard or range format',
          );
        }
        from = integer(range[0]!);
        if (from < min || from > max) {
          throw new CronExpressionError(
            'invalid segment value - must be between the min and max of the segment',
          );
        }
        to = from;
      } else if (range.length === 2) {
        from = integer(range[0]!);
        if (from < min || from > max) {
          throw new CronExpressionError(
            `invalid segment range minimum - must be between ${min} and ${max}`,
          );
        }
        to = integer(range[1]!);
        if (to < from || to > max) {
          throw new CronExpressionError(
            `invalid segment range maximum - must be between ${from} and ${max}`,
          );
        }
      } else {
        throw new CronExpressionError(
          'invalid segment range format - the range must have 1 or 2 parts',
        );
      }
    }
    for (let i = from; i <= to; i += step) slots.add(i);
  }
  return slots;
}
