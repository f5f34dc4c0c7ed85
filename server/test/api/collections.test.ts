import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATE_RE, MSG, RECORD_KEYS } from '../support/contract.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';

const FIXED =
  "Gatehouse's collections are fixed: users is the only one, and the server defines its fields and rules.";
const NOT_ALLOWED = 'The authorized record is not allowed to perform this action.';

/**
 * PocketBase's collections API, read-only: operators read the users collection in PocketBase's
 * schema shape through the SDK; every change is refused; members and guests get PocketBase's
 * answers to a non-superuser.
 */
describe.each(DATABASES)('collections on %s', (db) => {
  let t: TestServer;
  let operator: User;
  let member: User;

  beforeAll(async () => {
    t = await startTestServer({ db });
    operator = await t.initialUser();
    member = await t.verifiedUser();
  });
  afterAll(() => t?.close());

  it('an operator reads the users collection: list, by name, by id, first by filter', async () => {
    const pb = sdkClient(t.url, operator.token);
    const all = await pb.collections.getFullList();
    expect(all).toHaveLength(1);
    const users = all[0]!;
    expect(users).toMatchObject({
      id: '_pb_users_auth_',
      name: 'users',
      type: 'auth',
      system: true,
      listRule: null,
      viewRule: 'id = @request.auth.id',
      createRule: '',
      updateRule: 'id = @request.auth.id',
      deleteRule: 'id = @request.auth.id',
      passwordAuth: { enabled: true, identityFields: ['email'] },
      oauth2: { enabled: false, providers: [] },
      authToken: { duration: 432_000 },
      verificationToken: { duration: 86_400 },
      passwordResetToken: { duration: 1800 },
    });
    expect(users.created).toMatch(DATE_RE);
    expect(users.updated).toMatch(DATE_RE);
    expect(users.updated >= users.created).toBe(true);
    // No secret is described: tokens carry their lifetime only.
    expect(JSON.stringify(users)).not.toMatch(/secret/i);

    // Every key of a member's record is a field, with the password and token key hidden ones.
    const fields = users.fields as Array<{ name: string; hidden: boolean; id: string }>;
    const visible = fields.filter((f) => !f.hidden).map((f) => f.name);
    expect(visible.sort()).toEqual(
      RECORD_KEYS.filter((k) => k !== 'collectionId' && k !== 'collectionName'),
    );
    expect(fields.filter((f) => f.hidden).map((f) => f.name)).toEqual(['password', 'tokenKey']);
    expect(fields.find((f) => f.name === 'id')!.id).toBe('text3208210256');

    expect(await pb.collections.getOne('users')).toEqual(users);
    expect(await pb.collections.getOne('_pb_users_auth_')).toEqual(users);
    expect(await pb.collections.getFirstListItem('name = "users" && system = true')).toEqual(users);
    const none = await pb.collections.getList(1, 30, { filter: 'type = "base"' });
    expect(none).toMatchObject({ totalItems: 0, totalPages: 0, items: [] });
    const missing = await sdkError(pb.collections.getOne('posts'));
    expect(missing.status).toBe(404);
    expect(missing.response).toEqual({ data: {}, message: MSG[404], status: 404 });
    const bad = await sdkError(pb.collections.getList(1, 30, { filter: 'email = "x"' }));
    expect(bad.status).toBe(400);
    expect(bad.response.message).toBe(MSG[400]);
  });

  it('every change is refused, to an operator too: create, update, delete, truncate, import', async () => {
    const pb = sdkClient(t.url, operator.token);
    const attempts: Array<[string, () => Promise<unknown>]> = [
      ['create', () => pb.collections.create({ name: 'posts', type: 'base' })],
      ['update', () => pb.collections.update('users', { listRule: '' })],
      ['delete', () => pb.collections.delete('users')],
      ['truncate', () => pb.collections.truncate('users')],
      ['import', () => pb.collections.import([{ name: 'posts', type: 'base' } as never])],
    ];
    for (const [name, attempt] of attempts) {
      const err = await sdkError(attempt());
      expect({ name, status: err.status, body: err.response }).toEqual({
        name,
        status: 403,
        body: { data: {}, message: FIXED, status: 403 },
      });
    }
    const unknown = await sdkError(pb.collections.delete('posts'));
    expect(unknown.status).toBe(404);
    // Nothing changed.
    expect((await pb.collections.getOne('users')).listRule).toBeNull();
  });

  it('a member gets 403 and a guest 401, as from PocketBase', async () => {
    const asMember = sdkClient(t.url, member.token);
    for (const attempt of [
      () => asMember.collections.getFullList(),
      () => asMember.collections.getOne('users'),
      () => asMember.collections.delete('users'),
    ]) {
      const err = await sdkError(attempt());
      expect(err.status).toBe(403);
      expect(err.response).toEqual({ data: {}, message: NOT_ALLOWED, status: 403 });
    }
    const guest = await sdkError(sdkClient(t.url).collections.getOne('users'));
    expect(guest.status).toBe(401);
    expect(guest.response).toEqual({ data: {}, message: MSG.needsAuth, status: 401 });
  });
});
