import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { statusOf } from '../../lib/api-error';
import { serverText } from '../../lib/messages';
import type {
  GeneratedCodesAnswer,
  InviteCode,
  InviteCodesAnswer,
  UsedInviteCode,
} from '../../../../contract/invites';
import { pb } from '../../lib/pb';

// The answers' types are the server's schemas (contract/invites.ts).
export type { InviteCode, UsedInviteCode };

/** The member's codes: the unused ones, and the ones people joined with (and who). */
export interface MemberCodes {
  codes: InviteCode[];
  used: UsedInviteCode[];
}

/** Query keys: every user's invite codes (what Log Out removes), and one user's. */
export const inviteCodesKeys = {
  all: ['invite-codes'] as const,
  of: (userId: string) => [...inviteCodesKeys.all, userId] as const,
};

export async function fetchInviteCodes(): Promise<MemberCodes> {
  const body = await pb.send<Partial<InviteCodesAnswer>>('/api/invite-codes', {});
  return {
    codes: Array.isArray(body.codes) ? body.codes : [],
    used: Array.isArray(body.used) ? body.used : [],
  };
}

export const inviteCodesQueryOptions = (userId: string) =>
  queryOptions({ queryKey: inviteCodesKeys.of(userId), queryFn: fetchInviteCodes });

/**
 * The user's invite codes, kept current over realtime (`invite_codes`): a code an invitee used
 * leaves the open list at once, and the list is read again, so who joined with it shows (the
 * answer's `used`); new codes are fetched. Errors are only logged: the screen shows nothing for
 * them.
 */
export function useInviteCodes(userId: string) {
  const query = useQuery(inviteCodesQueryOptions(userId));
  useEffect(() => {
    if (query.error) console.error('Failed to load invite codes', query.error);
  }, [query.error]);
  useLiveInviteCodes(userId);
  return query;
}

function useLiveInviteCodes(userId: string) {
  const queryClient = useQueryClient();
  useEffect(() => {
    // No EventSource (component tests, an old browser): the list updates on the next load.
    if (typeof EventSource === 'undefined') return;
    const key = inviteCodesKeys.of(userId);
    let connects = 0;
    const subscriptions = Promise.all([
      // A code's realtime record may carry no more than its id (a revoked one's delete).
      pb.collection('invite_codes').subscribe<Pick<InviteCode, 'id'>>('*', (event) => {
        if (event.action === 'delete') {
          queryClient.setQueryData<MemberCodes>(key, (data) =>
            data ? { ...data, codes: data.codes.filter((c) => c.id !== event.record.id) } : data,
          );
        }
        // A code used: who joined with it comes with the list (a revoked one just leaves).
        void queryClient.invalidateQueries({ queryKey: key });
      }),
      // After a reconnect, changes made meanwhile were missed: the list is fetched again.
      pb.realtime.subscribe('PB_CONNECT', () => {
        connects += 1;
        if (connects > 1) void queryClient.invalidateQueries({ queryKey: key });
      }),
    ]);
    subscriptions.catch(() => {});
    return () => {
      void subscriptions.then((offs) => offs.forEach((off) => void off())).catch(() => {});
    };
  }, [queryClient, userId]);
}

export async function generateInviteCodes(): Promise<GeneratedCodesAnswer> {
  return pb.send('/api/invite-codes/generate', { method: 'POST' });
}

export const FORBIDDEN_GENERATE_MESSAGE = msg`Only the initial user can generate unlimited invite codes.`;

export function generateErrorMessage(err: unknown): string {
  if (statusOf(err) === 403) return i18n._(FORBIDDEN_GENERATE_MESSAGE);
  return serverText(err) ?? t`Failed to generate invite codes.`;
}

export function useGenerateInviteCodes(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: generateInviteCodes,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: inviteCodesKeys.of(userId) }),
  });
}
