import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { pb } from '../../lib/pb';
import { securityEventsKeys } from '../audit/api';

/** A provider connected to the member (docs/api.md, GET /api/gatehouse/providers). */
export interface ConnectedProvider {
  name: string;
  displayName: string;
  created: string;
  /** false: it is the member's only way to sign in, so the server refuses to disconnect it. */
  canDisconnect: boolean;
}

export interface ConnectedProviders {
  /** Whether the member has a password of their own (not an account made with a provider). */
  passwordSet: boolean;
  items: ConnectedProvider[];
}

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
