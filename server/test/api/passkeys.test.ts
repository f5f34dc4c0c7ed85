import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAuthResponse } from '../support/checks.js';
import { DATE_RE, envelope, ID_RE, MSG, PATHS, subjects } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import type { Json } from '../support/http.js';
import { APP_URL, DATABASES, startTestServer, type TestServer } from '../support/server.js';
import { scenarios, type Scenario } from '../support/table.js';
import { mfaIdFor, twoStepMember } from '../support/totp.js';
import { SoftAuthenticator } from '../support/webauthn.js';

const S = subjects();
const invalidPasskey = envelope(400, MSG.validate, { response: 'validation_invalid_passkey' });
const PASSKEY_KEYS = ['created', 'id', 'lastUsed', 'name'];

interface PasskeyVars {
  email: string;
  password: string;
  id: string;
  token: string;
  key: SoftAuthenticator;
  passkeyId: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [k: string]: any;
}

/** A signed-in member with one registered passkey on a software authenticator. */
async function withPasskey(s: TestServer, name = 'Laptop'): Promise<PasskeyVars> {
  const u = await s.verifiedUser();
  const key = new SoftAuthenticator(APP_URL);
  const options = await s.post(PATHS.passkeyOptions, {}, u.token);
  expect(options.status, options.text).toBe(200);
  const res = await s.post(PATHS.passkeys, { name, response: key.register(options.body) }, u.token);
  expect(res.status, res.text).toBe(200);
  return { ...u, key, passkeyId: res.body.id };
}

async function loginOptions(s: TestServer): Promise<Json> {
  const res = await s.post(PATHS.passkeyLoginOptions, {});
  expect(res.status, res.text).toBe(200);
  return res.body;
}

// The table passes string variables; these rows keep their richer values in a closure.
function row(
  name: string,
  prepare: (s: TestServer) => Promise<PasskeyVars>,
  rest: Omit<Scenario, 'name' | 'before' | 'after' | 'body' | 'headers' | 'path'> & {
    path: string | ((v: PasskeyVars) => string);
    auth?: boolean;
    body?: (v: PasskeyVars) => unknown;
    after?: (s: TestServer, v: PasskeyVars, res: Json) => Promise<void>;
  },
): Scenario {
  let v: PasskeyVars;
  const { path, auth, body, after, ...scenario } = rest;
  return {
    ...scenario,
    name,
    before: async (s) => {
      v = await prepare(s);
      return {};
    },
    path: () => (typeof path === 'function' ? path(v) : path),
    headers: (): Record<string, string> => (auth ? { Authorization: v.token } : {}),
    ...(body ? { body: () => body(v) as never } : {}),
    after: after ? (s, _vars, res) => after(s, v, res) : undefined,
  };
}

