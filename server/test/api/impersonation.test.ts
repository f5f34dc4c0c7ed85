import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRecord } from '../support/checks.js';
import { MSG, PATHS } from '../support/contract.js';
import { jwtPayload, type Json } from '../support/http.js';
import {
  CONFIRM_IT_IS_YOU,
  REAUTH,
  REAUTH_PASSKEY_OPTIONS,
  staleSession,
} from '../support/reauth.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import {
  DATABASES,
  startTestServer,
  strongPassword,
  type TestServer,
  type User,
} from '../support/server.js';

/** View as member: PocketBase's impersonate through the official SDK (docs/api.md). */
const NOT_A_SUPERUSER = 'The authorized record is not allowed to perform this action.';
const NOT_WHILE_VIEWING_AS =
  'Only the member can do this: it cannot be done while viewing as them.';
const SELF = 'You cannot view as yourself.';
const INITIAL = 'You cannot view as the initial user.';
const OPERATOR = 'You cannot view as an operator: only as a member.';
const DISABLED = 'You cannot view as a disabled member: enable them first.';
const admin = {
  operator: (id: string) => `/api/admin/members/${id}/operator`,
  disable: (id: string) => `/api/admin/members/${id}/disable`,
  member: (id: string) => `/api/admin/members/${id}`,
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => Math.floor(Date.now() / 1000);

interface Event {
  type: string;
  detail: Record<string, unknown>;
}

describe.each(DATABASES)('view as member (impersonate) on %s', (db) => {
  let t: TestServer;
  let root: User;
  /** A member the initial user made an operator. */
  let op: User;
  /** A plain verified member: the one viewed. */
  let member: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    root = await t.initialUser();
    op = await t.verifiedUser();
    member = await t.verifiedUser();
    await makeOperator(op);
  });
  afterAll(() => t?.close());

  async function makeOperator(user: User) {
    const made = await t.post(admin.operator(user.id), {}, root.token);
    if (made.status !== 200) throw new Error(`make operator: ${made.text}`);
  }

  /** The operator's client on a session they just signed in on (fresh). */
  const freshOperator = async (who: User = op) => sdkClient(t.url, await t.tokenFor(who));

  /** Views as `target` through the SDK: the client holding the member's token. */
  const viewAs = async (target: User, duration = 0, who: User = op) =>
    (await freshOperator(who)).collection('users').impersonate(target.id, duration);

  const eventsOf = async (token: string): Promise<Event[]> => {
    const res = await t.get(`${PATHS.securityEvents}?perPage=50`, token);
    expect(res.status, res.text).toBe(200);
    return res.body.items as Event[];
  };

  const envelope = (status: number, message: string, data: Json = {}) => ({
    data,
    message,
    status,
  });

  it('gives an operator on a fresh session a short, non-renewable token of the member', async () => {
    const before = now();
    const viewer = await viewAs(member);
    const token = viewer.authStore.token;
    const claims = jwtPayload(token);
    expect(claims.id).toBe(member.id);
    expect(claims.type).toBe('auth');
    expect(claims.refreshable).toBe(false);
    expect(typeof claims.sid).toBe('string');
    // No duration: 30 minutes.
    expect(claims.exp).toBeGreaterThanOrEqual(before + 1800);
    expect(claims.exp).toBeLessThanOrEqual(now() + 1800);
    expectRecord(viewer.authStore.record as unknown as Json, {
      id: member.id,
      email: member.email,
    });

    // The member's account, as they see it.
    const own = await viewer.collection('users').getOne(member.id);
    expect(own.email).toBe(member.email);
    const codes = await viewer.send<{ codes: unknown[] }>(PATHS.codes, {});
    expect(Array.isArray(codes.codes)).toBe(true);

    // auth-refresh answers the same token: PocketBase's answer to a token that is not refreshable.
    const refreshed = await viewer.collection('users').authRefresh();
    expect(refreshed.token).toBe(token);
    expect(refreshed.record.id).toBe(member.id);
    expect(viewer.authStore.token).toBe(token);
  });

  it('keeps to the duration asked for, up to an hour', async () => {
    const short = jwtPayload((await viewAs(member, 600)).authStore.token);
    expect(short.exp).toBeGreaterThan(now() + 590);
    expect(short.exp).toBeLessThanOrEqual(now() + 600);
    const long = jwtPayload((await viewAs(member, 24 * 3600)).authStore.token);
    expect(long.exp).toBeGreaterThan(now() + 3590);
    expect(long.exp).toBeLessThanOrEqual(now() + 3600);
  });

  it("answers PocketBase's errors: guest 401, member 403, unknown 404, negative duration 400", async () => {
    const guest = await sdkError(sdkClient(t.url).collection('users').impersonate(member.id, 0));
    expect(guest.status).toBe(401);
    expect(guest.response).toEqual(envelope(401, MSG.needsAuth));

    const other = await t.verifiedUser();
    const plain = await sdkError(
      sdkClient(t.url, other.token).collection('users').impersonate(member.id, 0),
    );
    expect(plain.status).toBe(403);
    expect(plain.response).toEqual(envelope(403, NOT_A_SUPERUSER));

    const pb = await freshOperator();
    const unknown = await sdkError(pb.collection('users').impersonate('nosuchmember000', 0));
    expect(unknown.status).toBe(404);
    expect(unknown.response).toEqual(envelope(404, MSG[404]));

    const negative = await sdkError(pb.collection('users').impersonate(member.id, -1));
    expect(negative.status).toBe(400);
    expect(negative.response).toEqual(
      envelope(400, MSG.validate, {
        duration: {
          code: 'validation_min_greater_equal_than_required',
          message: 'Must be no less than 0.',
          params: { threshold: 0 },
        },
      }),
    );
  });

  it("asks a stale operator session to confirm it's them, and opens no view", async () => {
    const token = await t.tokenFor(op);
    await staleSession(t, token);
    const before = (await eventsOf(member.token)).length;
    const stale = await sdkError(
      sdkClient(t.url, token).collection('users').impersonate(member.id, 0),
    );
    expect(stale.status).toBe(403);
    expect(stale.response).toEqual(envelope(403, CONFIRM_IT_IS_YOU));
    expect(await eventsOf(member.token)).toHaveLength(before);
  });

  it('refuses the operator themselves, the initial user, another operator and a disabled member', async () => {
    const pb = await freshOperator();
    const self = await sdkError(pb.collection('users').impersonate(op.id, 0));
    expect(self.response).toEqual(envelope(403, SELF));
    const initial = await sdkError(pb.collection('users').impersonate(root.id, 0));
    expect(initial.response).toEqual(envelope(403, INITIAL));

    const rootPb = sdkClient(t.url, await t.tokenFor(root));
    const operator = await sdkError(rootPb.collection('users').impersonate(op.id, 0));
    expect(operator.response).toEqual(envelope(403, OPERATOR));

    const gone = await t.verifiedUser();
    expect((await t.post(admin.disable(gone.id), {}, root.token)).status).toBe(200);
    const disabled = await sdkError(pb.collection('users').impersonate(gone.id, 0));
    expect(disabled.response).toEqual(envelope(403, DISABLED));
  });

  it("refuses with the view's token what only the member may do; the member still can", async () => {
    const target = await t.verifiedUser();
    const viewer = await viewAs(target);
    const refused = async (call: Promise<unknown>) => {
      const err = await sdkError(call);
      expect(err.status).toBe(403);
      expect(err.response).toEqual(envelope(403, NOT_WHILE_VIEWING_AS));
    };
    const users = viewer.collection('users');
    const newPassword = strongPassword();
    await refused(
      users.update(target.id, {
        oldPassword: target.password,
        password: newPassword,
        passwordConfirm: newPassword,
      }),
    );
    await refused(users.requestEmailChange('elsewhere@example.com'));
    await refused(users.delete(target.id));
    await refused(viewer.send(PATHS.exportData, {}));
    await refused(viewer.send(PATHS.totpSetup, { method: 'POST', body: {} }));
    await refused(viewer.send(PATHS.passkeyOptions, { method: 'POST', body: {} }));
    await refused(viewer.send(PATHS.passkey('nosuchpasskey00'), { method: 'DELETE' }));
    await refused(viewer.send(REAUTH_PASSKEY_OPTIONS, { method: 'POST', body: {} }));
    // Even the member's right password does not make the view fresh.
    await refused(viewer.send(REAUTH, { method: 'POST', body: { password: target.password } }));
    const status = await viewer.send<{ fresh: boolean }>(REAUTH, {});
    expect(status.fresh).toBe(false);
    await refused(viewer.send(PATHS.sessions, { method: 'DELETE' }));
    const own = jwtPayload(target.token).sid as string;
    await refused(viewer.send(PATHS.session(own), { method: 'DELETE' }));
    // A name is not a way in: the view may change it, as the member could.
    const renamed = await users.update(target.id, { name: 'Seen by support' });
    expect(renamed.name).toBe('Seen by support');

    // Nothing of it reached the account: the old password signs in, the own session lives.
    expect((await t.login(target.email, target.password)).status).toBe(200);
    expect((await t.post(PATHS.refresh, {}, target.token)).status).toBe(200);
    expect((await t.get(PATHS.record(target.id), target.token)).body.email).toBe(target.email);
  });

  it("is on both sides' security logs, in the member's devices, and not their last sign-in", async () => {
    const target = await t.verifiedUser();
    const lastSignIn = async () =>
      (await t.get(admin.member(target.id), root.token)).body.lastSignIn as string;
    const signedIn = await lastSignIn();
    expect(signedIn).toEqual(expect.any(String));

    const viewer = await viewAs(target);
    const sid = jwtPayload(viewer.authStore.token).sid as string;
    expect(await lastSignIn()).toBe(signedIn);
    // The console's member page names the operator on that session.
    const detail = await t.get(admin.member(target.id), root.token);
    const viewed = (detail.body.sessions as Json[]).find((s) => s.id === sid);
    expect(viewed?.viewedBy).toBe(op.email);

    const theirs = await eventsOf(target.token);
    expect(theirs[0]).toMatchObject({
      type: 'admin_view_as',
      detail: { actor: op.id, session: sid },
    });
    expect(theirs.filter((e) => e.type === 'sign_in')).toHaveLength(1);
    const mine = await eventsOf(op.token);
    expect(mine[0]).toMatchObject({
      type: 'viewed_as',
      detail: { member: target.id, email: target.email, session: sid },
    });

    const devices = (await t.get(PATHS.sessions, target.token)).body.items as Json[];
    expect(devices).toHaveLength(2);
    const view = devices.find((d) => d.id === sid);
    expect(view).toMatchObject({ viewedBy: op.email, current: false });
    expect(devices.find((d) => d.id !== sid)).toMatchObject({ viewedBy: null, current: true });

    // Stop: the view ends on the server, and the member's log says so (not "signed out").
    await viewer.send(PATHS.logout, { method: 'POST' });
    const ended = await sdkError(viewer.collection('users').authRefresh());
    expect(ended.status).toBe(401);
    const after = await eventsOf(target.token);
    expect(after[0]).toMatchObject({
      type: 'admin_view_as_ended',
      detail: { actor: op.id, session: sid },
    });
    expect(after.some((e) => e.type === 'signed_out')).toBe(false);
    expect((await t.get(PATHS.sessions, target.token)).body.items).toHaveLength(1);
  });

  it('ends when its time is up', async () => {
    // Two seconds: a token's `exp` is whole seconds, so one second could end before the first use.
    const viewer = await viewAs(member, 2);
    expect((await viewer.collection('users').getOne(member.id)).id).toBe(member.id);
    await sleep(3100);
    const expired = await sdkError(viewer.collection('users').authRefresh());
    expect(expired.status).toBe(401);
  });

  it('ends when the operator is disabled or loses the role, or the member becomes an operator', async () => {
    const alive = (pb: PocketBase) =>
      pb
        .collection('users')
        .authRefresh()
        .then(
          () => true,
          () => false,
        );

    const second = await t.verifiedUser();
    await makeOperator(second);
    const disabledView = await viewAs(member, 0, second);
    expect(await alive(disabledView)).toBe(true);
    expect((await t.post(admin.disable(second.id), {}, root.token)).status).toBe(200);
    expect(await alive(disabledView)).toBe(false);
    const reasons = (await eventsOf(member.token))
      .filter((e) => e.type === 'admin_view_as_ended')
      .map((e) => e.detail.reason);
    expect(reasons).toContain('operator_disabled');

    const third = await t.verifiedUser();
    await makeOperator(third);
    const demotedView = await viewAs(member, 0, third);
    expect((await t.del(admin.operator(third.id), root.token)).status).toBe(200);
    expect(await alive(demotedView)).toBe(false);

    const promoted = await t.verifiedUser();
    const promotedView = await viewAs(promoted);
    await makeOperator(promoted);
    expect(await alive(promotedView)).toBe(false);
    // The member's own session stays.
    expect((await t.post(PATHS.refresh, {}, promoted.token)).status).toBe(200);
  });
});
