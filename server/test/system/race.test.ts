import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, MSG, PATHS } from '../support/contract.js';
import type { Json } from '../support/http.js';
import {
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
} from '../support/server.js';
import { mfaIdFor, totpCode, twoStepMember } from '../support/totp.js';

const N = 8;

describe.each(DATABASES)('races on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
    await t.initialUser();
  });
  afterAll(() => t?.close());

  it(`${N} parallel sign-ups with one code: exactly one succeeds, one account exists`, async () => {
    const code = await t.newCode();
    const people = Array.from({ length: N }, () => ({
      email: uniqueEmail('race'),
      password: strongPassword(),
    }));
    const results = await Promise.all(people.map((p) => t.signUp(code, p.email, p.password)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok, results.map((r) => `${r.status} ${r.text}`).join('\n')).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        data: {
          inviteCode: {
            code: 'validation_invalid_invite_code',
            message: 'Invalid or already used invite code.',
          },
        },
        message: MSG.create,
        status: 400,
      });
    }
    const logins = await Promise.all(people.map((p) => t.login(p.email, p.password)));
    expect(logins.filter((r) => r.status === 200)).toHaveLength(1);
    const winner = people[results.indexOf(ok[0]!)]!;
    expect((await t.login(winner.email, winner.password)).status).toBe(200);
  });

  it('parallel sign-ups of one email with different codes: one account, the rest not_unique', async () => {
    const email = uniqueEmail('same');
    const codes = await Promise.all(Array.from({ length: 4 }, () => t.newCode()));
    const password = strongPassword();
    const results = await Promise.all(codes.map((c) => t.signUp(c, email, password)));
    expect(
      results.filter((r) => r.status === 200),
      results.map((r) => r.text).join('\n'),
    ).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body.data).toEqual({
        email: { code: 'validation_not_unique', message: 'Value must be unique.' },
      });
    }
    // The losers' codes were not consumed.
    const loserCodes = codes.filter((_, i) => results[i]!.status !== 200);
    for (const c of loserCodes) {
      const res = await t.signUp(c, uniqueEmail('after'), strongPassword());
      expect(res.status, res.text).toBe(200);
    }
  });

  it('one reset token used twice in parallel: exactly one 204, one password wins', async () => {
    const u = await t.verifiedUser();
    const token = await t.resetToken(u.email);
    const passwords = ['Parallel-Alpha-101', 'Parallel-Bravo-202', 'Parallel-Charlie-303'];
    const results = await Promise.all(
      passwords.map((p) => t.post(PATHS.confirmReset, { token, password: p, passwordConfirm: p })),
    );
    expect(
      results.filter((r) => r.status === 204),
      results.map((r) => r.text).join('\n'),
    ).toHaveLength(1);
    const logins = await Promise.all(passwords.map((p) => t.login(u.email, p)));
    expect(logins.filter((r) => r.status === 200)).toHaveLength(1);
    expect(logins.findIndex((r) => r.status === 200)).toBe(
      results.findIndex((r) => r.status === 204),
    );
  });

  it('parallel verification requests for one account: one mail', async () => {
    const u = await t.unverifiedUser();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => t.post(PATHS.requestVerification, { email: u.email })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(204));
    await t.mail.waitForMailTo(u.email);
    await new Promise((r) => setTimeout(r, 600));
    expect(t.mail.countTo(u.email)).toBe(1);
  });

  it('30 wrong second-step codes at once for one member: at most 5 are checked, then the lock holds', async () => {
    const m = await twoStepMember(t);
    const mfaId = await mfaIdFor(t, m);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.post(PATHS.authWithTotp, { mfaId, code: String(100_000 + i * 7919) }),
      ),
    );
    const statuses = results.map((r) => r.status);
    const checked = results.filter((r) => r.status === 400);
    expect(checked.length, statuses.join(' ')).toBeLessThanOrEqual(5);
    for (const r of checked) {
      expect(r.body).toEqual(envelope(400, MSG.validate, { code: 'validation_invalid_code' }));
    }
    for (const r of results.filter((x) => x.status !== 400)) {
      expect(r.body).toEqual(envelope(429, MSG[429]));
    }
    // The security log agrees: one wrong code per 400, and the lock once.
    const log = await t.get(`${PATHS.securityEvents}?perPage=100`, m.token);
    const items = log.body.items as { type: string; outcome: string; detail: Json }[];
    const wrong = items.filter((e) => e.type === 'sign_in' && e.detail.reason === 'wrong_code');
    expect(wrong).toHaveLength(checked.length);
    expect(items.filter((e) => e.type === 'second_step_locked')).toHaveLength(1);
    // Locked: even the right code is refused.
    const right = await t.post(PATHS.authWithTotp, {
      mfaId: await mfaIdFor(t, m),
      code: totpCode(m.secret, 1),
    });
    expect(right.status).toBe(429);
  });
});
