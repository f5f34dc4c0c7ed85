import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import {
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
} from '@simplewebauthn/browser';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { fieldCodeOf, statusOf } from '../../lib/api-error';
import { fieldText, serverText } from '../../lib/messages';
import type { PasskeyAnswer, PasskeyListAnswer } from '../../../../contract/passkeys';
import { pb } from '../../lib/pb';
import { describeUserAgent } from '../../lib/user-agent';
import { securityEventsKeys } from '../audit/api';
import { isDismissed } from './ceremony';

// The answers' types are the server's schemas (contract/passkeys.ts); the options stay the
// WebAuthn library's own types, which its browser half takes.
/** One of the member's passkeys (docs/api.md, Passkeys); `lastUsed` is null until its first use. */
export type Passkey = PasskeyAnswer;

/** The server's limit on a passkey's name (trimmed). */
export const MAX_PASSKEY_NAME = 64;

export const passkeysKeys = {
  all: ['passkeys'] as const,
  of: (userId: string) => [...passkeysKeys.all, userId] as const,
};

export async function fetchPasskeys(): Promise<Passkey[]> {
  const body = await pb.send<Partial<PasskeyListAnswer>>('/api/gatehouse/passkeys', {});
  return Array.isArray(body.items) ? body.items : [];
}

export const passkeysQueryOptions = (userId: string) =>
  queryOptions({ queryKey: passkeysKeys.of(userId), queryFn: fetchPasskeys });

export function usePasskeys(userId: string) {
  return useQuery(passkeysQueryOptions(userId));
}

/** The name a new passkey gets: the browser and system it was made on ("Chrome on Linux"). */
export function defaultPasskeyName(): string {
  return describeUserAgent(navigator.userAgent).slice(0, MAX_PASSKEY_NAME);
}

/**
 * Adds a passkey: the server's creation options, the browser's prompt (the member makes the
 * passkey with their fingerprint, face, screen lock or security key), then the answer with its name.
 */
export async function addPasskey(name: string): Promise<Passkey> {
  const optionsJSON = await pb.send<PublicKeyCredentialCreationOptionsJSON>(
    '/api/gatehouse/passkeys/options',
    { method: 'POST' },
  );
  const response = await startRegistration({ optionsJSON });
  return pb.send<Passkey>('/api/gatehouse/passkeys', {
    method: 'POST',
    body: { name: name.trim(), response },
  });
}

export async function renamePasskey(input: { id: string; name: string }): Promise<Passkey> {
  return pb.send<Passkey>(`/api/gatehouse/passkeys/${encodeURIComponent(input.id)}`, {
    method: 'PATCH',
    body: { name: input.name.trim() },
  });
}

export async function removePasskey(id: string): Promise<void> {
  await pb.send(`/api/gatehouse/passkeys/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** The list and the activity log change together. */
function useRefreshAfterwards(userId: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: passkeysKeys.of(userId) }),
      queryClient.invalidateQueries({ queryKey: securityEventsKeys.of(userId) }),
    ]);
}

export function useAddPasskey(userId: string) {
  const refresh = useRefreshAfterwards(userId);
  return useMutation({ mutationFn: addPasskey, onSettled: refresh });
}

export function useRenamePasskey(userId: string) {
  const refresh = useRefreshAfterwards(userId);
  return useMutation({ mutationFn: renamePasskey, onSettled: refresh });
}

export function useRemovePasskey(userId: string) {
  const refresh = useRefreshAfterwards(userId);
  return useMutation({ mutationFn: removePasskey, onSettled: refresh });
}

export const ADD_DISMISSED_MESSAGE = msg`No passkey was added. You can try again at any time.`;
export const ALREADY_ADDED_MESSAGE = msg`This device or security key already has a passkey for your account.`;
export const PASSKEY_GONE_MESSAGE = msg`This passkey was already removed.`;

/** What Add a Passkey says when it did not add one: calm (`info`) when the member chose so. */
export function addPasskeyProblem(err: unknown): { tone: 'info' | 'error'; text: string } {
  if (isDismissed(err)) return { tone: 'info', text: i18n._(ADD_DISMISSED_MESSAGE) };
  // The browser found one of the member's passkeys on this authenticator (excludeCredentials).
  if ((err as { name?: unknown } | null)?.name === 'InvalidStateError') {
    return { tone: 'info', text: i18n._(ALREADY_ADDED_MESSAGE) };
  }
  if (fieldCodeOf(err, 'response')) {
    return { tone: 'error', text: t`The passkey could not be added. Please try again.` };
  }
  // The browser's own words (a WebAuthn error) mean nothing to a member; the server's do.
  const said = statusOf(err) === undefined ? undefined : serverText(err);
  return { tone: 'error', text: said ?? t`Failed to add a passkey. Please try again.` };
}

export function renamePasskeyErrorMessage(err: unknown): string {
  if (statusOf(err) === 404) return i18n._(PASSKEY_GONE_MESSAGE);
  return (
    fieldText(err, 'name') ?? serverText(err) ?? t`Failed to rename the passkey. Please try again.`
  );
}

export function removePasskeyErrorMessage(err: unknown): string {
  if (statusOf(err) === 404) return i18n._(PASSKEY_GONE_MESSAGE);
  return serverText(err) ?? t`Failed to remove the passkey. Please try again.`;
}
