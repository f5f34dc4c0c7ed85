import type QRCode from 'qrcode';
import { isCurrentPassword, type Notice, queueNotice } from '../accounts/service.js';
import { recordEvent, type SecurityEventType } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  VALIDATION_FAILED,
  ValidationError,
} from '../core/errors.js';
import type { Database, User } from '../db/schema.js';
import { nowString } from '../tools/time.js';
import { lazyRequire } from '../tools/lazy-require.js';
import type { Transaction } from 'kysely';
import {
  admitAttempt,
  attemptFailed,
  newTotpSecret,
  replaceRecoveryCodes,
  totpOf,
  totpStep,
  twoStepOf,
  unusedRecoveryCodes,
} from './codes.js';
import { TWO_STEP_LIMITS } from './limits.js';

/**
 * The member's two-step settings: set up the authenticator app, turn it on with a first code (and
 * get the recovery codes), turn it off, make new recovery codes. Turning off and new codes ask
 * for the password; every change is logged and mailed to the member.
 */

const ALREADY_ON = 'Two-step sign-in is already on.';
const NOT_ON = 'Two-step sign-in is not on.';
const NOT_SET_UP = 'Set up the authenticator app first.';

export async function twoStepStatus(ctx: AppContext, user: User) {
  const row = await twoStepOf(ctx.db, user.id);
  const enabled = row?.enabled === 1;
  return {
    enabled,
    recoveryCodesLeft: enabled ? await unusedRecoveryCodes(ctx.db, user.id) : 0,
  };
}

/** A new seed, kept sealed as pending until a code confirms it; nothing is on yet. */
export async function setUpTotp(ctx: AppContext, user: User) {
  const row = await twoStepOf(ctx.db, user.id);
  if (row?.enabled === 1) throw new ValidationError(ALREADY_ON);
  const secret = newTotpSecret();
  const pending = ctx.box.seal(secret, user.id);
  const updated = nowString();
  await ctx.db
    .insertInto('two_step')
    .values({
      user_id: user.id,
      secret: null,
      pending_secret: pending,
      enabled: 0,
      last_step: null,
      failures: 0,
      locked_until: null,
      updated,
    })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ pending_secret: pending, updated }))
    .execute();
  const uri = totpOf(secret, ctx.settings.appName, user.email).toString();
  const qrSvg = await lazyRequire<typeof QRCode>('qrcode').toString(uri, {
    type: 'svg',
    margin: 2,
    errorCorrectionLevel: 'M',
  });
  return { secret, uri, qrSvg };
}

/** The pending seed plus a right code from it: two-step is on, and ten recovery codes are made. */
export async function enableTotp(
  ctx: AppContext,
  user: User,
  input: { code: string },
  client: Client,
): Promise<{ recoveryCodes: string[] }> {
  if (input.code.trim() === '') {
    throw new ValidationError(VALIDATION_FAILED, { code: fieldError.required() });
  }
  const row = await twoStepOf(ctx.db, user.id);
  if (row?.enabled === 1) throw new ValidationError(ALREADY_ON);
  const secret = row?.pending_secret ? ctx.box.open(row.pending_secret, user.id) : undefined;
  if (!row?.pending_secret || !secret) throw new ValidationError(NOT_SET_UP);
  // Counted before the check, like the second step of a sign-in (codes.ts).
  const attempt = await admitAttempt(ctx.db, user.id);
  const step = totpStep(secret, input.code);
  if (step === undefined) {
    await attemptFailed(ctx, user.id, client, attempt);
    throw new ValidationError(VALIDATION_FAILED, { code: fieldError.invalidCode() });
  }
  const recoveryCodes = await ctx.db.transaction().execute(async (trx) => {
    // Only the pending seed this code was checked against (a second setup meanwhile wins).
    const result = await trx
      .updateTable('two_step')
      .set({
        secret: row.pending_secret,
        pending_secret: null,
        enabled: 1,
        // The confirming code is spent: it cannot also pass a sign-in.
        last_step: step,
        failures: 0,
        locked_until: null,
        updated: nowString(),
      })
      .where('user_id', '=', user.id)
      .where('enabled', '=', 0)
      .where('pending_secret', '=', row.pending_secret!)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) {
      throw new ValidationError(VALIDATION_FAILED, { code: fieldError.invalidCode() });
    }
    const codes = await replaceRecoveryCodes(trx, ctx.box, user.id);
    const { appName } = ctx.settings;
    await notify(ctx, trx, user, client, 'totp_enabled', {
      en: {
        subject: `Two-step sign-in was turned on for your ${appName} account`,
        what: `Two-step sign-in with an authenticator app was turned on for your ${appName} account: signing in now also asks for a code.`,
      },
      de: {
        subject: `Die Zwei-Schritt-Anmeldung wurde für Ihr Konto bei ${appName} eingeschaltet`,
        what: `Die Zwei-Schritt-Anmeldung mit einer Authenticator-App wurde für Ihr Konto bei ${appName} eingeschaltet: Beim Anmelden wird jetzt auch nach einem Code gefragt.`,
      },
    });
    return codes;
  });
  ctx.mailQueued();
  return { recoveryCodes };
}

