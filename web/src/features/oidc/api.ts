import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ConnectedApp,
  ConnectedAppsAnswer,
  InteractionAnswer,
  RedirectAnswer,
} from '../../../../contract/oidc';
import { pb } from '../../lib/pb';

// The answers' types are the server's schemas (contract/oidc.ts), docs/api.md "Gatehouse as an
// OpenID provider": the sign-in an app started (its app, what it asks for, which step), and the
// apps the member shares with.
export type { ConnectedApp, InteractionAnswer };

/** A sign-in an app started: the provider's cookie for its path says it is this browser's. */
export const interactionQueryOptions = (uid: string, userId: string | undefined) =>
  queryOptions({
    queryKey: ['oidc-interaction', uid, userId ?? ''] as const,
    queryFn: () =>
      pb.send<InteractionAnswer>(`/api/oidc/interactions/${encodeURIComponent(uid)}/details`, {}),
    staleTime: Infinity,
  });

export type InteractionStep = 'login' | 'consent' | 'abort';

/** Completes a step; the browser then goes back to the provider, which sends it to the app. */
export async function completeStep(uid: string, step: InteractionStep): Promise<string> {
  const answer = await pb.send<RedirectAnswer>(
    `/api/oidc/interactions/${encodeURIComponent(uid)}/${step}`,
    { method: 'POST' },
  );
  return answer.redirect;
}

export const connectedAppsKeys = {
  all: ['connected-apps'] as const,
  of: (userId: string) => [...connectedAppsKeys.all, userId] as const,
};

export const connectedAppsQueryOptions = (userId: string) =>
  queryOptions({
    queryKey: connectedAppsKeys.of(userId),
    queryFn: async () => {
      const body = await pb.send<Partial<ConnectedAppsAnswer>>('/api/gatehouse/apps', {});
      return Array.isArray(body.items) ? body.items : [];
    },
  });

export function useConnectedApps(userId: string) {
  return useQuery(connectedAppsQueryOptions(userId));
}

export function useRevokeApp(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      pb.send(`/api/gatehouse/apps/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: connectedAppsKeys.of(userId) }),
  });
}
