import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { type ApiResponse, freshAddress } from '../support/http.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';
import { twoStepMember } from '../support/totp.js';

/**
 * Device cookies against the per-email failure ceiling (100 failures per email per 15 minutes,
 * from all addresses): wrong passwords from ten addresses fill it, and it then refuses the owner
 * too, unless the owner's browser shows the device cookie an earlier sign-in left it. Every
 * request comes from an address of its own (X-Forwarded-For with TRUST_PROXY=1), as a browser
 * would send the cookie back (the Cookie header).
 */
const TOO_MANY = { data: {}, message: MSG[429], status: 429 };
const WRONG = 'Wrong-password-123';
const COOKIE_PATH = '/api/collections/users/auth-with-password';

const ip = freshAddress;

/** The `gh_device` Set-Cookie line of an answer, if any. */
function setCookieLine(res: ApiResponse): string | undefined {
  const lines = res.headers['set-cookie'] ?? [];
  return lines.find((line) => line.startsWith('gh_device='));
}

/** What the browser sends back: `gh_device=…`. */
function cookieOf(res: ApiResponse): string {
  const line = setCookieLine(res);
  expect(line, `no device cookie in ${JSON.stringify(res.headers)}`).toBeDefined();
  return line!.split(';')[0]!;
}

describe.each(DATABASES)('device cookies and the per-email ceiling on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db, env: { RATE_LIMITS: 'on', TRUST_PROXY: '1' } });
  });
  afterAll(() => t?.close());

  const login = (email: string, password: string, cookie?: string, from = ip()) =>
    t.request('POST', PATHS.login, {
      headers: { 'X-Forwarded-For': from, ...(cookie ? { Cookie: cookie } : {}) },
      body: { identity: email, password },
    });

  /**
   * Wrong passwords for `email` from ten addresses, ten from each (one fewer from the first
   * `earlier` of them, for failures already counted): the ceiling of 100 is reached.
   */
  async function fillCeiling(email: string, earlier = 0): Promise<void> {
    const res = await Promise.all(
      Array.from({ length: 10 }, async (_, n) => {
        const from = ip();
        const out: ApiResponse[] = [];
        for (let i = n < earlier ? 1 : 0; i < 10; i++) {
          out.push(await login(email, WRONG, undefined, from));
        }
        return out;
      }),
    );
    expect(res.flat().map((r) => r.status)).toEqual(Array(100 - earlier).fill(400));
  }

  let owner: User;
  let ownerCookie = '';

  it('a right password sets the device cookie (HttpOnly, SameSite=Lax, a year, sent only to sign-in); a wrong one does not', async () => {
    owner = await t.verifiedUser();
    const wrong = await login(owner.email, WRONG);
    expect(wrong.status).toBe(400);
    expect(setCookieLine(wrong)).toBeUndefined();

    const right = await login(owner.email, owner.password);
    expect(right.status).toBe(200);
    const line = setCookieLine(right)!;
    expect(line).toMatch(/^gh_device=v1\.[\w-]+\.[a-z0-9]{15}\.[\w-]+; /);
    const attributes = line.split('; ').slice(1);
    expect(attributes.sort()).toEqual(
      ['HttpOnly', 'Max-Age=31536000', `Path=${COOKIE_PATH}`, 'SameSite=Lax'].sort(),
    );
    // No email in it; each sign-in gets a device id of its own.
    expect(line).not.toContain(owner.email);
    expect(cookieOf(await login(owner.email, owner.password))).not.toBe(cookieOf(right));
    ownerCookie = cookieOf(right);
  });

  it('after 100 wrong passwords from ten addresses, the owner signs in from a browser with the device cookie; without it, or with an altered one, the ceiling holds', async () => {
    await fillCeiling(owner.email, 1); // the wrong password above counted
    // The ceiling refuses everyone without the cookie, the owner included.
    const refused = await login(owner.email, owner.password);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(TOO_MANY);

    const signedIn = await login(owner.email, owner.password, ownerCookie);
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.body.record.id).toBe(owner.id);
    // A fresh cookie comes with it, and works as well.
    expect((await login(owner.email, owner.password, cookieOf(signedIn))).status).toBe(200);
    // Among the browser's other cookies, in any order.
    expect((await login(owner.email, owner.password, `theme=dark; ${ownerCookie}`)).status).toBe(
      200,
    );

    const [v, device, member, mac] = ownerCookie.slice('gh_device='.length).split('.');
    const altered = [
      `gh_device=${v}.${device}.${member}.${mac!.slice(1)}A`, // another signature
      `gh_device=${v}.${device!.slice(1)}A.${member}.${mac}`, // another device id
      `gh_device=${v}.${device}.${member}`, // no signature
      'gh_device=garbage',
    ];
    for (const cookie of altered) {
      expect((await login(owner.email, owner.password, cookie)).status, cookie).toBe(429);
    }
  });

  it('the cookie speaks only for its member, and its own failures are limited: 10 per 15 minutes', async () => {
    // Another account at its ceiling: the owner's cookie does not let anyone guess there.
    const other = await t.verifiedUser();
    await fillCeiling(other.email);
    expect((await login(other.email, other.password, ownerCookie)).status).toBe(429);
    expect((await login(other.email, WRONG, ownerCookie)).status).toBe(429);

    // Wrong passwords with the owner's cookie, each from an address of its own (so no address
    // reaches its own limit): the device's limit stops the eleventh, and it then refuses even the
    // right password from that browser.
    const cookie = ownerCookie;
    const failures: number[] = [];
    for (let i = 0; i < 10; i++) failures.push((await login(owner.email, WRONG, cookie)).status);
    expect(failures).toEqual(Array(10).fill(400));
    const locked = await login(owner.email, WRONG, cookie);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual(TOO_MANY);
    expect((await login(owner.email, owner.password, cookie)).status).toBe(429);
  });

  it('with two-step sign-in, the second step sets the cookie; with it the right password reaches the second step despite the ceiling', async () => {
    const m = await twoStepMember(t);
    const from = ip();
    const first = await login(m.email, m.password, undefined, from);
    expect(first.status).toBe(401);
    expect(setCookieLine(first)).toBeUndefined();
    const second = await t.request('POST', PATHS.authWithTotp, {
      headers: { 'X-Forwarded-For': from },
      body: { mfaId: first.body.mfaId, code: m.recoveryCodes[0] },
    });
    expect(second.status, second.text).toBe(200);
    const cookie = cookieOf(second);

    await fillCeiling(m.email);
    expect((await login(m.email, m.password)).status).toBe(429);
    const again = await login(m.email, m.password, cookie);
    expect(again.status, again.text).toBe(401);
    expect(again.body.mfaId).toEqual(expect.any(String));
  });

  it('with an https APP_URL the cookie is also Secure', async () => {
    const initial = await t.initialUser();
    await t.restart({ APP_URL: 'https://app.test' });
    const res = await login(initial.email, initial.password);
    expect(res.status, res.text).toBe(200);
    expect(setCookieLine(res)!.split('; ')).toContain('Secure');
  });
});
