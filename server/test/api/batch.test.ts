import fs from 'node:fs';
import path from 'node:path';
import type PocketBase from 'pocketbase';
import type { RecordModel, RecordSubscription } from 'pocketbase';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS, subjects } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import { waitUntil } from '../support/ports.js';
import { CONFIRM_IT_IS_YOU, staleSession } from '../support/reauth.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import {
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';

/**
 * PocketBase's batch requests (POST /api/batch) through the official SDK's `pb.createBatch()`:
 * off until an operator turns it on, PocketBase's limits and errors, the users records' requests
 * checked exactly as when sent alone, and all of them in one transaction: one failing request
 * leaves everything as it was, and nothing is announced before the commit (docs/decisions/0055).
 */

const BATCH = '/api/batch';
const FAILED = 'Batch transaction failed.';
const INVALID = 'Invalid batch request data.';
const NOT_ALLOWED = 'Batch requests are not allowed.';
const READ_FAILED = 'Failed to read the submitted batch data.';

/** The batch's 400 for request `index` failing with `response` (its route's own answer). */
const failedAt = (index: number, response: unknown) => ({
  data: {
    requests: {
      [String(index)]: {
        code: 'batch_request_failed',
        message: 'Batch request failed.',
        response,
      },
    },
  },
  message: FAILED,
  status: 400,
});

const png = () =>
  sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 20, g: 90, b: 200 } } })
    .png()
    .toBuffer();

