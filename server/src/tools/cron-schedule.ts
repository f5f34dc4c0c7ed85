/**
 * PocketBase's cron expressions (its tools/cron): five fields (minute, hour, day of the month,
 * month, day of the week; Sunday is 0), each `*`, a value, a range `1-5`, a step `*\/15` or
 * `1-30/5`, or a comma list of those; or a macro (@yearly, @annually, @monthly, @weekly, @daily,
 * @midnight, @hourly). A time is due when every field matches it (day of the month and day of the
 * week both), in UTC. Errors carry PocketBase's messages, which the settings show as they are.
 */

export interface CronSchedule {
  /** Whether the minute of `at` (UTC) is one the expression names. */
  isDue(at: Date): boolean;
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

/** Why an expression is not one (its message is PocketBase's). */
export class CronExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CronExpressionError';
  }
}

export function parseCron(expression: string): CronSchedule {
  const segments = (MACROS[expression] ?? expression).split(' ');
  if (segments.length !== 5) {
    throw new CronExpressionError(
      'invalid cron expression - must be a valid macro or to have exactly 5 space separated segments',
    );
  }
  const [minutes, hours, days, months, weekdays] = [
    parseSegment(segments[0]!, 0, 59),
    parseSegment(segments[1]!, 0, 23),
    parseSegment(segments[2]!, 1, 31),
    parseSegment(segments[3]!, 1, 12),
    parseSegment(segments[4]!, 0, 6),
  ];
  return {
    isDue: (at) =>
      minutes.has(at.getUTCMinutes()) &&
      hours.has(at.getUTCHours()) &&
      days.has(at.getUTCDate()) &&
      months.has(at.getUTCMonth() + 1) &&
      weekdays.has(at.getUTCDay()),
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
