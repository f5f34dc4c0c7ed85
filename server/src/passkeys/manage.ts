import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { webauthn } from './webauthn.js';
import { queueNotice } from '../accounts/service.js';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  type FieldErrors,
  NotFoundError,
  VALIDATION_FAILED,
  ValidationError,
} from '../core/errors.js';
import type { Passkey, User } from '../db/schema.js';
import { newId } from '../tools/random.js';
import { nowString } from '../tools/time.js';
import {
  CHALLENGE_LIFETIME_MS,
  consumeChallenge,
  invalidResponse,
  relyingParty,
  storeChallenge,
} from './challenges.js';

/**
 * The member's passkeys: register one (options, then the browser's response), list, rename,
 * remove. Only the public key, the counter and the transports are stored; adding one is logged
 * and mailed to the member.
 */

export const NAME_MAX = 64;

/** A passkey as the API shows it. */
export function passkeyView(p: Passkey) {
  return { id: p.id, name: p.name, created: p.created, lastUsed: p.last_used };
}

export function listPasskeys(ctx: AppContext, userId: string): Promise<Passkey[]> {
  return ctx.db
    .selectFrom('passkeys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created', 'desc')
    .orderBy('id')
    .execute();
}

/** The user handle the authenticator keeps: the member's id, as bytes. */
export function userHandle(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId, 'utf8'));
}

const parseTransports = (json: string) =>
  JSON.parse(json) as RegistrationResponseJSON['response']['transports'];

/**
 * Creation options for the browser (@simplewebauthn/browser's startRegistration): a discoverable
 * credential with user verification, no attestation, the member's passkeys excluded. Its
 * challenge replaces the member's oldest beyond five (challenges.ts).
 */
export async function registrationOptions(ctx: AppContext, user: User) {
  const { rpID, rpName } = relyingParty(ctx);
  const existing = await listPasskeys(ctx, user.id);
  const options = await (
    await webauthn()
  ).generateRegistrationOptions({
    rpName,
    rpID,
    userName: user.email,
    userDisplayName: user.email,
    userID: userHandle(user.id),
    attestationType: 'none',
    timeout: CHALLENGE_LIFETIME_MS,
    excludeCredentials: existing.map((p) => ({
      id: p.credential_id,
      transports: parseTransports(p.transports),
    })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await storeChallenge(ctx, options.challenge, 'registration', user.id);
  return options;
}

function nameError(name: string) {
  const trimmed = name.trim();
  if (trimmed === '') return fieldError.required();
  if ([...trimmed].length > NAME_MAX) return fieldError.maxText(NAME_MAX);
  return undefined;
}

/** Verifies the browser's registration response against its challenge and stores the passkey. */
export async function addPasskey(
  ctx: AppContext,
  user: User,
  input: { name: string; response?: Record<string, unknown> },
  client: Client,
) {
  const errors: FieldErrors = {};
  const nameProblem = nameError(input.name);
  if (nameProblem) errors.name = nameProblem;
  if (!input.response) errors.response = fieldError.required();
  assertNoFieldErrors(errors, VALIDATION_FAILED);

  const challenge = await consumeChallenge(ctx, input.response!, 'registration', user.id);
  const { rpID, origin } = relyingParty(ctx);
  let verified;
  try {
    verified = await (
      await webauthn()
    ).verifyRegistrationResponse({
      response: input.response as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch {
    throw invalidResponse();
  }
  if (!verified.verified) throw invalidResponse();
  const { credential } = verified.registrationInfo;
  const taken = await ctx.db
    .selectFrom('passkeys')
    .select('id')
    .where('credential_id', '=', credential.id)
    .executeTakeFirst();
  if (taken) throw invalidResponse();

  const passkey: Passkey = {
    id: newId(),
    user_id: user.id,
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: JSON.stringify(credential.transports ?? []),
    name: input.name.trim(),
    created: nowString(),
    last_used: null,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('passkeys').values(passkey).execute();
    await recordEvent(trx, {
      type: 'passkey_added',
      userId: user.id,
      client,
      detail: { passkey: passkey.id },
    });
    const { appName } = ctx.settings;
    await queueNotice(ctx, trx, user, client, {
      kind: 'passkeyAdded',
      en: {
        subject: `A passkey was added to your ${appName} account`,
        what: `A passkey was added to your ${appName} account: it can now sign in without the password.`,
      },
      de: {
        subject: `Ihrem Konto bei ${appName} wurde ein Passkey hinzugefügt`,
        what: `Ihrem Konto bei ${appName} wurde ein Passkey hinzugefügt: Mit ihm kann man sich jetzt ohne das Passwort anmelden.`,
      },
    });
  });
  ctx.mailQueued();
  return passkeyView(passkey);
}

export async function renamePasskey(
  ctx: AppContext,
  user: User,
  id: string,
  input: { name: string },
  client: Client,
) {
  const problem = nameError(input.name);
  if (problem) throw new ValidationError(VALIDATION_FAILED, { name: problem });
  const name = input.name.trim();
  const result = await ctx.db
    .updateTable('passkeys')
    .set({ name })
    .where('id', '=', id)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new NotFoundError();
  await recordEvent(ctx.db, {
    type: 'passkey_renamed',
    userId: user.id,
    client,
    detail: { passkey: id },
  });
  const row = await ctx.db
    .selectFrom('passkeys')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return passkeyView(row);
}

export async function removePasskey(ctx: AppContext, user: User, id: string, client: Client) {
  // Never the last way in (an account made with a provider that was disconnected since).
  await ctx.db.transaction().execute((trx) =>
    ctx.waysIn.keepOne(trx, user.id, async () => {
      const result = await trx
        .deleteFrom('passkeys')
        .where('id', '=', id)
        .where('user_id', '=', user.id)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1) throw new NotFoundError();
      await recordEvent(trx, {
        type: 'passkey_removed',
        userId: user.id,
        client,
        detail: { passkey: id },
      });
    }),
  );
}
