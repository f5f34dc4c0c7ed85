import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { webauthn } from './webauthn.js';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import { fieldError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
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
  input: { response: Record<string, unknown> | undefined },
  client: Client,
): Promise<User> {
  await ctx.limiter.check(PASSKEY_LIMITS.signIn, client.network);
  const response = input.response;
  if (!response) {
    throw new ValidationError(VALIDATION_FAILED, { response: fieldError.required() });
  }
  const challenge = await consumeChallenge(ctx, response, 'authentication', null);
  const credentialId = typeof response.id === 'string' ? response.id : '';
  const passkey =
    credentialId && credentialId.length <= 1024
      ? await ctx.db
          .selectFrom('passkeys')
          .selectAll()
          .where('credential_id', '=', credentialId)
          .executeTakeFirst()
      : undefined;
  const fail = async (reason: string): Promise<never> => {
    await recordEvent(ctx.db, {
      type: 'sign_in',
      userId: passkey?.user_id ?? null,
      client,
      outcome: 'failure',
      detail: { method: 'passkey', reason },
    });
    throw invalidResponse();
  };
  if (!passkey) return fail('unknown_passkey');

  // The authenticator's user handle, when it sends one, must be the passkey's member.
  const inner = response.response as Record<string, unknown>;
  const handle = inner.userHandle;
  if (
    handle !== undefined &&
    handle !== null &&
    handle !== Buffer.from(userHandle(passkey.user_id)).toString('base64url')
  ) {
    return fail('wrong_user_handle');
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
        transports: JSON.parse(passkey.transports) as string[],
      },
      requireUserVerification: true,
    });
    if (!verified.verified) return fail('not_verified');
    newCounter = verified.authenticationInfo.newCounter;
  } catch {
    return fail('invalid_response');
  }
  // Compare-and-set: two uses of one counter value (a cloned key) cannot both pass.
  const result = await ctx.db
    .updateTable('passkeys')
    .set({ counter: newCounter, last_used: nowString() })
    .where('id', '=', passkey.id)
    .where('counter', '=', counter)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return fail('counter');
  const user = await findUserById(ctx, passkey.user_id);
  if (!user) return fail('unknown_passkey');
  return user;
}