describe.each(DATABASES)('batch requests on %s', (db) => {
  let t: TestServer;
  let operator: User;
  let pbOperator: PocketBase;
  let defaults: Record<string, unknown>;

  beforeAll(async () => {
    t = await startTestServer({ db });
    operator = await t.initialUser();
    pbOperator = sdkClient(t.url, operator.token, operator.record);
    // As a new server has them; then on, as an operator turns them on, for every test below.
    defaults = (await pbOperator.settings.getAll()).batch;
    await pbOperator.settings.update({ batch: { enabled: true } });
  });
  afterAll(() => t?.close());

  const sdkOf = (user: User) => sdkClient(t.url, user.token, user.record);

  /** Changes the batch settings as the operator, for the length of `work`. */
  async function withBatchSettings(change: Record<string, unknown>, work: () => Promise<void>) {
    const before = (await pbOperator.settings.getAll()).batch;
    await pbOperator.settings.update({ batch: change });
    try {
      await work();
    } finally {
      await pbOperator.settings.update({ batch: before });
    }
  }

  /** The member's row as the database holds it (not through a cache). */
  const row = (id: string) =>
    withDatabase(t, (d) =>
      d.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
    );

  const signUpBody = (code: string, email = uniqueEmail('batch')) => {
    const password = strongPassword();
    return { email, password, passwordConfirm: password, inviteCode: code };
  };

  it('is off until an operator turns it on: 403 as PocketBase, and the settings show the batch group', async () => {
    expect(defaults).toEqual({ enabled: false, maxRequests: 50, timeout: 3, maxBodySize: 0 });
    const member = await t.verifiedUser();
    await withBatchSettings({ enabled: false }, async () => {
      const batch = sdkOf(member).createBatch();
      batch.collection('users').update(member.id, { name: 'Not yet' });
      const off = await sdkError(batch.send());
      expect(off.status).toBe(403);
      expect(off.response).toEqual({ data: {}, message: NOT_ALLOWED, status: 403 });
      expect((await row(member.id))!.name).toBe('');
    });

    // PocketBase's rules for the group: a count and a time limit while on, nothing below 0.
    const refused = await sdkError(
      pbOperator.settings.update({ batch: { enabled: true, maxRequests: 0, timeout: -1 } }),
    );
    expect(refused.response).toEqual({
      data: {
        batch: {
          maxRequests: { code: 'validation_required', message: 'Cannot be blank.' },
          timeout: {
            code: 'validation_min_greater_equal_than_required',
            message: 'Must be no less than 0.',
            params: { threshold: 0 },
          },
        },
      },
      message: 'An error occurred while saving the new settings.',
      status: 400,
    });
    // A member cannot change them.
    const notOperator = await sdkError(sdkOf(member).settings.update({ batch: { enabled: true } }));
    expect(notOperator.status).toBe(403);
    expect((await pbOperator.settings.getAll()).batch).toEqual({ ...defaults, enabled: true });
  });

  it('a member changes their own record in one batch: each answer is what its route answers', async () => {
    const member = await t.verifiedUser();
    const pb = sdkOf(member);
    const batch = pb.createBatch();
    batch.collection('users').update(member.id, { name: '  Ada Lovelace ' });
    batch.collection('users').update(member.id, { emailVisibility: true });
    const results = await batch.send();
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(results[0]!.body).toMatchObject({ id: member.id, name: 'Ada Lovelace' });
    // The second sees the first's change; and it is the record the single route shows now.
    expect(results[1]!.body).toEqual(await pb.collection('users').getOne(member.id));
    expect(results[1]!.body).toMatchObject({ name: 'Ada Lovelace', emailVisibility: true });
  });

  it('a guest signs up twice in one batch; an upsert without an id signs up, with their own id updates', async () => {
    const guest = sdkClient(t.url);
    const first = signUpBody(await t.newCode());
    const second = signUpBody(await t.newCode());
    const batch = guest.createBatch();
    batch.collection('users').create(first);
    batch.collection('users').upsert(second);
    const results = await batch.send();
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    for (const [i, body] of [first, second].entries()) {
      // As the sign-up route answers: the new member without their email.
      expect(results[i]!.body).not.toHaveProperty('email');
      const made = await withDatabase(t, (d) =>
        d.selectFrom('users').select('id').where('email', '=', body.email).executeTakeFirst(),
      );
      expect(made?.id).toBe(results[i]!.body.id);
    }

    const member = await t.verifiedUser();
    const upsert = sdkOf(member).createBatch();
    upsert.collection('users').upsert({ id: member.id, name: 'Upserted' });
    const [updated] = await upsert.send();
    expect(updated).toMatchObject({ status: 200, body: { id: member.id, name: 'Upserted' } });
  });

  it('one failing request rolls back every other: the data is as it was', async () => {
    const member = await t.verifiedUser();
    const other = await t.verifiedUser();
    const code = await t.newCode();
    const newcomer = signUpBody(code);
    const batch = sdkOf(member).createBatch();
    batch.collection('users').update(member.id, { name: 'Rolled back', emailVisibility: true });
    batch.collection('users').create(newcomer);
    batch.collection('users').delete(other.id);
    const failed = await sdkError(batch.send());
    expect(failed.status).toBe(400);
    expect(failed.response).toEqual(failedAt(2, { data: {}, message: MSG[404], status: 404 }));

    const after = await row(member.id);
    expect(after).toMatchObject({ name: '', email_visibility: 0 });
    expect(await row(other.id)).toBeDefined();
    const newcomerRow = await withDatabase(t, (d) =>
      d.selectFrom('users').select('id').where('email', '=', newcomer.email).executeTakeFirst(),
    );
    expect(newcomerRow).toBeUndefined();
    // The code the rolled-back sign-up used is still unused: it signs someone up now.
    const again = await t.signUp(code, newcomer.email, newcomer.password);
    expect(again.status, again.text).toBe(200);
  });

  it('as an operator: a request is refused exactly as the same request alone', async () => {
    const member = await t.verifiedUser();
    const before = (await row(operator.id))!.name;
    const alone = await sdkError(
      pbOperator.collection('users').update(member.id, { name: 'Operator was here' }),
    );
    const batch = pbOperator.createBatch();
    batch.collection('users').update(operator.id, { name: 'Operator batch' });
    batch.collection('users').update(member.id, { name: 'Operator was here' });
    const failed = await sdkError(batch.send());
    expect(failed.response).toEqual(failedAt(1, alone.response));
    expect(alone.status).toBe(404);
    expect((await row(operator.id))!.name).toBe(before);
    expect((await row(member.id))!.name).toBe('');
  });

  it('as a member: the fresh-session check, the fields and the old password refuse as alone, and a wrong guess stays in the security log', async () => {
    const member = await t.verifiedUser();
    const pb = sdkOf(member);
    const answerInBatch = async (add: (b: ReturnType<PocketBase['createBatch']>) => void) => {
      const batch = pb.createBatch();
      add(batch);
      const failed = await sdkError(batch.send());
      const requests = (failed.response.data as { requests: Record<string, { response: unknown }> })
        .requests;
      return requests['0']!.response;
    };

    // Fields: a name that is not text is unreadable; a name too long is the route's field error.
    for (const body of [{ name: 5 }, { name: 'x'.repeat(101) }]) {
      const alone = await sdkError(pb.collection('users').update(member.id, body));
      expect(alone.status).toBe(400);
      expect(await answerInBatch((b) => b.collection('users').update(member.id, body))).toEqual(
        alone.response,
      );
    }

    // A wrong old password: the same answer, and each attempt is in the security log.
    const failures = () =>
      withDatabase(t, (d) =>
        d
          .selectFrom('security_events')
          .select('id')
          .where('user_id', '=', member.id)
          .where('type', '=', 'password_changed')
          .where('outcome', '=', 'failure')
          .execute(),
      );
    const wrong = { oldPassword: 'not-my-password', password: strongPassword() };
    const change = { ...wrong, passwordConfirm: wrong.password };
    const alone = await sdkError(pb.collection('users').update(member.id, change));
    expect((await failures()).length).toBe(1);
    expect(await answerInBatch((b) => b.collection('users').update(member.id, change))).toEqual(
      alone.response,
    );
    expect((await failures()).length).toBe(2);

    // Deleting the account needs a fresh session, in a batch as alone.
    await staleSession(t, member.token);
    const staleAlone = await sdkError(pb.collection('users').delete(member.id));
    expect(staleAlone.response).toEqual({ data: {}, message: CONFIRM_IT_IS_YOU, status: 403 });
    expect(await answerInBatch((b) => b.collection('users').delete(member.id))).toEqual(
      staleAlone.response,
    );
    expect(await row(member.id)).toBeDefined();
  });

  it('a sign-up told an email is taken counts against the code in a batch too', async () => {
    const existing = await t.verifiedUser();
    const code = await t.newCode();
    const codeId = await withDatabase(t, async (d) => {
      const rows = await d.selectFrom('invite_codes').select(['id', 'code']).execute();
      return rows.find((r) => r.code.replaceAll('-', '') === code.replaceAll('-', ''))!.id;
    });
    const answers = () =>
      withDatabase(t, (d) =>
        d.selectFrom('taken_email_answers').select('id').where('code_id', '=', codeId).execute(),
      );
    const batch = sdkClient(t.url).createBatch();
    batch.collection('users').create(signUpBody(code, existing.email));
    const failed = await sdkError(batch.send());
    expect(failed.response).toEqual(
      failedAt(0, {
        data: { email: { code: 'validation_not_unique', message: 'Value must be unique.' } },
        message: MSG.create,
        status: 400,
      }),
    );
    // Counted though the batch was rolled back: a batch asks no more often than a request alone.
    expect((await answers()).length).toBe(1);
  });

  it('realtime events and mail wait for the commit; a rolled-back batch sends neither', async () => {
    const member = await t.verifiedUser();
    const other = await t.verifiedUser();
    const pb = sdkOf(member);
    const seen: Array<RecordSubscription<RecordModel>> = [];
    await pb.collection('users').subscribe(member.id, (e) => seen.push(e));
    try {
      const newPassword = strongPassword();
      const failing = pb.createBatch();
      failing.collection('users').update(member.id, {
        oldPassword: member.password,
        password: newPassword,
        passwordConfirm: newPassword,
      });
      failing.collection('users').update(member.id, { name: 'Never seen' });
      failing.collection('users').update(other.id, { name: 'Not mine' });
      expect((await sdkError(failing.send())).status).toBe(400);

      // Events arrive in order: the one after this update is the first one there is.
      await pb.collection('users').update(member.id, { name: 'Sentinel' });
      await waitUntil(() => seen.length >= 1, 5000, 'the update event');
      expect(seen.map((e) => [e.action, e.record.name])).toEqual([['update', 'Sentinel']]);
      // No password-change notice was queued, and the old password still signs in.
      await t.mail.expectNone(
        (m) => m.to.includes(member.email) && m.subject === subjects().passwordChanged,
        500,
      );
      expect((await t.login(member.email, member.password)).status).toBe(200);

      // Announced once committed: the listener reads the record then, and finds the last change.
      const passing = pb.createBatch();
      passing.collection('users').update(member.id, { name: 'First' });
      passing.collection('users').update(member.id, { name: 'Second' });
      passing.collection('users').update(member.id, {
        oldPassword: member.password,
        password: newPassword,
        passwordConfirm: newPassword,
      });
      await passing.send();
      await waitUntil(() => seen.length >= 4, 5000, 'the batch events');
      expect(seen.slice(1).map((e) => [e.action, e.record.name])).toEqual([
        ['update', 'Second'],
        ['update', 'Second'],
        ['update', 'Second'],
      ]);
      await t.mail.waitForMailTo(member.email, subjects().passwordChanged);
      expect((await t.login(member.email, newPassword)).status).toBe(200);
    } finally {
      pb.realtime.unsubscribe();
    }
  });

  it("PocketBase's limits: the number of requests, the body's size, the transaction's time", async () => {
    const member = await t.verifiedUser();
    const pb = sdkOf(member);

    await withBatchSettings({ maxRequests: 2 }, async () => {
      const batch = pb.createBatch();
      for (const name of ['a', 'b', 'c']) batch.collection('users').update(member.id, { name });
      const over = await sdkError(batch.send());
      expect(over.response).toEqual({
        data: {
          requests: {
            code: 'validation_length_too_long',
            message: 'The length must be no more than 2.',
            params: { max: 2, min: 0 },
          },
        },
        message: INVALID,
        status: 400,
      });
    });
    const empty = await sdkError(pb.createBatch().send());
    expect(empty.response).toEqual({
      data: { requests: { code: 'validation_required', message: 'Cannot be blank.' } },
      message: INVALID,
      status: 400,
    });

    await withBatchSettings({ maxBodySize: 300 }, async () => {
      const batch = pb.createBatch();
      batch.collection('users').update(member.id, { name: 'y'.repeat(100) });
      batch.collection('users').update(member.id, { name: 'z'.repeat(100) });
      const tooLarge = await sdkError(batch.send());
      expect(tooLarge.response).toEqual({ data: {}, message: MSG[413], status: 413 });
      // JSON bodies are held to it too.
      const json = await t.request('POST', BATCH, {
        body: {
          requests: [
            { method: 'PATCH', url: PATHS.record(member.id), body: { name: 'y'.repeat(400) } },
          ],
        },
        headers: { Authorization: member.token },
      });
      expect(json.status).toBe(413);
    });
    expect((await row(member.id))!.name).toBe('');

    // Past the time limit the transaction is rolled back: PocketBase's 400 with no detail. Each
    // password change checks the old password and hashes the new one (Argon2, several
    // milliseconds each even on a fast, idle machine): 200 of them take well over a second. 40
    // once finished within the second on such a machine. Past the limit nothing more runs, so a
    // slow machine ends after the second too.
    let password = member.password;
    const batch = pb.createBatch();
    for (let i = 0; i < 200; i++) {
      const next = strongPassword();
      batch
        .collection('users')
        .update(member.id, { oldPassword: password, password: next, passwordConfirm: next });
      password = next;
    }
    await withBatchSettings({ timeout: 1, maxRequests: 200 }, async () => {
      const late = await sdkError(batch.send());
      expect(late.response).toEqual({ data: {}, message: FAILED, status: 400 });
    });
    expect((await t.login(member.email, member.password)).status).toBe(200);
    expect((await t.login(member.email, password)).status).toBe(400);
  });

  it('multipart/form-data with @jsonPayload: an avatar as requests.N.avatar, kept or dropped with the batch', async () => {
    const member = await t.verifiedUser();
    const other = await t.verifiedUser();
    const pb = sdkOf(member);
    const file = async (name: string) => new File([await png()], name, { type: 'image/png' });

    const batch = pb.createBatch();
    batch
      .collection('users')
      .update(member.id, { name: 'Pictured', avatar: await file('portrait.png') });
    const [result] = await batch.send();
    expect(result!.status).toBe(200);
    expect(result!.body).toMatchObject({
      name: 'Pictured',
      avatar: expect.stringMatching(/^portrait_[a-z0-9]{10}\.png$/),
    });
    const avatar = result!.body.avatar as string;
    const served = async (name: string) => {
      const token = await pb.files.getToken();
      const url = pb.files.getURL({ ...result!.body, avatar: name }, name, { token });
      return (await fetch(url)).status;
    };
    expect(await served(avatar)).toBe(200);

    // A new avatar in a batch that fails: the record keeps its file, and the file is still there.
    const failing = pb.createBatch();
    failing.collection('users').update(member.id, { avatar: await file('new.png') });
    failing.collection('users').update(other.id, { name: 'Not mine' });
    expect((await sdkError(failing.send())).status).toBe(400);
    expect((await row(member.id))!.avatar).toBe(avatar);
    expect(await served(avatar)).toBe(200);
    if (db === 'sqlite') {
      const dir = path.join(t.dataDir, 'files', 'users', member.id);
      expect(fs.readdirSync(dir).filter((f) => !f.startsWith('thumbs_'))).toEqual([avatar]);
    } else {
      const names = await withDatabase(t, (d) =>
        d.selectFrom('member_files').select('name').where('user_id', '=', member.id).execute(),
      );
      expect([...new Set(names.map((n) => n.name))]).toEqual([avatar]);
    }

    // A JSON body is read the same way.
    const json = await t.request('POST', BATCH, {
      body: {
        requests: [{ method: 'PATCH', url: PATHS.record(member.id), body: { name: 'Json' } }],
      },
      headers: { Authorization: member.token },
    });
    expect(json.status, json.text).toBe(200);
    expect(json.body).toMatchObject([{ status: 200, body: { name: 'Json', avatar } }]);
  });

  it('a form sent from another site is refused like any form elsewhere (415)', async () => {
    const member = await t.verifiedUser();
    const payload = JSON.stringify({
      requests: [{ method: 'PATCH', url: PATHS.record(member.id), body: { name: 'Cross' } }],
    });
    const form = (headers: Record<string, string>) => {
      const body = new FormData();
      body.append('@jsonPayload', payload);
      return fetch(`${t.url}${BATCH}`, {
        method: 'POST',
        body,
        headers: { Authorization: member.token, ...headers },
      });
    };
    const cross = await form({ 'Sec-Fetch-Site': 'cross-site' });
    expect(cross.status).toBe(415);
    expect(await cross.json()).toEqual({
      data: {},
      message: 'Unsupported Content-Type.',
      status: 415,
    });
    expect((await form({ Origin: 'https://elsewhere.example' })).status).toBe(415);
    expect((await row(member.id))!.name).toBe('');
    const same = await form({ 'Sec-Fetch-Site': 'same-origin' });
    expect(same.status).toBe(200);
    expect((await row(member.id))!.name).toBe('Cross');
  });

  it("PocketBase's answers to what a batch cannot hold", async () => {
    const member = await t.verifiedUser();
    const post = (body: unknown) =>
      t.request('POST', BATCH, { body, headers: { Authorization: member.token } });

    const invalid = await post({
      requests: [
        {},
        { method: 'GET', url: '/valid' },
        { method: 'invalid', url: '/valid' },
        { method: 'POST', url: 'a'.repeat(2001) },
      ],
    });
    expect(invalid.body).toEqual({
      data: {
        requests: {
          '0': {
            method: { code: 'validation_required', message: 'Cannot be blank.' },
            url: { code: 'validation_required', message: 'Cannot be blank.' },
          },
          '2': { method: { code: 'validation_in_invalid', message: 'Must be a valid value.' } },
          '3': {
            url: {
              code: 'validation_length_too_long',
              message: 'The length must be no more than 2000.',
              params: { max: 2000, min: 0 },
            },
          },
        },
      },
      message: INVALID,
      status: 400,
    });

    // Not a record change: PocketBase's generic 400; another collection: its 404.
    const health = await post({ requests: [{ method: 'GET', url: '/api/health' }] });
    expect(health.body).toEqual(failedAt(0, { data: {}, message: MSG[400], status: 400 }));
    const codes = await post({
      requests: [
        { method: 'PATCH', url: PATHS.record(member.id), body: { name: 'Kept?' } },
        { method: 'POST', url: '/api/collections/invite_codes/records', body: {} },
      ],
    });
    expect(codes.body).toEqual(
      failedAt(1, { data: {}, message: 'Missing collection context.', status: 404 }),
    );
    expect((await row(member.id))!.name).toBe('');

    for (const body of [{ requests: 'all of them' }, { requests: [{ method: 1, url: '/x' }] }]) {
      const unreadable = await post(body);
      expect(unreadable.body).toEqual({ data: {}, message: READ_FAILED, status: 400 });
    }
    const broken = await t.request('POST', BATCH, { raw: '{"requests": [' });
    expect(broken.body).toEqual({ data: {}, message: READ_FAILED, status: 400 });
  });
});
