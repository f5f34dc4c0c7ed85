import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DeviceSession, SessionsAnswer } from '../../../../contract/sessions';
import { pb } from '../../lib/pb';
import { securityEventsKeys } from '../audit/api';

// The answer's types are the server's schemas (contract/sessions.ts): one signed-in device, a
// server-side session of the member, is a `DeviceSession` (docs/api.md, Sessions).
export type { DeviceSession };

/** Query keys: every member's sessions (what Log Out removes), and one member's. */
export const sessionsKeys = {
  all: ['sessions'] as const,
  of: (userId: string) => [...sessionsKeys.all, userId] as const,
};

export async function fetchSessions(): Promise<DeviceSession[]> {
  const body = await pb.send<Partial<SessionsAnswer>>('/api/gatehouse/sessions', {});
  return Array.isArray(body.items) ? body.items : [];
}

export const sessionsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: sessionsKeys.of(userId), queryFn: fetchSessions });

export function useSessions(userId: string) {
  return useQuery(sessionsQueryOptions(userId));
}

/** Ends one of the member's other sessions: that device is signed out on its next request. */
export async function endSession(sessionId: string): Promise<void> {
  await pb.send(`/api/gatehouse/sessions/${encodeURIComponent(sessionId)}`, { method: 'DELETE' });
}

/** Ends every session of the member but this one. */
export async function endOtherSessions(): Promise<void> {
  await pb.send('/api/gatehouse/sessions', { method: 'DELETE' });
}

/** The device list and the activity log change together when a session ends. */
function useRefreshAfterwards(userId: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: sessionsKeys.of(userId) }),
      queryClient.invalidateQueries({ queryKey: securityEventsKeys.of(userId) }),
    ]);
}

export function useEndSession(userId: string) {
  const refresh = useRefreshAfterwards(userId);
  return useMutation({ mutationFn: endSession, onSettled: refresh });
}

export function useEndOtherSessions(userId: string) {
  const refresh = useRefreshAfterwards(userId);
  return useMutation({ mutationFn: endOtherSessions, onSettled: refresh });
}
