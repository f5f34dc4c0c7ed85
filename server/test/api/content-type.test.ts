import PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, PATHS, subjects } from '../support/contract.js';
import type { ApiResponse } from '../support/http.js';
import {
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
} from '../support/server.js';
import { expectErrorShape } from '../support/table.js';

/**
 * Only JSON bodies reach the API: a cross-site `text/plain` or form post (which a browser sends
 * without a CORS preflight) is refused with 415 before any action runs (docs/decisions/0017).
 */
const S = subjects();

function expectUnsupported(res: ApiResponse): void {
  expect(res.status, res.text).toBe(415);
  expect(res.body).toEqual(envelope(415, 'Unsupported Content-Type.'));
  expectErrorShape(res);
}

describe.each(DATABASES)('request content types on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
    await t.initialUser();
  });
  afterAll(() => t?.close());

  const post = (path: string, contentType: string, raw: string) =>
    t.request('POST', path, { headers: { 'Content-Type': contentType }, raw });

  async function signUpJson() {
    const v = { code: await t.newCode(), email: uniqueEmail('ctype'), password: strongPassword() };
    const json = JSON.stringify({
      email: v.email,
      password: v.password,
      passwordConfirm: v.password,
      inviteCode: v.code,
    });
    return { ...v, json };
  }

  it('a JSON sign-up sent as text/plain → 415; no account is made and the code stays usable', async () => {
    const v = await signUpJson();
    expectUnsupported(await post(PATHS.records, 'text/plain;charset=UTF-8', v.json));
    expect((await t.login(v.email, v.password)).status).toBe(400);
    expect((await t.signUp(v.code, v.email, v.password)).status).toBe(200);
  });

  it('a JSON reset request sent as text/plain → 415; no mail is queued', async () => {
    const u = await t.verifiedUser();
    expectUnsupported(await post(PATHS.requestReset, 'text/plain', JSON.stringify(u)));
    await t.mail.expectNone((m) => m.to.includes(u.email) && m.subject === S.reset, 600);
  });

  it('a form post (application/x-www-form-urlencoded) or multipart → 415', async () => {
    const u = await t.verifiedUser();
    const form = new URLSearchParams({ identity: u.email, password: u.password }).toString();
    expectUnsupported(await post(PATHS.login, 'application/x-www-form-urlencoded', form));
    expectUnsupported(
      await post(PATHS.login, 'multipart/form-data; boundary=zzz', '--zzz\r\n\r\nx\r\n--zzz--'),
    );
  });

  it('a body with an empty Content-Type → 415', async () => {
    const res = await t.request('POST', PATHS.requestVerification, {
      headers: { 'Content-Type': '' },
      raw: JSON.stringify({ email: uniqueEmail('none') }),
    });
    expectUnsupported(res);
  });

  it('application/json; charset=utf-8, capitals and application/…+json are accepted', async () => {
    const a = await signUpJson();
    const ok = await post(PATHS.records, 'application/json; charset=utf-8', a.json);
    expect(ok.status, ok.text).toBe(200);
    const b = await signUpJson();
    const caps = await post(PATHS.records, 'Application/JSON', b.json);
    expect(caps.status, caps.text).toBe(200);
    const plus = await post(
      PATHS.requestVerification,
      'application/merge-patch+json',
      JSON.stringify({ email: uniqueEmail('plus') }),
    );
    expect(plus.status, plus.text).toBe(204);
  });

  it('a request without a body is not refused, whatever its Content-Type', async () => {
    const u = await t.verifiedUser();
    const refresh = await t.request('POST', PATHS.refresh, {
      headers: { Authorization: u.token, 'Content-Type': 'text/plain' },
      raw: '',
    });
    expect(refresh.status, refresh.text).toBe(200);
  });

  it('the SDK still works: bodiless DELETE (JSON type, empty body) and auth-refresh', async () => {
    const user = await t.verifiedUser();
    const pb = new PocketBase(t.url);
    pb.autoCancellation(false);
    await pb.collection('users').authWithPassword(user.email, user.password);
    const refreshed = await pb.collection('users').authRefresh();
    expect(refreshed.record.id).toBe(user.id);
    expect(await pb.collection('users').delete(user.id)).toBe(true);
    expect((await t.login(user.email, user.password)).status).toBe(400);
  });
});
