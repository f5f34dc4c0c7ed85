import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import type { ApiResponse } from '../support/http.js';
import {
  CONFIRM_IT_IS_YOU,
  REAUTH,
  REAUTH_PASSKEY_OPTIONS,
  staleSession,
  VERIFY_EMAIL_FIRST,
} from '../support/reauth.js';
import {
  APP_URL,
  DATABASES,
  startTestServer,
  type TestServer,
  type User,
} from '../support/server.js';
import { totpCode, twoStepMember } from '../support/totp.js';
import { SoftAuthenticator } from '../support/webauthn.js';

/** A sensitive action: its request, and a look at whether it changed anything. */
interface Sensitive {
  name: string;
  /** Extra state the action needs (another member, a second device…). */
  prepare?: (t: TestServer, u: User) => Promise<Record<string, string>>;
  send: (t: TestServer, u: User, v: Record<string, string>) => Promise<ApiResponse>;
  /** The status once the session is fresh. */
  ok: number;
  /** Whether the action took effect (false before the confirmation, true after). */
  happened?: (t: TestServer, u: User, v: Record<string, string>) => Promise<boolean>;
  /** The acting member is the initial user (operator actions). */
  operator?: boolean;
}

const countRows = (t: TestServer, table: 'users' | 'sessions', column: string, value: string) =>
  withDatabase(t, async (db) =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where(column as 'id', '=', value)
          .executeTakeFirstOrThrow()
      ).n,
    ),
  );

const memberFlag = (t: TestServer, id: string, column: 'disabled' | 'is_operator') =>
  withDatabase(
    t,
    async (db) =>
      (await db.selectFrom('users').select(column).where('id', '=', id).executeTakeFirst())?.[
        column
      ],
  );

const SENSITIVE: Sensitive[] = [
  {
    name: 'start a passkey registration',
    send: (t, u) => t.post(PATHS.passkeyOptions, {}, u.token),
    ok: 200,
  },
  {
    name: 'start two-step setup',
    send: (t, u) => t.post(PATHS.totpSetup, {}, u.token),
    ok: 200,
  },
  {
    name: 'disconnect a provider',
    send: (t, u) => t.del('/api/gatehouse/providers/oidc', u.token),
    // No provider is configured here: once fresh, the route itself answers.
    ok: 404,
  },
  {
    name: 'request an email change',
    send: (t, u) => t.post(PATHS.requestEmailChange, { newEmail: `new-${u.email}` }, u.token),
    ok: 204,
  },
  {
    name: 'download the data export',
    send: (t, u) => t.get(PATHS.exportData, u.token),
    ok: 200,
  },
  {
    name: 'end every other session',
    prepare: async (t, u) => ({ other: await t.tokenFor(u) }),
    send: (t, u) => t.del(PATHS.sessions, u.token),
    ok: 204,
    happened: async (t, _u, v) => (await t.post(PATHS.refresh, {}, v.other)).status === 401,
  },
  {
    name: 'delete the own account',
    send: (t, u) => t.del(PATHS.record(u.id), u.token),
    ok: 204,
    happened: async (t, u) => (await countRows(t, 'users', 'id', u.id)) === 0,
  },
  {
    name: 'an operator disables a member',
    operator: true,
    prepare: async (t) => ({ member: (await t.verifiedUser()).id }),
    send: (t, u, v) => t.post(`/api/admin/members/${v.member}/disable`, {}, u.token),
    ok: 200,
    happened: async (t, _u, v) => (await memberFlag(t, v.member!, 'disabled')) === 1,
  },
  {
    name: 'an operator makes a member an operator',
    operator: true,
    prepare: async (t) => ({ member: (await t.verifiedUser()).id }),
    send: (t, u, v) => t.post(`/api/admin/members/${v.member}/operator`, {}, u.token),
    ok: 200,
    happened: async (t, _u, v) => (await memberFlag(t, v.member!, 'is_operator')) === 1,
  },
  {
    name: 'an operator gives a member codes',
    operator: true,
    prepare: async (t) => ({ member: (await t.verifiedUser()).id }),
    send: (t, u, v) => t.post(`/api/admin/members/${v.member}/invites`, { count: 2 }, u.token),
    ok: 200,
  },
  {
    name: 'an operator deletes a member',
    operator: true,
    prepare: async (t) => ({ member: (await t.verifiedUser()).id }),
    send: (t, u, v) => t.del(`/api/admin/members/${v.member}`, u.token),
    ok: 204,
    happened: async (t, _u, v) => (await countRows(t, 'users', 'id', v.member!)) === 0,
  },
];

