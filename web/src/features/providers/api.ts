import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ConnectedProvider, ConnectedProvidersAnswer } from '../../../../contract/providers';
import { pb } from '../../lib/pb';
import { securityEventsKeys } from '../audit/api';

// The answer's types are the server's schemas (contract/providers.ts), docs/api.md
// GET /api/gatehouse/providers: the providers connected to the member (`canDisconnect` false for
// their only way to sign in, which the server refuses to disconnect), and `passwordSet`, whether
// they have a password of their own (not an account made with a provider).
export type { ConnectedProvider };
export type ConnectedProviders = ConnectedProvidersAnswer;

export const providersKeys = {
  all: ['providers'] as const,
  of: (userId: string) => [...providersKeys.all, userId] as const,
};

export async function fetchConnectedProviders(): Promise<ConnectedProviders> {
  const body = await pb.send<Partial<ConnectedProviders>>('/api/gatehouse/providers', {});
  return {
    passwordSet: body.passwordSet !== false,
    items: Array.isArray(body.items) ? body.items : [],
  };
}

export const connectedProvidersQueryOptions = (userId: string) =>
  queryOptions({ queryKey: providersKeys.of(userId), queryFn: fetchConnectedProviders });

export function useConnectedProviders(userId: string) {
  return useQuery(connectedProvidersQueryOptions(userId));
}

export async function disconnectProvider(name: string): Promise<void> {
  await pb.send(`/api/gatehouse/providers/${encodeURIComponent(name)}`, { method: 'DELETE' });
}

/** The list and the activity log change together when a provider is connected or removed. */
export function useRefreshProviders(userId: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: providersKeys.of(userId) }),
      queryClient.invalidateQueries({ queryKey: securityEventsKeys.of(userId) }),
    ]);
}

export function useDisconnectProvider(userId: string) {
  const refresh = useRefreshProviders(userId);
  return useMutation({ mutationFn: disconnectProvider, onSettled: refresh });
}