/** Turns two-step off (seed, recovery codes and lock gone); needs the password. */
export async function disableTotp(
  ctx: AppContext,
  user: User,
  input: { password: string },
  client: Client,
): Promise<void> {
  await checkPassword(ctx, user, input.password, client, 'totp_disabled');
  const row = await twoStepOf(ctx.db, user.id);
  if (row?.enabled !== 1) throw new ValidationError(NOT_ON);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('two_step').where('user_id', '=', user.id).execute();
    await trx.deleteFrom('recovery_codes').where('user_id', '=', user.id).execute();
    await trx.deleteFrom('mfa_challenges').where('user_id', '=', user.id).execute();
    const { appName } = ctx.settings;
    await notify(ctx, trx, user, client, 'totp_disabled', {
      en: {
        subject: `Two-step sign-in was turned off for your ${appName} account`,
        what: `Two-step sign-in was turned off for your ${appName} account: signing in now needs only the password.`,
      },
      de: {
        subject: `Die Zwei-Schritt-Anmeldung wurde für Ihr Konto bei ${appName} ausgeschaltet`,
        what: `Die Zwei-Schritt-Anmeldung wurde für Ihr Konto bei ${appName} ausgeschaltet: Zum Anmelden genügt jetzt das Passwort.`,
      },
    });
  });
  ctx.mailQueued();
}

/** Ten new recovery codes; the old ones stop working. Needs the password. */
export async function renewRecoveryCodes(
  ctx: AppContext,
  user: User,
  input: { password: string },
  client: Client,
): Promise<{ recoveryCodes: string[] }> {
  await checkPassword(ctx, user, input.password, client, 'recovery_codes_generated');
  const row = await twoStepOf(ctx.db, user.id);
  if (row?.enabled !== 1) throw new ValidationError(NOT_ON);
  const recoveryCodes = await ctx.db.transaction().execute(async (trx) => {
    const codes = await replaceRecoveryCodes(trx, ctx.box, user.id);
    const { appName } = ctx.settings;
    await notify(ctx, trx, user, client, 'recovery_codes_generated', {
      en: {
        subject: `New recovery codes for your ${appName} account`,
        what: `New recovery codes were made for your ${appName} account; the earlier ones no longer work.`,
      },
      de: {
        subject: `Neue Wiederherstellungscodes für Ihr Konto bei ${appName}`,
        what: `Für Ihr Konto bei ${appName} wurden neue Wiederherstellungscodes erstellt; die bisherigen funktionieren nicht mehr.`,
      },
    });
    return codes;
  });
  ctx.mailQueued();
  return { recoveryCodes };
}

/** The account's password, as the confirmation of a change: 400 `data.password` when wrong. */
async function checkPassword(
  ctx: AppContext,
  user: User,
  password: string,
  client: Client,
  type: SecurityEventType,
): Promise<void> {
  if (password === '') {
    throw new ValidationError(VALIDATION_FAILED, { password: fieldError.invalidPassword() });
  }
  await ctx.limiter.check(TWO_STEP_LIMITS.password, user.id);
  if (await isCurrentPassword(user.password_hash, password)) return;
  await recordEvent(ctx.db, {
    type,
    userId: user.id,
    client,
    outcome: 'failure',
    detail: { reason: 'wrong_password' },
  });
  assertNoFieldErrors({ password: fieldError.invalidPassword() }, VALIDATION_FAILED);
}

/** Logs the change and queues its notice, in the change's transaction. */
async function notify(
  ctx: AppContext,
  trx: Transaction<Database>,
  user: User,
  client: Client,
  type: SecurityEventType,
  mail: Omit<Notice, 'kind'>,
): Promise<void> {
  await recordEvent(trx, { type, userId: user.id, client });
  await queueNotice(ctx, trx, user, client, { kind: type, ...mail });
}
