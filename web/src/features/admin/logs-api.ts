import { queryOptions } from '@tanstack/react-query';
import type { CronJobAnswer } from '../../../../contract/crons';
import type { HourlyStatsAnswer, LogEntry, LogListAnswer } from '../../../../contract/logs';
import type { SettingsAnswer } from '../../../../contract/settings';
import { pb } from '../../lib/pb';
import { adminKeys, PER_PAGE } from './api';
import type { LogsSearch } from './logs-search';

/**
 * The console's Logs, Crons and the Mail screen's transport note: PocketBase's logs, crons and
 * settings APIs (docs/api.md, "Request logs", "Scheduled jobs", "Settings"), operators only.
 */

export type LogRow = LogEntry;
export type CronJob = CronJobAnswer;

/** How many hours the chart shows, up to the current one. */
export const CHART_HOURS = 24;

const keys = {
  logs: (viewer: string) => [...adminKeys.of(viewer), 'logs'] as const,
  crons: (viewer: string) => [...adminKeys.of(viewer), 'crons'] as const,
  mailTransport: (viewer: string) => [...adminKeys.of(viewer), 'mail-transport'] as const,
};
export const logsKeys = keys;

/** The filter the search stands for: the operator's own, and the quick filters, all required. */
export function combinedFilter(search: LogsSearch): string {
  const parts: string[] = [];
  if (search.filter) parts.push(`(${search.filter})`);
  if (search.errors) parts.push('data.status >= 400');
  if (search.method) parts.push(`data.method = "${search.method}"`);
  return parts.join(' && ');
}

/** A date as the server writes and filters them: "2026-11-25 10:00:00.000Z". */
export function serverDateText(date: Date): string {
  return date.toISOString().replace('T', ' ');
}

/** The start of the chart's first hour: the current hour and the 23 before it. */
export function chartStart(now = new Date()): Date {
  const hour = new Date(now);
  hour.setUTCMinutes(0, 0, 0);
  return new Date(hour.getTime() - (CHART_HOURS - 1) * 3600_000);
}

/** A page of the log. Only the first page is counted; later ones pass `skipTotal`. */
export const logsQueryOptions = (viewer: string, search: LogsSearch) => {
  const page = search.page ? Number(search.page) : 1;
  const filter = combinedFilter(search);
  const sort = search.sort === 'created' ? 'created' : '-created';
  return queryOptions({
    queryKey: [...keys.logs(viewer), 'list', filter, sort, page],
    queryFn: () =>
      pb.send<LogListAnswer>('/api/logs', {
        query: {
          page,
          perPage: PER_PAGE,
          sort,
          ...(filter ? { filter } : {}),
          ...(page > 1 ? { skipTotal: 1 } : {}),
        },
      }),
  });
};

/** Requests, or those answered 400 or more, per hour since `since` (an hour's start). */
export const logStatsQueryOptions = (
  viewer: string,
  search: LogsSearch,
  since: Date,
  errorsOnly: boolean,
) => {
  const filter = [
    'data.type = "request"',
    `created >= "${serverDateText(since)}"`,
    ...(errorsOnly ? ['data.status >= 400'] : []),
    ...(combinedFilter(search) ? [`(${combinedFilter(search)})`] : []),
  ].join(' && ');
  return queryOptions({
    queryKey: [...keys.logs(viewer), 'stats', filter],
    queryFn: () => pb.send<HourlyStatsAnswer>('/api/logs/stats', { query: { filter } }),
  });
};

export const cronsQueryOptions = (viewer: string) =>
  queryOptions({
    queryKey: keys.crons(viewer),
    queryFn: () => pb.send<CronJob[]>('/api/crons', {}),
  });

/** Starts the job now (the server answers before it ends). */
export async function runCron(id: string): Promise<void> {
  await pb.send(`/api/crons/${encodeURIComponent(id)}`, { method: 'POST' });
}

/**
 * Whether mail goes out through an SMTP server (SMTP_URL, or the settings' SMTP fields), or is
 * only printed to the server's console.
 */
export const mailTransportQueryOptions = (viewer: string) =>
  queryOptions({
    queryKey: keys.mailTransport(viewer),
    queryFn: async () => {
      const settings = await pb.send<SettingsAnswer>('/api/settings', {});
      return { smtp: settings.smtp.enabled };
    },
    staleTime: 60_000,
  });