describe.each(DATABASES)('passkeys on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
  });
  afterAll(() => t?.close());

  const rows: Scenario[] = [
    row(
      'registration options: a discoverable credential with user verification, existing ones excluded',
      (s) => withPasskey(s),
      {
        method: 'POST',
        path: PATHS.passkeyOptions,
        auth: true,
        status: 200,
        after: async (s, v, res) => {
          const o = res.body;
          expect(o.rp).toEqual({ name: 'Gatehouse', id: 'app.test' });
          expect(o.user.name).toBe(v.email);
          expect(Buffer.from(o.user.id, 'base64url').toString()).toBe(v.id);
          expect(o.challenge).toMatch(/^[A-Za-z0-9_-]{20,}$/);
          expect(o.authenticatorSelection).toMatchObject({
            residentKey: 'required',
            requireResidentKey: true,
            userVerification: 'required',
          });
          expect(o.attestation).toBe('none');
          expect(o.excludeCredentials).toEqual([
            { id: v.key.id, type: 'public-key', transports: ['internal', 'hybrid'] },
          ]);
          expect(o.pubKeyCredParams.map((p: Json) => p.alg)).toContain(-7);
        },
      },
    ),
    row(
      'register: 200 the passkey; listed; the notice mail; the event',
      (s) => withPasskey(s, ' Work phone '),
      {
        method: 'GET',
        path: PATHS.passkeys,
        auth: true,
        status: 200,
        after: async (s, v, res) => {
          expect(res.body.items).toHaveLength(1);
          const p = res.body.items[0];
          expect(Object.keys(p).sort()).toEqual(PASSKEY_KEYS);
          expect(p).toMatchObject({ id: v.passkeyId, name: 'Work phone', lastUsed: null });
          expect(p.id).toMatch(ID_RE);
          expect(p.created).toMatch(DATE_RE);
          const notice = await s.mail.waitForMailTo(v.email, S.passkeyAdded);
          expect(notice.text).toContain(`${APP_URL}/forgot-password`);
          const events = await s.get(PATHS.securityEvents, v.token);
          expect(events.body.items.map((e: Json) => e.type)).toContain('passkey_added');
        },
      },
    ),
    row(
      'register: a guest gets 401 for options, register, list, rename, remove',
      async (s) => withPasskey(s),
      {
        method: 'POST',
        path: PATHS.passkeyOptions,
        status: 401,
        error: { message: MSG.needsAuth },
        after: async (s, v) => {
          expect((await s.post(PATHS.passkeys, { name: 'x', response: {} })).status).toBe(401);
          expect((await s.get(PATHS.passkeys)).status).toBe(401);
          expect((await s.patch(PATHS.passkey(v.passkeyId), { name: 'x' })).status).toBe(401);
          expect((await s.del(PATHS.passkey(v.passkeyId))).status).toBe(401);
        },
      },
    ),
    row(
      'register: a replayed response (its challenge used) is refused, nothing added, no second mail',
      async (s) => {
        const u = await s.verifiedUser();
        const key = new SoftAuthenticator(APP_URL);
        const options = await s.post(PATHS.passkeyOptions, {}, u.token);
        const response = key.register(options.body);
        const first = await s.post(PATHS.passkeys, { name: 'A', response }, u.token);
        expect(first.status, first.text).toBe(200);
        return { ...u, key, passkeyId: first.body.id, response };
      },
      {
        method: 'POST',
        path: PATHS.passkeys,
        auth: true,
        body: (v) => ({ name: 'B', response: v.response }),
        status: 400,
        json: invalidPasskey,
        after: async (s, v) => {
          expect((await s.get(PATHS.passkeys, v.token)).body.items).toHaveLength(1);
          await s.mail.waitForMailTo(v.email, S.passkeyAdded);
          expect(s.mail.countTo(v.email, S.passkeyAdded)).toBe(1);
        },
      },
    ),
    row(
      "register: another member's challenge, another origin, another RP id, a made-up challenge: refused",
      async (s) => {
        const u = await s.verifiedUser();
        const other = await s.verifiedUser();
        return { ...u, key: new SoftAuthenticator(APP_URL), passkeyId: '', other: other.token };
      },
      {
        method: 'GET',
        path: PATHS.passkeys,
        auth: true,
        status: 200,
        after: async (s, v) => {
          const theirs = await s.post(PATHS.passkeyOptions, {}, v.other);
          const stolen = v.key.register(theirs.body);
          expect(
            (await s.post(PATHS.passkeys, { name: 'x', response: stolen }, v.token)).body,
          ).toEqual(invalidPasskey);
          for (const c of [
            { origin: 'http://evil.test' },
            { rpId: 'evil.test' },
            { challenge: 'bWFkZS11cA' },
          ]) {
            const mine = await s.post(PATHS.passkeyOptions, {}, v.token);
            const res = await s.post(
              PATHS.passkeys,
              { name: 'x', response: v.key.register(mine.body, c) },
              v.token,
            );
            expect(res.body, JSON.stringify(c)).toEqual(invalidPasskey);
          }
          expect((await s.get(PATHS.passkeys, v.token)).body.items).toEqual([]);
          await s.mail.expectNone((m) => m.subject === S.passkeyAdded && m.to.includes(v.email));
        },
      },
    ),
    row(
      'register: blank name, missing response → field errors; garbage response → 400',
      async (s) => withPasskey(s),
      {
        method: 'POST',
        path: PATHS.passkeys,
        auth: true,
        body: () => ({ name: '  ' }),
        status: 400,
        error: {
          message: MSG.validate,
          fields: { name: 'validation_required', response: 'validation_required' },
        },
        after: async (s, v) => {
          const load = envelope(400, MSG.load);
          expect(
            (await s.post(PATHS.passkeys, { name: 'x', response: 'abc' }, v.token)).body,
          ).toEqual(load);
          expect(
            (await s.post(PATHS.passkeys, { name: 'x', response: [1] }, v.token)).body,
          ).toEqual(load);
          for (const response of [
            {},
            { response: {} },
            { response: { clientDataJSON: 'not json' } },
            {
              id: 1,
              response: { clientDataJSON: Buffer.from('{"challenge":5}').toString('base64url') },
            },
          ]) {
            expect((await s.post(PATHS.passkeys, { name: 'x', response }, v.token)).body).toEqual(
              invalidPasskey,
            );
          }
          const long = await s.post(
            PATHS.passkeys,
            { name: 'x'.repeat(65), response: {} },
            v.token,
          );
          expect(long.body.data.name).toEqual({
            code: 'validation_max_text_constraint',
            message: 'Must be no more than 64 character(s).',
            params: { max: 64 },
          });
        },
      },
    ),
    row('rename: 200 the passkey with its new name', async (s) => withPasskey(s), {
      method: 'PATCH',
      path: (v) => PATHS.passkey(v.passkeyId),
      auth: true,
      body: () => ({ name: 'Old laptop' }),
      status: 200,
      after: async (s, v, res) => {
        expect(Object.keys(res.body).sort()).toEqual(PASSKEY_KEYS);
        expect(res.body).toMatchObject({ id: v.passkeyId, name: 'Old laptop' });
        expect((await s.get(PATHS.passkeys, v.token)).body.items[0].name).toBe('Old laptop');
        const blank = await s.patch(PATHS.passkey(v.passkeyId), { name: '' }, v.token);
        expect(blank.body).toEqual(envelope(400, MSG.validate, { name: 'validation_required' }));
      },
    }),
    row(
      "rename and remove another member's passkey: 404, nothing changes",
      async (s) => {
        const mine = await withPasskey(s);
        const theirs = await withPasskey(s);
        return { ...mine, theirs: theirs.passkeyId, theirToken: theirs.token };
      },
      {
        method: 'PATCH',
        path: (v) => PATHS.passkey(v.theirs),
        auth: true,
        body: () => ({ name: 'mine now' }),
        status: 404,
        error: { message: MSG[404] },
        after: async (s, v) => {
          expect((await s.del(PATHS.passkey(v.theirs), v.token)).body).toEqual(
            envelope(404, MSG[404]),
          );
          expect((await s.del(PATHS.passkey('nope'), v.token)).status).toBe(404);
          const list = await s.get(PATHS.passkeys, v.theirToken);
          expect(list.body.items).toHaveLength(1);
          expect(list.body.items[0].name).toBe('Laptop');
        },
      },
    ),
    row('remove: 204; gone from the list; it no longer signs in', async (s) => withPasskey(s), {
      method: 'DELETE',
      path: (v) => PATHS.passkey(v.passkeyId),
      auth: true,
      status: 204,
      empty: true,
      after: async (s, v) => {
        expect((await s.get(PATHS.passkeys, v.token)).body.items).toEqual([]);
        const res = await s.post(PATHS.authWithPasskey, {
          response: v.key.authenticate(await loginOptions(s)),
        });
        expect(res.body).toEqual(invalidPasskey);
        const events = await s.get(PATHS.securityEvents, v.token);
        expect(events.body.items.map((e: Json) => e.type)).toContain('passkey_removed');
      },
    }),

    // ---- signing in
    row(
      'login options: a guest gets request options for a discoverable credential, user verification required',
      async (s) => withPasskey(s),
      {
        method: 'POST',
        path: PATHS.passkeyLoginOptions,
        status: 200,
        after: async (_s, _v, res) => {
          expect(res.body).toMatchObject({ rpId: 'app.test', userVerification: 'required' });
          expect(res.body.allowCredentials ?? []).toEqual([]);
          expect(res.body.challenge).toMatch(/^[A-Za-z0-9_-]{20,}$/);
        },
      },
    ),
    row(
      'auth-with-passkey: 200 {token, record}; a session (method passkey); last used set',
      async (s) => ({ ...(await withPasskey(s)), options: await loginOptions(s) }),
      {
        method: 'POST',
        path: PATHS.authWithPasskey,
        body: (v) => ({ response: v.key.authenticate(v.options) }),
        status: 200,
        after: async (s, v, res) => {
          expectAuthResponse(res, v.email);
          const list = await s.get(PATHS.passkeys, res.body.token);
          expect(list.body.items[0].lastUsed).toMatch(DATE_RE);
          const events = await s.get(PATHS.securityEvents, res.body.token);
          const signIns = events.body.items.filter((e: Json) => e.type === 'sign_in');
          expect(signIns[0]).toMatchObject({ outcome: 'success', detail: { method: 'passkey' } });
          const sessions = await s.get(PATHS.sessions, res.body.token);
          expect(sessions.body.items).toHaveLength(2);
        },
      },
    ),
    row(
      'auth-with-passkey: complete on its own even with two-step on (no mfaId)',
      async (s) => {
        const m = await twoStepMember(s);
        await mfaIdFor(s, m);
        const key = new SoftAuthenticator(APP_URL);
        const options = await s.post(PATHS.passkeyOptions, {}, m.token);
        const added = await s.post(
          PATHS.passkeys,
          { name: 'Key', response: key.register(options.body) },
          m.token,
        );
        expect(added.status, added.text).toBe(200);
        return { ...m, key, passkeyId: added.body.id, options: await loginOptions(s) };
      },
      {
        method: 'POST',
        path: PATHS.authWithPasskey,
        body: (v) => ({ response: v.key.authenticate(v.options) }),
        status: 200,
        after: async (_s, v, res) => expectAuthResponse(res, v.email),
      },
    ),
    row(
      'auth-with-passkey: a replayed response (challenge used) is refused',
      async (s) => {
        const v = await withPasskey(s);
        const response = v.key.authenticate(await loginOptions(s));
        const first = await s.post(PATHS.authWithPasskey, { response });
        expect(first.status, first.text).toBe(200);
        return { ...v, response };
      },
      {
        method: 'POST',
        path: PATHS.authWithPasskey,
        body: (v) => ({ response: v.response }),
        status: 400,
        json: invalidPasskey,
      },
    ),
    row(
      'auth-with-passkey: another origin, another RP id, a made-up or registration challenge: refused, and each challenge is spent',
      async (s) => withPasskey(s),
      {
        method: 'POST',
        path: PATHS.authWithPasskey,
        body: () => ({ response: {} }),
        status: 400,
        json: invalidPasskey,
        after: async (s, v) => {
          const registration = await s.post(PATHS.passkeyOptions, {}, v.token);
          for (const [c, options] of [
            [{ origin: 'https://app.test.evil.example' }, undefined],
            [{ rpId: 'evil.test' }, undefined],
            [{ challenge: 'bWFkZS11cA' }, undefined],
            [{ rpId: 'app.test' }, registration.body],
          ] as const) {
            const o = options ?? (await loginOptions(s));
            const response = v.key.authenticate(o, c);
            const res = await s.post(PATHS.authWithPasskey, { response });
            expect(res.body, JSON.stringify(c)).toEqual(invalidPasskey);
            // The right answer to a challenge a wrong response named is refused too (a made-up
            // challenge names none).
            const response2 = v.key.authenticate(o, { rpId: 'app.test' });
            const again = await s.post(PATHS.authWithPasskey, { response: response2 });
            if ('challenge' in c) expect(again.status, again.text).toBe(200);
            else expect(again.body).toEqual(invalidPasskey);
          }
          // A good one still works.
          const ok = await s.post(PATHS.authWithPasskey, {
            response: v.key.authenticate(await loginOptions(s)),
          });
          expect(ok.status, ok.text).toBe(200);
        },
      },
    ),
    row(
      'auth-with-passkey: a counter that does not go up (a cloned key) is refused',
      async (s) => {
        const v = await withPasskey(s);
        for (let i = 0; i < 3; i++) {
          const ok = await s.post(PATHS.authWithPasskey, {
            response: v.key.authenticate(await loginOptions(s)),
          });
          expect(ok.status, ok.text).toBe(200);
        }
        return { ...v, options: await loginOptions(s) };
      },
      {
        method: 'POST',
        path: PATHS.authWithPasskey,
        body: (v) => ({ response: v.key.authenticate(v.options, { counter: 2 }) }),
        status: 400,
        json: invalidPasskey,
        after: async (s, v) => {
          const same = await s.post(PATHS.authWithPasskey, {
            response: v.key.authenticate(await loginOptions(s), { counter: 3 }),
          });
          expect(same.body).toEqual(invalidPasskey);
          const events = await s.get(PATHS.securityEvents, v.token);
          const failure = events.body.items.find(
            (e: Json) => e.type === 'sign_in' && e.outcome === 'failure',
          );
          expect(failure.detail).toMatchObject({ method: 'passkey' });
        },
      },
    ),
    row(
      "auth-with-passkey: a user handle that is not the passkey's member is refused; garbage is a 400",
      async (s) => withPasskey(s),
      {
        method: 'POST',
        path: PATHS.authWithPasskey,
        body: () => ({}),
        status: 400,
        error: { message: MSG.validate, fields: { response: 'validation_required' } },
        after: async (s, v) => {
          const response = v.key.authenticate(await loginOptions(s));
          response.response.userHandle = Buffer.from('someoneelse0000').toString('base64url');
          expect((await s.post(PATHS.authWithPasskey, { response })).body).toEqual(invalidPasskey);
          expect((await s.post(PATHS.authWithPasskey, { response: 'x' })).body).toEqual(
            envelope(400, MSG.load),
          );
          const bad = v.key.authenticate(await loginOptions(s));
          bad.response.signature = Buffer.from('not a signature').toString('base64url');
          expect((await s.post(PATHS.authWithPasskey, { response: bad })).body).toEqual(
            invalidPasskey,
          );
          const wrongId = v.key.authenticate(await loginOptions(s));
          wrongId.id = 'AAAA';
          expect((await s.post(PATHS.authWithPasskey, { response: wrongId })).body).toEqual(
            invalidPasskey,
          );
        },
      },
    ),
    row(
      'export: passkeys with name and dates, never a credential id or key',
      async (s) => {
        const v = await withPasskey(s, 'Desk key');
        const ok = await s.post(PATHS.authWithPasskey, {
          response: v.key.authenticate(await loginOptions(s)),
        });
        expect(ok.status).toBe(200);
        return v;
      },
      {
        method: 'GET',
        path: PATHS.exportData,
        auth: true,
        status: 200,
        after: async (_s, v, res) => {
          expect(res.body.passkeys).toHaveLength(1);
          expect(Object.keys(res.body.passkeys[0]).sort()).toEqual(['created', 'lastUsed', 'name']);
          expect(res.body.passkeys[0]).toMatchObject({ name: 'Desk key' });
          expect(res.body.passkeys[0].lastUsed).toMatch(DATE_RE);
          expect(res.text).not.toContain(v.key.id);
        },
      },
    ),
  ];
  scenarios(() => t, rows);

  it('registration options: 50 requests keep at most 5 live challenges for the member; the latest still registers', async () => {
    const u = await t.verifiedUser();
    const options = () => t.post(PATHS.passkeyOptions, {}, u.token);
    const first = await options();
    const burst = await Promise.all(Array.from({ length: 48 }, options));
    const last = await options();
    for (const res of [first, ...burst, last]) expect(res.status, res.text).toBe(200);
    const stored = await withDatabase(t, (d) =>
      d
        .selectFrom('passkey_challenges')
        .select('challenge')
        .where('user_id', '=', u.id)
        .where('kind', '=', 'registration')
        .execute(),
    );
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.length).toBeLessThanOrEqual(5);
    expect(stored.map((r) => r.challenge)).toContain(last.body.challenge);
    const key = new SoftAuthenticator(APP_URL);
    // The oldest was dropped to make room: its answer is refused like any unknown challenge.
    const stale = await t.post(
      PATHS.passkeys,
      { name: 'Old tab', response: key.register(first.body) },
      u.token,
    );
    expect(stale.body).toEqual(invalidPasskey);
    const res = await t.post(
      PATHS.passkeys,
      { name: 'Laptop', response: key.register(last.body) },
      u.token,
    );
    expect(res.status, res.text).toBe(200);
    expect((await t.get(PATHS.passkeys, u.token)).body.items).toHaveLength(1);
  });
});