describe.each(DATABASES)("confirm it's you on %s", (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
  });
  afterAll(() => t?.close());

  /** The acting member: a new verified member, or the initial user on a new session. */
  const actor = async (operator = false): Promise<User> => {
    if (!operator) return t.verifiedUser();
    const initial = await t.initialUser();
    return { ...initial, token: await t.tokenFor(initial) };
  };

  for (const action of SENSITIVE) {
    it(`${action.name}: 403 outside the window, nothing changes; after a password it goes through`, async () => {
      const u = await actor(action.operator);
      const v = (await action.prepare?.(t, u)) ?? {};
      await staleSession(t, u.token);
      const refused = await action.send(t, u, v);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body).toEqual({ status: 403, message: CONFIRM_IT_IS_YOU, data: {} });
      if (action.happened) expect(await action.happened(t, u, v)).toBe(false);

      const confirm = await t.post(REAUTH, { password: u.password }, u.token);
      expect(confirm.status, confirm.text).toBe(200);
      expect(confirm.body.fresh).toBe(true);
      const done = await action.send(t, u, v);
      expect(done.status, done.text).toBe(action.ok);
      if (action.happened) expect(await action.happened(t, u, v)).toBe(true);
    });
  }

  it('a fresh sign-in needs no confirmation; the window is REAUTH_MINUTES long', async () => {
    const u = await t.verifiedUser();
    const state = await t.get(REAUTH, u.token);
    expect(state.status).toBe(200);
    expect(state.body.fresh).toBe(true);
    expect(state.body.methods).toEqual(['password']);
    const until = Date.parse(state.body.freshUntil.replace(' ', 'T'));
    expect(until - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(until - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    expect((await t.get(PATHS.exportData, u.token)).status).toBe(200);
  });

  it('a wrong password: 400 on the password field, recorded, and the session stays unconfirmed', async () => {
    const u = await t.verifiedUser();
    await staleSession(t, u.token);
    const wrong = await t.post(REAUTH, { password: 'not-the-password-1' }, u.token);
    expect(wrong.status).toBe(400);
    expect(wrong.body.data.password.code).toBe('validation_invalid_password');
    expect((await t.get(REAUTH, u.token)).body.fresh).toBe(false);
    expect((await t.get(PATHS.exportData, u.token)).status).toBe(403);
    const events = await t.get(PATHS.securityEvents, u.token);
    const failure = (events.body.items as { type: string; outcome: string }[]).find(
      (e) => e.type === 'reauthenticated',
    );
    expect(failure?.outcome).toBe('failure');
  });

  it('no proof, or two at once, is a 400 that confirms nothing', async () => {
    const u = await t.verifiedUser();
    await staleSession(t, u.token);
    const none = await t.post(REAUTH, {}, u.token);
    expect(none.status).toBe(400);
    expect(none.body.data.password.code).toBe('validation_required');
    const two = await t.post(REAUTH, { password: u.password, code: '123456' }, u.token);
    expect(two.status).toBe(400);
    expect((await t.get(REAUTH, u.token)).body.fresh).toBe(false);
    expect((await t.post(REAUTH, { password: u.password }, '')).status).toBe(401);
  });

  it('with an authenticator code or a recovery code; a wrong code is a 400 on the code field', async () => {
    const m = await twoStepMember(t);
    expect((await t.get(REAUTH, m.token)).body.methods).toEqual(['password', 'code']);
    await staleSession(t, m.token);
    const wrong = await t.post(REAUTH, { code: '000000' }, m.token);
    expect(wrong.status).toBe(400);
    expect(wrong.body.data.code.code).toBe('validation_invalid_code');
    // The enabling code's step is spent: the next step's code confirms.
    const right = await t.post(REAUTH, { code: totpCode(m.secret, 1) }, m.token);
    expect(right.status, right.text).toBe(200);
    const renewed = await t.post(PATHS.recoveryCodes, { password: m.password }, m.token);
    expect(renewed.status).toBe(200);

    await staleSession(t, m.token);
    expect((await t.post(PATHS.totpDisable, { password: m.password }, m.token)).status).toBe(403);
    expect((await t.get(PATHS.totp, m.token)).body.enabled).toBe(true);
    // The renewed set replaced the first one.
    expect((await t.post(REAUTH, { code: m.recoveryCodes[0] }, m.token)).status).toBe(400);
    const recovery = await t.post(REAUTH, { code: renewed.body.recoveryCodes[0] }, m.token);
    expect(recovery.status, recovery.text).toBe(200);
    expect((await t.post(PATHS.totpDisable, { password: m.password }, m.token)).status).toBe(204);
  });

  it('with a passkey: options offer only the member’s own, and its assertion confirms', async () => {
    const u = await t.verifiedUser();
    const key = new SoftAuthenticator(APP_URL);
    const reg = await t.post(PATHS.passkeyOptions, {}, u.token);
    expect(reg.status).toBe(200);
    const added = await t.post(
      PATHS.passkeys,
      { name: 'Laptop', response: key.register(reg.body) },
      u.token,
    );
    expect(added.status, added.text).toBe(200);
    expect((await t.get(REAUTH, u.token)).body.methods).toEqual(['password', 'response']);

    await staleSession(t, u.token);
    const options = await t.post(REAUTH_PASSKEY_OPTIONS, {}, u.token);
    expect(options.status).toBe(200);
    expect(options.body.allowCredentials.map((c: { id: string }) => c.id)).toEqual([key.id]);
    const confirm = await t.post(REAUTH, { response: key.authenticate(options.body) }, u.token);
    expect(confirm.status, confirm.text).toBe(200);
    expect((await t.get(PATHS.exportData, u.token)).status).toBe(200);

    // Another member's passkey never confirms this session.
    const other = await t.verifiedUser();
    await staleSession(t, other.token);
    const theirs = await t.post(REAUTH_PASSKEY_OPTIONS, {}, other.token);
    const stolen = await t.post(REAUTH, { response: key.authenticate(theirs.body) }, other.token);
    expect(stolen.status).toBe(400);
    expect(stolen.body.data.response.code).toBe('validation_invalid_passkey');
  });

  it('an unverified member cannot add a way in: 403 Verify your email first., nothing created', async () => {
    const u = await t.unverifiedUser();
    const token = (await t.login(u.email, u.password)).body.token as string;
    for (const path of [PATHS.passkeyOptions, PATHS.totpSetup]) {
      const res = await t.post(path, {}, token);
      expect(res.status, path).toBe(403);
      expect(res.body.message).toBe(VERIFY_EMAIL_FIRST);
    }
    const rows = await withDatabase(t, async (d) => ({
      challenges: await d
        .selectFrom('passkey_challenges')
        .select('id')
        .where('user_id', '=', u.id)
        .execute(),
      twoStep: await d
        .selectFrom('two_step')
        .select('user_id')
        .where('user_id', '=', u.id)
        .execute(),
    }));
    expect(rows).toEqual({ challenges: [], twoStep: [] });
  });
});
