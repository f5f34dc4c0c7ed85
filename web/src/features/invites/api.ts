import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { errorMessage, errorStatus, pb } from '../../lib/pb';

export interface InviteCode {
  id: string;
  code: string;
  created?: string;
}

/** Query keys: every user's invite codes (what Log Out removes), and one user's. */
export const inviteCodesKeys = {
  all: ['invite-codes'] as const,
  of: (userId: string) => [...inviteCodesKeys.all, userId] as const,
};

export async function fetchInviteCodes(): Promise<InviteCode[]> {
  const body = await pb.send<{ codes?: InviteCode[] }>('/api/invite-codes', {});
  return Array.isArray(body.codes) ? body.codes : [];
}

export const inviteCodesQueryOptions = (userId: string) =>
  queryOptions({ queryKey: inviteCodesKeys.of(userId), queryFn: fetchInviteCodes });

/** The user's unused invite codes. Errors are only logged: the screen shows nothing for them. */
export function useInviteCodes(userId: string) {
  const query = useQuery(inviteCodesQueryOptions(userId));
  useEffect(() => {
    if (query.error) console.error('Failed to load invite codes', query.error);
  }, [query.error]);
  return query;
}

export async function generateInviteCodes(): Promise<{ generated: number; codes: InviteCode[] }> {
  return pb.send('/api/invite-codes/generate', { method: 'POST' });
}

export const FORBIDDEN_GENERATE_MESSAGE =
  'Only the initial user can generate unlimited invite codes.';

export function generateErrorMessage(err: unknown): string {
  if (errorStatus(err) === 403) return FORBIDDEN_GENERATE_MESSAGE;
  return errorMessage(err) ?? 'Failed to generate invite codes.';
}

export function useGenerateInviteCodes(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: generateInviteCodes,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: inviteCodesKeys.of(userId) }),
  });
}
