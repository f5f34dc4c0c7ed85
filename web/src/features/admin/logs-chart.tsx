import { formatNumber, intlLocale } from '../../lib/i18n';
import { plural, t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import type { HourlyStatsAnswer } from '../../../../contract/logs';
import { CHART_HOURS, serverDateText } from './logs-api';

/** One hour of the chart: when it starts, its requests, and how many of them were errors. */
export interface ChartHour {
  start: Date;
  requests: number;
  errors: number;
}

/** The chart's hours from `since`, each with its counts (0 for an hour the stats leave out). */
export function chartHours(
  since: Date,
  requests: HourlyStatsAnswer,
  errors: HourlyStatsAnswer,
): ChartHour[] {
  const countOf = (stats: HourlyStatsAnswer) => new Map(stats.map((s) => [s.date, s.total]));
  const requestsAt = countOf(requests);
  const errorsAt = countOf(errors);
  return Array.from({ length: CHART_HOURS }, (_, i) => {
    const start = new Date(since.getTime() + i * 3600_000);
    const key = serverDateText(start);
    return { start, requests: requestsAt.get(key) ?? 0, errors: errorsAt.get(key) ?? 0 };
  });
}

const hourLabel = (date: Date) => date.toLocaleTimeString(intlLocale(), { hour: 'numeric' });

/** What the chart shows, in a sentence (its accessible name). */
export function chartSummary(hours: ChartHour[]): string {
  const requests = hours.reduce((sum, h) => sum + h.requests, 0);
  const errors = hours.reduce((sum, h) => sum + h.errors, 0);
  const first = hours[0];
  const last = hours.at(-1);
  const fromHour = first ? hourLabel(first.start) : '';
  const toHour = last ? hourLabel(last.start) : '';
  const range = first && last ? t`from ${fromHour} to the hour starting ${toHour}` : '';
  if (requests === 0) return t`Requests per hour ${range}: none.`;
  const busiest = hours.reduce((a, b) => (b.requests > a.requests ? b : a));
  const requestCount = plural(requests, { one: '# request', other: '# requests' });
  const errorCount = plural(errors, { one: '# error', other: '# errors' });
  const busiestHour = hourLabel(busiest.start);
  const busiestCount = plural(busiest.requests, { one: '# request', other: '# requests' });
  return t`Requests per hour ${range}: ${requestCount}, ${errorCount}. The busiest hour, starting ${busiestHour}, had ${busiestCount}.`;
}

/**
 * Requests per hour as bars, the errors among them (answers of 400 or more) in red at each bar's
 * foot. Drawn by hand as SVG (no chart library). A screen reader gets the summary as the image's
 * name, and every hour in a table that is only for it.
 */
export function LogsChart({ hours }: { hours: ChartHour[] }) {
  const busiest = Math.max(0, ...hours.map((h) => h.requests));
  const max = Math.max(1, busiest);
  const slot = 10;
  const height = 100;
  const barHeight = (n: number) => (n === 0 ? 0 : Math.max((n / max) * height, 1.5));
  const middle = hours[Math.floor(hours.length / 2)];
  return (
    <figure className="flex flex-col gap-2">
      <div className="flex items-baseline justify-between gap-3 text-xs text-slate-700 dark:text-slate-300">
        <span>
          {plural(busiest, {
            one: '# request in the busiest hour',
            other: '# requests in the busiest hour',
          })}
        </span>
        <span className="flex gap-3" aria-hidden="true">
          <span className="flex items-center gap-1">
            <Trans>
              <span className="inline-block size-3 rounded-sm bg-blue-600 dark:bg-blue-400" />
              Requests
            </Trans>
          </span>
          <span className="flex items-center gap-1">
            <Trans>
              <span className="inline-block size-3 rounded-sm bg-red-600 dark:bg-red-400" />
              Errors
            </Trans>
          </span>
        </span>
      </div>
      <svg
        role="img"
        aria-label={chartSummary(hours)}
        viewBox={`0 0 ${hours.length * slot} ${height}`}
        preserveAspectRatio="none"
        className="h-36 w-full rounded-md border border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-950"
      >
        {hours.map((hour, i) => {
          const requests = barHeight(hour.requests);
          const errors = barHeight(hour.errors);
          return (
            <g key={hour.start.getTime()}>
              <rect
                x={i * slot + 1.5}
                y={height - requests}
                width={slot - 3}
                height={requests}
                className="fill-blue-600 dark:fill-blue-400"
              />
              <rect
                x={i * slot + 1.5}
                y={height - errors}
                width={slot - 3}
                height={errors}
                className="fill-red-600 dark:fill-red-400"
                data-errors={hour.errors}
              />
            </g>
          );
        })}
      </svg>
      <div
        className="flex justify-between text-xs text-slate-700 dark:text-slate-300"
        aria-hidden="true"
      >
        <span>{hours[0] ? hourLabel(hours[0].start) : ''}</span>
        <span>{middle ? hourLabel(middle.start) : ''}</span>
        <span>{t`Now`}</span>
      </div>
      <table className="sr-only">
        <caption>{t`Requests and errors per hour`}</caption>
        <thead>
          <tr>
            <th scope="col">{t`Hour starting`}</th>
            <th scope="col">{t`Requests`}</th>
            <th scope="col">{t`Errors`}</th>
          </tr>
        </thead>
        <tbody>
          {hours.map((hour) => (
            <tr key={hour.start.getTime()}>
              <th scope="row">{hourLabel(hour.start)}</th>
              <td>{formatNumber(hour.requests)}</td>
              <td>{formatNumber(hour.errors)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
