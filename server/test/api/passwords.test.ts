import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/accounts/passwords.js';
import { MSG, PATHS, subjects } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import {
  APP_URL,
  DATABASES,
  startTestServer,
  uniqueEmail,
  type TestServer,
} from '../support/server.js';

/**
 * Passwords are NFKC-normalised before they are checked and hashed; context words (the app name,
 * the member's email and its local part) are refused as too common; a reset sends a notice mail
 * (docs/decisions/0018-password-normalisation-and-context-words.md).
 */
const S = subjects();
const CHANGED = 'Your Gatehouse password was changed';
/** "Crème-Brûlée-Ångström-7": the same password composed (NFC) and decomposed (NFD). */
const NFC = 'Cr\u00e8me-Br\u00fbl\u00e9e-\u00c5ngstr\u00f6m-7';
const NFD = NFC.normalize('NFD');

describe.each(DATABASES)('password normalisation, context words and notices on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
    await t.initialUser();
  });
  afterAll(() => t?.close());

  const signUpWith = async (password: string, email = uniqueEmail('pw')) =>
    t.signUp(await t.newCode(), email, password);

  async function confirmReset(email: string, password: string, headers = {}) {
    const token = await t.resetToken(email);
    return t.request('POST', PATHS.confirmReset, {
      headers,
      body: { token, password, passwordConfirm: password },
    });
  }

  it('a password typed in NFC at sign-up works typed in NFD at sign-in, and the reverse', async () => {
    expect(NFD).not.toBe(NFC);
    const a = uniqueEmail('nfc');
    expect((await signUpWith(NFC, a)).status).toBe(200);
    expect((await t.login(a, NFD)).status).toBe(200);
    expect((await t.login(a, NFC)).status).toBe(200);
    const b = uniqueEmail('nfd');
    expect((await signUpWith(NFD, b)).status).toBe(200);
    expect((await t.login(b, NFC)).status).toBe(200);
    // passwordConfirm in the other form is the same password.
    const c = uniqueEmail('confirm');
    const res = await t.post(PATHS.records, {
      email: c,
      password: NFC,
      passwordConfirm: NFD,
      inviteCode: await t.newCode(),
    });
    expect(res.status, res.text).toBe(200);
  });

  it('a password reset in NFD works typed in NFC at sign-in', async () => {
    const u = await t.verifiedUser();
    const res = await confirmReset(u.email, NFD);
    expect(res.status, res.text).toBe(204);
    expect((await t.login(u.email, NFC)).status).toBe(200);
    expect((await t.login(u.email, u.password)).status).toBe(400);
  });

  it('the length rule counts the normalised password', async () => {
    // 8 code points as typed (4 letters, each followed by a combining accent), 4 once composed.
    const shrinks = 'a\u0301e\u0301i\u0301o\u0301';
    expect([...shrinks]).toHaveLength(8);
    const short = await signUpWith(shrinks);
    expect(short.status, short.text).toBe(400);
    expect(short.body.data.password.code).toBe('validation_min_text_constraint');
    // 7 code points as typed ("ﬃ" is one), 9 once normalised ("ffi").
    const grows = '\ufb03Qz7-k9';
    expect([...grows]).toHaveLength(7);
    const long = await signUpWith(grows);
    expect(long.status, long.text).toBe(200);
  });

  it('context words are refused as too common: app name, email, local part, plus up to 4 digits or marks', async () => {
    const email = uniqueEmail('context');
    const local = email.split('@')[0]!;
    for (const password of [
      'Gatehouse',
      'GATEHOUSE2026',
      'gatehouse!',
      'Gatehouse#1',
      email,
      email.toUpperCase(),
      local,
      `${local}1234`,
      `${local}.`,
    ]) {
      const res = await signUpWith(password, email);
      expect(res.status, `"${password}": ${res.text}`).toBe(400);
      expect(res.body.data, password).toEqual({
        password: {
          code: 'validation_password_too_common',
          message: 'This password is too common. Choose one that is harder to guess.',
        },
      });
    }
    // More than a context word with a short ending is allowed.
    for (const password of ['Gatehouse12345', 'Gatehouse-Tidal-Lantern', `my-${local}`]) {
      const res = await signUpWith(password);
      expect(res.status, `"${password}": ${res.text}`).toBe(200);
    }
  });

  it('a reset to the email or its local part is refused as too common; the token survives', async () => {
    const u = await t.verifiedUser();
    const local = u.email.split('@')[0]!;
    const token = await t.resetToken(u.email);
    for (const password of [u.email, `${local}99`, 'Gatehouse2026']) {
      const res = await t.post(PATHS.confirmReset, { token, password, passwordConfirm: password });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ message: MSG.validate });
      expect(res.body.data.password.code).toBe('validation_password_too_common');
    }
    const ok = await t.post(PATHS.confirmReset, {
      token,
      password: 'Fresh-Orchard-2046',
      passwordConfirm: 'Fresh-Orchard-2046',
    });
    expect(ok.status, ok.text).toBe(204);
  });

  it('a reset sends a notice: when, from which IP and browser, and the forgot-password link', async () => {
    const u = await t.verifiedUser();
    const before = new Date();
    const browser = 'Mozilla/5.0 (X11; Linux x86_64) NoticeTest/1.0';
    const res = await confirmReset(u.email, 'Fresh-Orchard-2046', { 'User-Agent': browser });
    expect(res.status, res.text).toBe(204);
    const mail = await t.mail.waitForMailTo(u.email, CHANGED);
    const minute = before.toISOString().slice(0, 16).replace('T', ' ');
    const later = new Date(before.getTime() + 60_000).toISOString().slice(0, 16).replace('T', ' ');
    expect(
      [minute, later].some((m) => mail.text.includes(`${m} UTC`)),
      mail.text,
    ).toBe(true);
    expect(mail.text).toContain('127.0.0.1');
    expect(mail.text).toContain(browser);
    expect(mail.text).toContain(`${APP_URL}/forgot-password`);
    expect(mail.text).not.toMatch(/token=/);
    expect(mail.html).toContain(`href="${APP_URL}/forgot-password"`);
    expect(mail.html).toContain('NoticeTest/1.0');
    // A refused reset (token already used) sends none.
    const again = await t.post(PATHS.confirmReset, {
      token: 'not-a-token',
      password: 'Fresh-Orchard-2047',
      passwordConfirm: 'Fresh-Orchard-2047',
    });
    expect(again.status).toBe(400);
    await new Promise((r) => setTimeout(r, 400));
    expect(t.mail.countTo(u.email, CHANGED)).toBe(1);
    expect(t.mail.countTo(u.email, S.reset)).toBe(1);
  });

  it('a hash made from an un-normalised password still signs in, and is rehashed in NFKC form', async () => {
    // Full-width letters and circled digits: NFKC turns them into "Tidal-Lantern-12".
    const typed = '\uff34\uff49\uff44\uff41\uff4c-Lantern-\u2460\u2461';
    const normal = typed.normalize('NFKC');
    expect(normal).toBe('Tidal-Lantern-12');
    const u = await t.verifiedUser();
    const legacy = await hashPassword(typed);
    await withDatabase(t, (d) =>
      d.updateTable('users').set({ password_hash: legacy }).where('id', '=', u.id).execute(),
    );
    const hashOf = () =>
      withDatabase(t, async (d) => {
        const row = await d
          .selectFrom('users')
          .select('password_hash')
          .where('id', '=', u.id)
          .executeTakeFirstOrThrow();
        return row.password_hash;
      });

    const res = await t.login(u.email, typed);
    expect(res.status, res.text).toBe(200);
    const rehashed = await hashOf();
    expect(rehashed).not.toBe(legacy);
    expect(await verifyPassword(rehashed, normal)).toBe(true);
    // Now any form of it works, and a wrong password still fails.
    expect((await t.login(u.email, normal)).status).toBe(200);
    expect((await t.login(u.email, typed)).status).toBe(200);
    expect((await t.login(u.email, '\uff34\uff49\uff44\uff41\uff4c-Lantern-\u2460')).status).toBe(
      400,
    );
    expect(await hashOf()).toBe(rehashed);
  });
});
