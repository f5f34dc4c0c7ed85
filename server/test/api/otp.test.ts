import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxMail } from '../../src/db/schema.js';
import { MSG, PATHS, envelope, subjects } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import type { ReceivedMail } from '../support/mail.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import {
  DATABASES,
  startTestServer,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';
import { totpCode, twoStepMember } from '../support/totp.js';
import { freshAddress } from '../support/http.js';

/**
 * Sign-in with a code by email (PocketBase's OTP) through the official SDK: requestOTP(email)
 * answers an otpId for any address and mails an 8-digit code only to an account; authWithOTP(otpId,
 * code) signs in through the sign-in gate, once per code, within 3 minutes and 5 attempts.
 */

const S = subjects();
const INVALID = envelope(400, MSG.otpInvalid);
const ATTEMPTS_SPENT = envelope(429, MSG.otpAttemptsSpent);

/** The code in a sign-in code mail: 8 digits on a line of their own. */
function codeIn(mail: ReceivedMail): string {
  const code = /^(\d{8})\r?$/m.exec(mail.text)?.[1];
  if (!code) throw new Error(`no code in: ${mail.text}`);
  return code;
}

/** Asks for a code for `email` through the SDK; the otpId, and the code once its mail is in. */
async function requestCode(t: TestServer, email: string): Promise<{ otpId: string; code: string }> {
  const before = new Set(t.mail.filter(() => true));
  const { otpId } = await sdkClient(t.url).collection('users').requestOTP(email);
  const mail = await t.mail.waitFor(
    (m) => !before.has(m) && m.to.includes(email) && m.subject === S.signInCode,
    5000,
    `a sign-in code mail to ${email}`,
  );
  return { otpId, code: codeIn(mail) };
}

/** A stored date (`2026-11-25 10:00:00.000Z`) in milliseconds. */
const time = (stored: string) => Date.parse(stored.replace(' ', 'T'));

const authWithOtp = (t: TestServer, otpId: string, password: string) =>
  t.post(PATHS.authWithOtp, { otpId, password });

/** A code of the same length that is not `code`. */
const wrong = (code: string) => code.replace(/^./, (d) => String((Number(d) + 1) % 10));

