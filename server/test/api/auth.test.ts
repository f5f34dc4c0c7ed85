import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAuthResponse, expectRecord, expectToken } from '../support/checks.js';
import { MSG, PATHS } from '../support/contract.js';
import { jwtPayload, tamperSignature, withPayload } from '../support/http.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';
import { scenarios, type Scenario } from '../support/table.js';

const failed = { data: {}, message: MSG.auth, status: 400 };

describe.each(DATABASES)('auth-with-password and auth-refresh on %s', (db) => {
  let t: TestServer;
  let alice: User; // verified
  let bob: User; // signed up, never verified
  beforeAll(async () => {
    t = await startTestServer({ db });
    alice = await t.verifiedUser();
    bob = await t.unverifiedUser();
  });
  afterAll(() => t?.close());

  const rows: Scenario[] = [
    {
      name: 'missing identity and password: both validation_required',
      method: 'POST',
      path: PATHS.login,
      body: {},
      status: 400,
      error: {
        message: MSG.validate,
        fields: { identity: 'validation_required', password: 'validation_required' },
      },
    },
    {
      name: 'empty identity and password: both validation_required',
      method: 'POST',
      path: PATHS.login,
      body: { identity: '', password: '' },
      status: 400,
      error: {
        message: MSG.validate,
        fields: { identity: 'validation_required', password: 'validation_required' },
      },
    },
    {
      name: 'identity only: password validation_required',
      method: 'POST',
      path: PATHS.login,
      body: () => ({ identity: alice.email }),
      status: 400,
      error: { message: MSG.validate, fields: { password: 'validation_required' } },
    },
    {
      name: 'unknown email: Failed to authenticate.',
      method: 'POST',
      path: PATHS.login,
      body: { identity: 'nobody-here@example.com', password: 'Some-long-password-1' },
      status: 400,
      json: failed,
    },
    {
      name: 'wrong password: the same Failed to authenticate.',
      method: 'POST',
      path: PATHS.login,
      body: () => ({ identity: alice.email, password: 'Wrong-password-123' }),
      status: 400,
      json: failed,
    },
    {
      name: 'identity that is not an email: the same Failed to authenticate.',
      method: 'POST',
      path: PATHS.login,
      body: { identity: 'alice', password: 'Some-long-password-1' },
      status: 400,
      json: failed,
    },
    {
      name: 'correct credentials: 200 token + record, no-store, no secrets',
      method: 'POST',
      path: PATHS.login,
      body: () => ({ identity: alice.email, password: alice.password }),
      status: 200,
      notContains: () => ['password', 'tokenKey', alice.password],
      after: async (_t, _v, res) => {
        expectAuthResponse(res, alice.email);
        expect(res.body.record).toMatchObject({
          id: alice.id,
          verified: true,
          isInitialUser: false,
        });
      },
    },
    {
      name: 'email in another case with spaces around it signs in to the same account',
      method: 'POST',
      path: PATHS.login,
      body: () => ({ identity: `  ${alice.email.toUpperCase()} `, password: alice.password }),
      status: 200,
      after: async (_t, _v, res) => {
        expectAuthResponse(res, alice.email);
        expect(res.body.record.id).toBe(alice.id);
      },
    },
    {
      name: 'unverified user gets a token too, with verified:false',
      method: 'POST',
      path: PATHS.login,
      body: () => ({ identity: bob.email, password: bob.password }),
      status: 200,
      after: async (_t, _v, res) => {
        expectAuthResponse(res, bob.email);
        expect(res.body.record.verified).toBe(false);
      },
    },
    {
      name: 'auth-refresh without a token: 401',
      method: 'POST',
      path: PATHS.refresh,
      status: 401,
      error: { message: MSG.needsAuth },
    },
    {
      name: 'auth-refresh with garbage: 401',
      method: 'POST',
      path: PATHS.refresh,
      headers: { Authorization: 'abc.def.ghi' },
      status: 401,
      error: { message: MSG.needsAuth },
    },
    {
      name: 'auth-refresh with a tampered signature: 401',
      method: 'POST',
      path: PATHS.refresh,
      headers: () => ({ Authorization: tamperSignature(alice.token) }),
      status: 401,
      error: { message: MSG.needsAuth, reason: 'password-changed' },
    },
    {
      name: 'auth-refresh with a payload naming another user (signature no longer matches): 401',
      method: 'POST',
      path: PATHS.refresh,
      headers: () => ({ Authorization: withPayload(alice.token, (p) => ({ ...p, id: bob.id })) }),
      status: 401,
      error: { message: MSG.needsAuth, reason: 'password-changed' },
    },
    {
      name: 'auth-refresh with an alg:none token: 401',
      method: 'POST',
      path: PATHS.refresh,
      headers: () => {
        const [, p] = alice.token.split('.');
        const h = Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url');
        return { Authorization: `${h}.${p}.` };
      },
      status: 401,
      error: { message: MSG.needsAuth },
    },
    {
      name: 'auth-refresh with a valid token: new token and the record',
      method: 'POST',
      path: PATHS.refresh,
      headers: () => ({ Authorization: alice.token }),
      status: 200,
      after: async (_t, _v, res) => {
        expectAuthResponse(res, alice.email);
        expect(res.body.record.id).toBe(alice.id);
      },
    },
    {
      name: 'auth-refresh accepts a case-insensitive "Bearer " prefix',
      method: 'POST',
      path: PATHS.refresh,
      headers: () => ({ Authorization: `bEaReR ${alice.token}` }),
      status: 200,
      after: async (_t, _v, res) => expectAuthResponse(res, alice.email),
    },
    {
      name: 'auth-refresh of an unverified user still works (the web app reads verified:false)',
      method: 'POST',
      path: PATHS.refresh,
      before: async (s) => ({ token: await s.tokenFor(bob) }),
      headers: (v) => ({ Authorization: v.token! }),
      status: 200,
      after: async (_t, _v, res) => {
        expectAuthResponse(res, bob.email);
        expect(res.body.record.verified).toBe(false);
      },
    },
  ];
  scenarios(() => t, rows);

  it('auth token payload: keys, types, 5-day lifetime, matches the record', async () => {
    const res = await t.login(alice.email, alice.password);
    expectToken(res.body.token, 'auth', res.body.record);
    const p = jwtPayload(res.body.token);
    expect(p.collectionId).toBe(res.body.record.collectionId);
  });

  it('record JSON: 15-char id, PocketBase date format, collection fields, no secrets', async () => {
    const res = await t.login(alice.email, alice.password);
    expectRecord(res.body.record, {
      email: alice.email,
      emailVisibility: false,
      verified: true,
      collectionName: 'users',
    });
    const created = Date.parse(res.body.record.created.replace(' ', 'T'));
    expect(Math.abs(Date.now() - created)).toBeLessThan(10 * 60_000);
  });

  it('an unknown email costs a password verification too (no fast path)', async () => {
    const time = async (identity: string) => {
      const start = process.hrtime.bigint();
      const res = await t.login(identity, 'Wrong-password-123');
      expect(res.body).toEqual(failed);
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 6; i++) {
      known.push(await time(alice.email));
      unknown.push(await time(`nobody-${i}@example.com`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // A skipped hash would answer in well under half the time of a real verification.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.4);
  });
});
