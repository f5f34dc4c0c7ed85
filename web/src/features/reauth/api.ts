import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import {
  startAuthentication,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { queryOptions } from '@tanstack/react-query';
import type { ReauthMethod, ReauthStatusAnswer } from '../../../../contract/sessions';
import { fieldCodeOf, statusOf } from '../../lib/api-error';
import { serverText } from '../../lib/messages';
import { pb } from '../../lib/pb';

/**
 * "Confirm it's you" (docs/api.md): what this session may prove, and the proofs. The dialog that
 * uses them opens by itself when the server asks (`lib/reauth.ts`); nothing else needs them.
 */

// The answer's types are the server's schemas (contract/sessions.ts).
// A proof the member has (`ReauthMethod`): their password, a two-step code, a passkey (`response`).
export type { ReauthMethod };

/**
 * GET /api/gatehouse/reauth: `freshUntil` is the server's UTC date, or '' for a session that never
 * proved anything.
 */
export type ReauthStatus = ReauthStatusAnswer;

const METHODS: readonly ReauthMethod[] = ['password', 'code', 'response'];

export async function fetchReauthStatus(): Promise<ReauthStatus> {
  const body = await pb.send<Partial<ReauthStatus>>('/api/gatehouse/reauth', {});
  return {
    fresh: body.fresh === true,
    freshUntil: typeof body.freshUntil === 'string' ? body.freshUntil : '',
    methods: Array.isArray(body.methods) ? METHODS.filter((m) => body.methods?.includes(m)) : [],
  };
}

/** Asked each time the dialog opens: a proof added or removed since must show. */
export const reauthStatusQueryOptions = (userId: string) =>
  queryOptions({
    queryKey: ['reauth', userId] as const,
    queryFn: fetchReauthStatus,
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });

async function confirmWith(body: Record<string, unknown>): Promise<void> {
  await pb.send('/api/gatehouse/reauth', { method: 'POST', body });
}

export function confirmWithPassword(password: string): Promise<void> {
  return confirmWith({ password });
}

/** A code from the authenticator app, or an unused recovery code. */
export function confirmWithCode(code: string): Promise<void> {
  return confirmWith({ code: code.trim() });
}

/** The browser's prompt for one of the member's own passkeys, then its answer to the server. */
export async function confirmWithPasskey(): Promise<void> {
  const optionsJSON = await pb.send<PublicKeyCredentialRequestOptionsJSON>(
    '/api/gatehouse/reauth/passkey-options',
    { method: 'POST' },
  );
  const response = await startAuthentication({ optionsJSON });
  await confirmWith({ response });
}

export const WRONG_PASSWORD_MESSAGE = msg`That password isn't right.`;
export const WRONG_CODE_MESSAGE = msg`That code isn't right or has expired.`;
export const TOO_MANY_MESSAGE = msg`Too many tries. Wait a few minutes and try again.`;
export const PASSKEY_REFUSED_MESSAGE = msg`That passkey wasn't accepted. Try again or use another way.`;
export const PASSKEY_DISMISSED_MESSAGE = msg`No passkey was used. You can try again.`;

/**
 * A proof that did not confirm, in words: under its field (`field`) when the proof itself was
 * wrong, else for the whole dialog (`form`; `tone` info when the member closed the passkey prompt).
 */
export function reauthProblem(err: unknown): {
  field: string | null;
  form: string | null;
  tone: 'error' | 'info';
} {
  const only = (form: string, tone: 'error' | 'info' = 'error') => ({ field: null, form, tone });
  if (statusOf(err) === 429) return only(i18n._(TOO_MANY_MESSAGE));
  if (fieldCodeOf(err, 'password'))
    return { field: i18n._(WRONG_PASSWORD_MESSAGE), form: null, tone: 'error' };
  if (fieldCodeOf(err, 'code'))
    return { field: i18n._(WRONG_CODE_MESSAGE), form: null, tone: 'error' };
  if (fieldCodeOf(err, 'response')) return only(i18n._(PASSKEY_REFUSED_MESSAGE));
  // The browser's prompt closed, timed out, or found none of the member's passkeys: browsers
  // answer these alike, so the dialog says it calmly.
  const name = (err as { name?: unknown } | null)?.name;
  if (name === 'NotAllowedError' || name === 'AbortError') {
    return only(i18n._(PASSKEY_DISMISSED_MESSAGE), 'info');
  }
  const said = statusOf(err) === undefined ? undefined : serverText(err);
  return only(said ?? t`Something went wrong. Please try again.`);
}

/** A provider sign-in that did not confirm, in words. */
export function providerProblem(err: unknown, displayName: string): string {
  if (statusOf(err) === 429) return i18n._(TOO_MANY_MESSAGE);
  const status = statusOf(err) ?? 0;
  const said = status > 0 ? serverText(err) : undefined;
  return said && said !== 'Failed to authenticate.'
    ? said
    : t`Signing in with ${displayName} did not finish. Please try again.`;
}
