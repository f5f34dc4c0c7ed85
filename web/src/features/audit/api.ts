import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SecurityEvent, SecurityEventsAnswer } from '../../../../contract/audit';
import { pb } from '../../lib/pb';

// The answer's types are the server's schemas (contract/audit.ts): one entry of the member's
// security log is a `SecurityEvent` (docs/api.md, GET /api/gatehouse/security-events).
export type { SecurityEvent };

/** How many events Recent Activity shows. */
export const RECENT_EVENTS = 20;

export const securityEventsKeys = {
  all: ['security-events'] as const,
  of: (userId: string) => [...securityEventsKeys.all, userId] as const,
};

export async function fetchRecentEvents(): Promise<SecurityEvent[]> {
  const body = await pb.send<Partial<SecurityEventsAnswer>>('/api/gatehouse/security-events', {
    query: { perPage: RECENT_EVENTS, skipTotal: true },
  });
  return Array.isArray(body.items) ? body.items.slice(0, RECENT_EVENTS) : [];
}

export const securityEventsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: securityEventsKeys.of(userId), queryFn: fetchRecentEvents });

export function useRecentEvents(userId: string) {
  return useQuery(securityEventsQueryOptions(userId));
}
