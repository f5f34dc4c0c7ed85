import { queryOptions, useQuery } from '@tanstack/react-query';
import { pb } from '../../lib/pb';

/** One entry of the member's security log (docs/api.md, GET /api/gatehouse/security-events). */
export interface SecurityEvent {
  id: string;
  created: string;
  type: string;
  ip: string;
  userAgent: string;
  outcome: 'success' | 'failure';
  detail: Record<string, unknown> | null;
}

/** How many events Recent Activity shows. */
export const RECENT_EVENTS = 20;

export const securityEventsKeys = {
  all: ['security-events'] as const,
  of: (userId: string) => [...securityEventsKeys.all, userId] as const,
};

export async function fetchRecentEvents(): Promise<SecurityEvent[]> {
  const body = await pb.send<{ items?: SecurityEvent[] }>('/api/gatehouse/security-events', {
    query: { perPage: RECENT_EVENTS, skipTotal: true },
  });
  return Array.isArray(body.items) ? body.items.slice(0, RECENT_EVENTS) : [];
}

export const securityEventsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: securityEventsKeys.of(userId), queryFn: fetchRecentEvents });

export function useRecentEvents(userId: string) {
  return useQuery(securityEventsQueryOptions(userId));
}