describe.each(DATABASES)('sign-in with a code by email on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
    await t.initialUser();
  });
  afterAll(() => t?.close());

  const eventsOf = (userId: string) =>
    withDatabase(t, (d) =>
      d
        .selectFrom('security_events')
        .select(['type', 'outcome', 'detail'])
        .where('user_id', '=', userId)
        .orderBy('created')
        .execute(),
    );
  async function waitForRow(userId: string, ok: (row: OutboxMail) => boolean) {
    for (let i = 0; i < 100; i++) {
      const rows = await withDatabase(t, (d) =>
        d
          .selectFrom('outbox')
          .selectAll()
          .where('user_id', '=', userId)
          .where('kind', '=', 'signInCode')
          .execute(),
      );
      const row = rows.find(ok);
      if (row) return row;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no such code mail in the outbox of ${userId}`);
  }
  const sessionsOf = (userId: string) =>
    withDatabase(t, (d) =>
      d.selectFrom('sessions').select('id').where('user_id', '=', userId).execute(),
    );

  it('auth-methods offers it: otp enabled, 180 seconds', async () => {
    const methods = await sdkClient(t.url).collection('users').listAuthMethods();
    expect(methods.otp).toEqual({ enabled: true, duration: 180 });
  });

  it('the SDK asks for a code, the mail carries it (text and HTML), and the code signs in', async () => {
    const u = await t.verifiedUser();
    const pb = sdkClient(t.url);
    const { otpId } = await pb.collection('users').requestOTP(u.email);
    expect(otpId).toMatch(/^[a-z0-9]{15}$/);

    const mail = await t.mail.waitForMailTo(u.email, S.signInCode);
    const code = codeIn(mail);
    expect(mail.html).toContain(`>${code}</p>`);
    expect(mail.text).toContain('expires in 3 minutes');
    // Stored as a keyed digest, for 3 minutes.
    const stored = await withDatabase(t, (d) =>
      d.selectFrom('email_codes').selectAll().where('id', '=', otpId).executeTakeFirstOrThrow(),
    );
    expect(stored.code_hash).not.toContain(code);
    expect(stored.email).toBe(u.email);
    expect(time(stored.expires) - time(stored.created)).toBe(180_000);

    const auth = await pb.collection('users').authWithOTP(otpId, code);
    expect(auth.record.email).toBe(u.email);
    expect(pb.authStore.isValid).toBe(true);
    expect(pb.authStore.record?.id).toBe(u.id);
    const refreshed = await t.post(PATHS.refresh, {}, auth.token);
    expect(refreshed.status, refreshed.text).toBe(200);

    const events = await eventsOf(u.id);
    expect(events.filter((e) => e.type === 'otp_requested')).toHaveLength(1);
    const signIn = events.filter((e) => e.type === 'sign_in').at(-1)!;
    expect(signIn.outcome).toBe('success');
    expect(JSON.parse(signIn.detail)).toEqual({ method: 'otp' });
  });

  it('the mail dies with its code: still queued when the code expires, it is never sent', async () => {
    const u = await t.verifiedUser();
    await t.mail.stop();
    let otpId = '';
    try {
      ({ otpId } = await sdkClient(t.url).collection('users').requestOTP(u.email));
      const queued = await waitForRow(u.id, (r) => r.attempts >= 1);
      const code = await withDatabase(t, (d) =>
        d.selectFrom('email_codes').selectAll().where('id', '=', otpId).executeTakeFirstOrThrow(),
      );
      expect(queued.kind).toBe('signInCode');
      expect(queued.expires_at).toBe(code.expires);
      // Three minutes pass.
      const past = new Date(Date.now() - 1000).toISOString().replace('T', ' ');
      await withDatabase(t, (d) =>
        d.updateTable('outbox').set({ expires_at: past }).where('id', '=', queued.id).execute(),
      );
    } finally {
      await t.mail.start();
    }
    const expired = await waitForRow(u.id, (r) => r.expired_at !== null);
    expect(expired).toMatchObject({ text_body: '', html_body: '' });
    await t.mail.expectNone(
      (m) => m.to.includes(u.email) && m.subject === S.signInCode,
      500,
      'the expired code mail',
    );
  });

  it('a wrong code is 400 "Invalid or expired OTP." and leaves the code usable', async () => {
    const u = await t.verifiedUser();
    const { otpId, code } = await requestCode(t, u.email);
    const res = await authWithOtp(t, otpId, wrong(code));
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID);
    const failure = (await eventsOf(u.id)).filter((e) => e.type === 'sign_in').at(-1)!;
    expect(failure.outcome).toBe('failure');
    expect(JSON.parse(failure.detail)).toEqual({ method: 'otp', reason: 'wrong_code', otpId });
    expect((await authWithOtp(t, otpId, code)).status).toBe(200);
  });

  it('a code works once', async () => {
    const u = await t.verifiedUser();
    const { otpId, code } = await requestCode(t, u.email);
    expect((await authWithOtp(t, otpId, code)).status).toBe(200);
    const again = await authWithOtp(t, otpId, code);
    expect(again.status).toBe(400);
    expect(again.body).toEqual(INVALID);
  });

  it('an expired code is refused like a wrong one', async () => {
    const u = await t.verifiedUser();
    const { otpId, code } = await requestCode(t, u.email);
    const past = new Date(Date.now() - 1000).toISOString().replace('T', ' ');
    await withDatabase(t, (d) =>
      d.updateTable('email_codes').set({ expires: past }).where('id', '=', otpId).execute(),
    );
    const res = await authWithOtp(t, otpId, code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID);
    expect(await sessionsOf(u.id)).toHaveLength(1); // the one from verifiedUser()
  });

  it('the sixth attempt at a code is 429, even with the right code', async () => {
    const u = await t.verifiedUser();
    const { otpId, code } = await requestCode(t, u.email);
    for (let i = 0; i < 5; i++) {
      const res = await authWithOtp(t, otpId, wrong(code));
      expect(res.status, `attempt ${i + 1}`).toBe(400);
      expect(res.body).toEqual(INVALID);
    }
    const sixth = await authWithOtp(t, otpId, code);
    expect(sixth.status).toBe(429);
    expect(sixth.body).toEqual(ATTEMPTS_SPENT);
    // A new code works.
    const next = await requestCode(t, u.email);
    expect((await authWithOtp(t, next.otpId, next.code)).status).toBe(200);
  });

  it('an unknown address gets an otpId too, and no mail; the otpId signs nobody in', async () => {
    const email = uniqueEmail('nobody');
    const { otpId } = await sdkClient(t.url).collection('users').requestOTP(email);
    expect(otpId).toMatch(/^[a-z0-9]{15}$/);
    await t.mail.expectNoMailTo(email);
    for (const guess of ['12345678', '00000000']) {
      const res = await authWithOtp(t, otpId, guess);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID);
    }
  });

  it('a disabled account gets an otpId and no mail; a code sent before it was disabled is 403', async () => {
    const operator = await t.tokenFor(await t.initialUser());
    const u = await t.verifiedUser();
    const { otpId, code } = await requestCode(t, u.email);
    const disabled = await t.post(`/api/admin/members/${u.id}/disable`, {}, operator);
    expect(disabled.status, disabled.text).toBe(200);

    const res = await authWithOtp(t, otpId, code);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('This account has been disabled.');
    expect(await sessionsOf(u.id)).toEqual([]);

    const before = new Set(t.mail.filter(() => true));
    const again = await sdkClient(t.url).collection('users').requestOTP(u.email);
    expect(again.otpId).toMatch(/^[a-z0-9]{15}$/);
    await t.mail.expectNone(
      (m) => m.to.includes(u.email) && !before.has(m),
      500,
      'mail to the disabled member',
    );
  });

  it('two-step on: the code answers 401 with an mfaId, and the authenticator code completes the sign-in', async () => {
    const m = await twoStepMember(t);
    const { otpId, code } = await requestCode(t, m.email);
    const pb = sdkClient(t.url);
    const err = await sdkError(pb.collection('users').authWithOTP(otpId, code));
    expect(err.status).toBe(401);
    expect(err.response.message).toBe(MSG.secondStep);
    const mfaId = err.response.mfaId as string;
    expect(mfaId).toMatch(/^[a-z0-9]{15}$/);
    expect(pb.authStore.isValid).toBe(false);

    const done = await t.post(PATHS.authWithTotp, { mfaId, code: totpCode(m.secret, 1) });
    expect(done.status, done.text).toBe(200);
    expect(done.body.record.id).toBe(m.id);
    const events = await eventsOf(m.id);
    expect(
      events.some(
        (e) => e.type === 'second_step_required' && JSON.parse(e.detail).method === 'otp',
      ),
    ).toBe(true);
  });

  it('on an unverified account the code verifies it and removes the ways in set before: the password, a pre-claimed passkey, every session', async () => {
    // Someone with a spare invite signed up with an address that is not theirs, and added a
    // passkey (before passkeys needed a verified address: put in the database as such).
    const squatter = await t.unverifiedUser();
    const squatterToken = (await t.login(squatter.email, squatter.password)).body.token as string;
    const now = new Date().toISOString().replace('T', ' ');
    await withDatabase(t, (d) =>
      d
        .insertInto('passkeys')
        .values({
          id: `pk${randomInt(1e9, 1e10)}`.slice(0, 15),
          user_id: squatter.id,
          credential_id: `cred-${squatter.id}`,
          public_key: 'AAAA',
          counter: 0,
          transports: '[]',
          name: 'Not yours',
          created: now,
          last_used: null,
        })
        .execute(),
    );

    // The address's owner signs in with a code.
    const { otpId, code } = await requestCode(t, squatter.email);
    const pb = sdkClient(t.url);
    const auth = await pb.collection('users').authWithOTP(otpId, code);
    expect(auth.record.verified).toBe(true);

    const left = await withDatabase(t, async (d) => ({
      passkeys: await d
        .selectFrom('passkeys')
        .select('id')
        .where('user_id', '=', squatter.id)
        .execute(),
      sessions: (
        await d.selectFrom('sessions').select('id').where('user_id', '=', squatter.id).execute()
      ).length,
      user: await d
        .selectFrom('users')
        .select(['verified', 'password_set'])
        .where('id', '=', squatter.id)
        .executeTakeFirstOrThrow(),
    }));
    expect(left).toEqual({ passkeys: [], sessions: 1, user: { verified: 1, password_set: 0 } });
    expect((await t.post(PATHS.refresh, {}, squatterToken)).status).toBe(401);
    expect((await t.login(squatter.email, squatter.password)).status).toBe(400);
    expect((await t.post(PATHS.refresh, {}, auth.token)).status).toBe(200);

    const notice = await t.mail.waitForMailTo(squatter.email, S.confirmedByCode);
    expect(notice.text).toContain('were removed');
    const verified = (await eventsOf(squatter.id)).find((e) => e.type === 'email_verified')!;
    expect(JSON.parse(verified.detail)).toEqual({
      method: 'otp',
      sessionsEnded: 1,
      passwordRemoved: true,
      passkeysRemoved: 1,
      providersRemoved: 0,
      twoStepRemoved: false,
    });
  });

  it('a code sent to an address the account no longer has is refused', async () => {
    const u = await t.verifiedUser();
    const { otpId, code } = await requestCode(t, u.email);
    await withDatabase(t, (d) =>
      d
        .updateTable('users')
        .set({ email: uniqueEmail('moved') })
        .where('id', '=', u.id)
        .execute(),
    );
    if (db === 'postgres') await new Promise((r) => setTimeout(r, 1100)); // the read cache's notice
    const res = await authWithOtp(t, otpId, code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(INVALID);
  });

  it('checks its fields as PocketBase does', async () => {
    const cases: Array<[string, unknown, number, unknown]> = [
      [PATHS.requestOtp, {}, 400, envelope(400, MSG.validate, { email: 'validation_required' })],
      [
        PATHS.requestOtp,
        { email: 'nope@' },
        400,
        envelope(400, MSG.validate, { email: 'validation_is_email' }),
      ],
      [PATHS.requestOtp, { email: 5 }, 400, envelope(400, MSG.load)],
      [
        PATHS.authWithOtp,
        {},
        400,
        envelope(400, MSG.validate, {
          otpId: 'validation_required',
          password: 'validation_required',
        }),
      ],
      [PATHS.authWithOtp, { otpId: 'x', password: 12345678 }, 400, envelope(400, MSG.load)],
    ];
    for (const [path, body, status, answer] of cases) {
      const res = await t.post(path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(res.body).toEqual(answer);
    }
    const long = await t.post(PATHS.authWithOtp, {
      otpId: 'x'.repeat(256),
      password: '1'.repeat(72),
    });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({
      data: {
        otpId: {
          code: 'validation_length_out_of_range',
          message: 'The length must be between 1 and 255.',
          params: { min: 1, max: 255 },
        },
        password: {
          code: 'validation_length_out_of_range',
          message: 'The length must be between 1 and 71.',
          params: { min: 1, max: 71 },
        },
      },
      message: MSG.validate,
      status: 400,
    });
  });
});

const ip = freshAddress;

describe.each(DATABASES)('sign-in code limits (RATE_LIMITS=on) on %s', (db) => {
  let t: TestServer;
  let u: User;
  beforeAll(async () => {
    t = await startTestServer({ db, env: { RATE_LIMITS: 'on', TRUST_PROXY: '1' } });
    await t.initialUser();
    u = await t.verifiedUser();
  });
  afterAll(() => t?.close());

  const from = (address: string) => ({ headers: { 'X-Forwarded-For': address } });
  const request = (email: string, address = ip()) =>
    t.request('POST', PATHS.requestOtp, { ...from(address), body: { email } });
  const attempt = (otpId: string, password: string, address = ip()) =>
    t.request('POST', PATHS.authWithOtp, { ...from(address), body: { otpId, password } });

  it('5 requests per address in 15 minutes, whether or not it has an account; 5 per minute per network', async () => {
    for (const email of [uniqueEmail('limit'), (await t.verifiedUser()).email]) {
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push((await request(email)).status);
      expect(answers, email).toEqual([200, 200, 200, 200, 200, 429]);
    }
    const network = ip();
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await request(uniqueEmail('net'), network)).status);
    expect(answers).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('10 wrong codes per member in 15 minutes, over all their codes: then 429, even for the right code', async () => {
    const codes: { otpId: string; code: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const before = new Set(t.mail.filter(() => true));
      const res = await request(u.email);
      expect(res.status).toBe(200);
      const mail = await t.mail.waitFor(
        (m) => !before.has(m) && m.to.includes(u.email) && m.subject === S.signInCode,
      );
      codes.push({ otpId: res.body.otpId, code: codeIn(mail) });
    }
    for (const { otpId, code } of codes.slice(0, 2)) {
      for (let i = 0; i < 5; i++) expect((await attempt(otpId, wrong(code))).status).toBe(400);
    }
    const last = codes[2]!;
    const refused = await attempt(last.otpId, last.code);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(envelope(429, MSG[429]));
  });
});
