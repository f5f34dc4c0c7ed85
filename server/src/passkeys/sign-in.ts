import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

type Transports = RegistrationResponseJSON['response']['transports'];
import { webauthn } from './webauthn.js';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import { fieldError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import type { Proof } from '../core/reauth.js';
import { findUserById } from '../core/users.js';
import type { User } from '../db/schema.js';
import { nowString } from '../tools/time.js';
import {
  CHALLENGE_LIFETIME_MS,
  consumeChallenge,
  invalidResponse,
  relyingParty,
  storeChallenge,
} from './challenges.js';
import { PASSKEY_LIMITS } from './limits.js';
import { userHandle } from './manage.js';

/**
 * Sign-in with a passkey: request options for a discoverable credential (the browser offers the
 * member's passkeys for this site), then the signed response. A passkey is possession plus user
 * verification, so the sign-in is complete on its own: no second step.
 */

export async function loginOptions(ctx: AppContext, client: Client) {
  await ctx.limiter.check(PASSKEY_LIMITS.loginOptions, client.network);
  const { rpID } = relyingParty(ctx);
  const options = await (
    await webauthn()
  ).generateAuthenticationOptions({
    rpID,
    userVerification: 'required',
    allowCredentials: [],
    timeout: CHALLENGE_LIFETIME_MS,
  });
  await storeChallenge(ctx, options.challenge, 'authentication', null);
  return options;
}

export async function signInWithPasskey(
  ctx: AppContext,
  input: { response?: Record<string, unknown> },
  client: Client,
): Promise<User> {
  await ctx.limiter.check(PASSKEY_LIMITS.signIn, client.network);
  const response = input.response;
  if (!response) {
    throw new ValidationError(VALIDATION_FAILED, { response: fieldError.required() });
  }
  const fail = async (reason: string, userId: string | null): Promise<never> => {
    await recordEvent(ctx.db, {
      type: 'sign_in',
      userId,
      client,
      outcome: 'failure',
      detail: { method: 'passkey', reason },
    });
    throw invalidResponse();
  };
  const userId = await verifyAssertion(ctx, response, null, fail);
  const user = await findUserById(ctx, userId);
  if (!user) return fail('unknown_passkey', null);
  return user;
}

/**
 * Options for "Confirm it's you" with a passkey: a challenge for this member, offering only their
 * own passkeys.
 */
export async function reauthOptions(ctx: AppContext, user: User, client: Client) {
  await ctx.limiter.check(PASSKEY_LIMITS.loginOptions, client.network);
  const { rpID } = relyingParty(ctx);
  const passkeys = await ctx.db
    .selectFrom('passkeys')
    .select(['credential_id', 'transports'])
    .where('user_id', '=', user.id)
    .execute();
  const options = await (
    await webauthn()
  ).generateAuthenticationOptions({
    rpID,
    userVerification: 'required',
    allowCredentials: passkeys.map((p) => ({
      id: p.credential_id,
      transports: JSON.parse(p.transports) as Transports,
    })),
    timeout: CHALLENGE_LIFETIME_MS,
  });
  await storeChallenge(ctx, options.challenge, 'authentication', user.id);
  return options;
}

/** "Confirm it's you" with one of the member's passkeys (core/reauth.ts). */
export const passkeyProof: Proof = {
  field: 'response',
  available: async (ctx, user) =>
    (await ctx.db
      .selectFrom('passkeys')
      .select('id')
      .where('user_id', '=', user.id)
      .executeTakeFirst()) !== undefined,
  async check(ctx, user, value, client) {
    await ctx.limiter.check(PASSKEY_LIMITS.signIn, client.network);
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      throw new ValidationError(VALIDATION_FAILED, { response: fieldError.required() });
    }
    await verifyAssertion(ctx, value as Record<string, unknown>, user.id, async (reason) => {
      await recordEvent(ctx.db, {
        type: 'reauthenticated',
        userId: user.id,
        client,
        outcome: 'failure',
        detail: { method: 'passkey', reason },
      });
      throw invalidResponse();
    });
  },
};

/**
 * Checks a passkey assertion: its challenge (any sign-in's when `userId` is null; that member's
 * "Confirm it's you" otherwise), the passkey (that member's), the user handle, the signature and
 * the counter. Returns the passkey's member; `fail` records why not and throws.
 */
async function verifyAssertion(
  ctx: AppContext,
  response: Record<string, unknown>,
  userId: string | null,
  fail: (reason: string, passkeyUserId: string | null) => Promise<never>,
): Promise<string> {
  const challenge = await consumeChallenge(ctx, response, 'authentication', userId);
  const credentialId = typeof response.id === 'string' ? response.id : '';
  const passkey =
    credentialId && credentialId.length <= 1024
      ? await ctx.db
          .selectFrom('passkeys')
          .selectAll()
          .where('credential_id', '=', credentialId)
          .executeTakeFirst()
      : undefined;
  if (!passkey || (userId !== null && passkey.user_id !== userId)) {
    return fail('unknown_passkey', passkey?.user_id ?? null);
  }

  // The authenticator's user handle, when it sends one, must be the passkey's member.
  const inner = response.response as Record<string, unknown>;
  const handle = inner.userHandle;
  if (
    handle !== undefined &&
    handle !== null &&
    handle !== Buffer.from(userHandle(passkey.user_id)).toString('base64url')
  ) {
    return fail('wrong_user_handle', passkey.user_id);
  }

  const { rpID, origin } = relyingParty(ctx);
  const counter = Number(passkey.counter);
  let newCounter: number;
  try {
    const verified = await (
      await webauthn()
    ).verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
        counter,
        transports: JSON.parse(passkey.transports) as Transports,
      },
      requireUserVerification: true,
    });
    if (!verified.verified) return fail('not_verified', passkey.user_id);
    newCounter = verified.authenticationInfo.newCounter;
  } catch {
    return fail('invalid_response', passkey.user_id);
  }
  // Compare-and-set: two uses of one counter value (a cloned key) cannot both pass.
  const result = await ctx.db
    .updateTable('passkeys')
    .set({ counter: newCounter, last_used: nowString() })
    .where('id', '=', passkey.id)
    .where('counter', '=', counter)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return fail('counter', passkey.user_id);
  return passkey.user_id;
}
