import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../support/contract.js';
import { jwtPayload } from '../support/http.js';
import { DATABASES, startTestServer, type TestServer } from '../support/server.js';

/**
 * A device whose session ended elsewhere hears why on its next request: the 401's `reason`
 * (docs/api.md), which its sign-in screen puts in words.
 */

const NEW_PASSWORD = 'Another-Password-42';

describe.each(DATABASES)('why a session ended, on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
  });
  afterAll(() => t?.close());

  /** A verified member on two devices: a and b. */
  async function twoDevices() {
    const u = await t.verifiedUser();
    const b = (await t.login(u.email, u.password)).body.token as string;
    return { ...u, a: u.token, b };
  }

  const refresh = (token: string) => t.post(PATHS.refresh, {}, token);

  it('Sign Out on another device: signed-out', async () => {
    const m = await twoDevices();
    const sid = jwtPayload(m.b).sid as string;
    expect((await t.del(PATHS.session(sid), m.a)).status).toBe(204);
    const res = await refresh(m.b);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: 401, reason: 'signed-out' });
    // The device that stayed is fine.
    expect((await refresh(m.a)).status).toBe(200);
  });

  it('a password change elsewhere: password-changed', async () => {
    const m = await twoDevices();
    const res = await t.patch(
      PATHS.record(m.id),
      { oldPassword: m.password, password: NEW_PASSWORD, passwordConfirm: NEW_PASSWORD },
      m.a,
    );
    expect(res.status, res.text).toBe(200);
    const other = await refresh(m.b);
    expect(other.status).toBe(401);
    expect(other.body.reason).toBe('password-changed');
  });

  it('disabled by an operator: disabled', async () => {
    const root = await t.initialUser();
    const m = await twoDevices();
    const res = await t.post(`/api/admin/members/${m.id}/disable`, {}, root.token);
    expect(res.status, res.text).toBe(200);
    const answer = await refresh(m.b);
    expect(answer.status).toBe(401);
    expect(answer.body.reason).toBe('disabled');
  });

  it('no token, a token of no one, or a made-up one: no reason beyond what a token shows', async () => {
    const guest = await t.post(PATHS.refresh, {});
    expect(guest.status).toBe(401);
    expect(guest.body.reason).toBeUndefined();
    const junk = await refresh('not-a-token');
    expect(junk.body.reason).toBeUndefined();
    // A token rewritten to name someone else: it does not verify, so it learns nothing more than
    // that its key is not the member's.
    const m = await twoDevices();
    const [head, , sig] = m.b.split('.');
    const claims = { ...jwtPayload(m.b), id: 'nosuchmember123' };
    const forged = `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    expect((await refresh(forged)).body.reason).toBeUndefined();
  });
});
