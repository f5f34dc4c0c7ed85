import { describe, expect, it } from 'vitest';
import { CronExpressionError, parseCron } from '../../src/tools/cron-schedule.js';

/** The next `count` times after `from` that `expression` names, as ISO texts. */
function upcoming(expression: string, from: string, count: number, seconds = false): string[] {
  const schedule = parseCron(expression, { seconds });
  const times: string[] = [];
  let at = new Date(from);
  for (let i = 0; i < count; i++) {
    const next = schedule.next(at);
    if (!next) break;
    times.push(next.toISOString());
    at = next;
  }
  return times;
}

/**
 * The one reader of schedules (the job registry and the settings' backups.cron): PocketBase's
 * grammar and its meaning, in UTC.
 */
describe('cron schedules', () => {
  it('name the times PocketBase runs a job at', () => {
    expect(upcoming('0 * * * *', '2026-11-25T10:59:59.999Z', 2)).toEqual([
      '2026-11-25T11:00:00.000Z',
      '2026-11-25T12:00:00.000Z',
    ]);
    // Strictly after: a job due now is next due an hour on.
    expect(upcoming('0 * * * *', '2026-11-25T11:00:00.000Z', 1)).toEqual([
      '2026-11-25T12:00:00.000Z',
    ]);
    expect(upcoming('40 */6 * * *', '2026-11-25T06:41:00.000Z', 3)).toEqual([
      '2026-11-25T12:40:00.000Z',
      '2026-11-25T18:40:00.000Z',
      '2026-11-26T00:40:00.000Z',
    ]);
    expect(upcoming('1-30/10 9 * * *', '2026-11-25T00:00:00.000Z', 4)).toEqual([
      '2026-11-25T09:01:00.000Z',
      '2026-11-25T09:11:00.000Z',
      '2026-11-25T09:21:00.000Z',
      '2026-11-26T09:01:00.000Z',
    ]);
    expect(upcoming('@daily', '2026-12-31T12:00:00.000Z', 1)).toEqual(['2027-01-01T00:00:00.000Z']);
    expect(upcoming('@weekly', '2026-11-25T00:00:00.000Z', 1)).toEqual([
      '2026-11-29T00:00:00.000Z', // a Sunday
    ]);
  });

  it('need the day of the month and the day of the week both, as PocketBase (not either, as Vixie cron)', () => {
    // The 13th that is a Friday, at noon.
    expect(upcoming('0 12 13 * 5', '2026-01-01T00:00:00.000Z', 2)).toEqual([
      '2026-02-13T12:00:00.000Z',
      '2026-03-13T12:00:00.000Z',
    ]);
    // A leap day comes every four years; the 30th of February never.
    expect(upcoming('0 0 29 2 *', '2026-03-01T00:00:00.000Z', 1)).toEqual([
      '2028-02-29T00:00:00.000Z',
    ]);
    expect(upcoming('0 0 30 2 *', '2026-03-01T00:00:00.000Z', 1)).toEqual([]);
  });

  it('take seconds first only for jobs in code', () => {
    expect(upcoming('* * * * * *', '2026-11-25T10:00:00.400Z', 2, true)).toEqual([
      '2026-11-25T10:00:01.000Z',
      '2026-11-25T10:00:02.000Z',
    ]);
    expect(upcoming('30 0 * * * *', '2026-11-25T10:00:30.000Z', 1, true)).toEqual([
      '2026-11-25T11:00:30.000Z',
    ]);
    expect(() => parseCron('* * * * * *')).toThrow(
      new CronExpressionError(
        'invalid cron expression - must be a valid macro or to have exactly 5 space separated segments',
      ),
    );
  });

  it.each([
    [
      '* * *',
      'invalid cron expression - must be a valid macro or to have exactly 5 space separated segments',
    ],
    ['60 * * * *', 'invalid segment value - must be between the min and max of the segment'],
    ['*/0 * * * *', 'invalid segment step boundary - the step must be between 1 and the 59'],
    [
      '5/2 * * * *',
      'invalid segment step - step > 1 could be used only with the wildcard or range format',
    ],
    ['a * * * *', 'strconv.Atoi: parsing "a": invalid syntax'],
    ['* * * * 7', 'invalid segment value - must be between the min and max of the segment'],
  ])("refuse %j with PocketBase's message", (expression, message) => {
    expect(() => parseCron(expression)).toThrow(new CronExpressionError(message));
  });
});
