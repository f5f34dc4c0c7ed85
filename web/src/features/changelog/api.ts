import { intlLocale } from '../../lib/i18n';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { shouldRetry } from '../../lib/query-client';
import type { ChangelogEntry } from './schema';

export type { ChangelogEntry };

/** The file is there but not what the app expects: retrying will not help. */
export class MalformedChangelogError extends Error {
  constructor() {
    super('Malformed changelog');
    this.name = 'MalformedChangelogError';
  }
}

export async function fetchChangelog(): Promise<ChangelogEntry[]> {
  // The schema (and zod) load in parallel with the file, keeping them out of the first download.
  const [response, { changelogSchema }] = await Promise.all([
    fetch('/changelog.json', { headers: { Accept: 'application/json' } }),
    import('./schema'),
  ]);
  if (!response.ok) {
    // With its status, so a 4xx is not tried again (lib/query-client.ts).
    throw Object.assign(new Error('Failed to fetch changelog'), { status: response.status });
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new MalformedChangelogError();
  }
  const parsed = changelogSchema.safeParse(body);
  if (!parsed.success) throw new MalformedChangelogError();
  return parsed.data;
}

export const changelogQueryOptions = queryOptions({
  queryKey: ['changelog'],
  queryFn: fetchChangelog,
  staleTime: 5 * 60 * 1000,
  refetchOnWindowFocus: false,
  // The route's loader may have met the error already (a malformed file): the screen shows it,
  // with Try Again, rather than asking once more as it mounts.
  retryOnMount: false,
  retry: (failureCount, error) =>
    !(error instanceof MalformedChangelogError) && shouldRetry(failureCount, error),
});

export function useChangelog() {
  return useQuery(changelogQueryOptions);
}

/** The one localStorage key the app owns. */
export const LAST_VIEWED_VERSION_KEY = 'gatehouse.lastViewedChangelogVersion';

export function readLastViewedVersion(): string | null {
  try {
    return window.localStorage.getItem(LAST_VIEWED_VERSION_KEY);
  } catch {
    return null;
  }
}

export function storeLastViewedVersion(version: string): void {
  try {
    window.localStorage.setItem(LAST_VIEWED_VERSION_KEY, version);
  } catch {
    // Storage full or blocked: the banner simply shows again next time.
  }
}

/** "2026-11-21" → "November 21, 2026" (read as a calendar date, not shifted by time zone). */
export function formatReleaseDate(date: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(date);
  if (!match) return date;
  const day = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (Number.isNaN(day.getTime())) return date;
  return day.toLocaleDateString(intlLocale(), { year: 'numeric', month: 'long', day: 'numeric' });
}
