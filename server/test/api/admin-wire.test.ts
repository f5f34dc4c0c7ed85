import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';

/**
 * The console's answers are written from their schemas (contract/admin.ts), which set the order of
 * their keys: the bytes stay those documented (docs/api.md), PocketBase's error envelope included.
 */
describe.each(DATABASES)('the operator console answers byte for byte on %s', (db) => {
  let t: TestServer;
  let root: User;
  let member: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    root = await t.initialUser();
    member = await t.verifiedUser();
  });
  afterAll(() => t?.close());

  it('an error is {"data","message","status"}, in that order, as PocketBase writes it', async () => {
    const guest = await t.get('/api/admin/members');
    expect(guest.status).toBe(401);
    expect(guest.text).toBe(`{"data":{},"message":"${MSG.needsAuth}","status":401}`);
    const plain = await t.get('/api/admin/invite-tree', member.token);
    expect(plain.text).toBe(`{"data":{},"message":"${MSG[403]}","status":403}`);
    const unknown = await t.get('/api/admin/members/nosuchmember000', root.token);
    expect(unknown.text).toBe(`{"data":{},"message":"${MSG[404]}","status":404}`);
    const wrong = await t.post(PATHS.login, { identity: member.email, password: 'x' });
    expect(wrong.text).toBe(`{"data":{},"message":"${MSG.auth}","status":400}`);
  });

  it('a query parameter given twice is a 400 with the loading message (each is one text)', async () => {
    for (const query of [
      '/api/admin/members?q=a&q=b',
      '/api/admin/members?page=1&page=2',
      '/api/admin/invite-tree?depth=1&depth=2',
      '/api/admin/outbox?perPage=5&perPage=6',
      '/api/admin/security-events?type=a&type=b',
    ]) {
      const res = await t.get(query, root.token);
      expect(res.text, query).toBe(`{"data":{},"message":"${MSG.load}","status":400}`);
    }
  });

  it("a member's page keeps the documented order, down to waysIn", async () => {
    const res = await t.get(`/api/admin/members/${member.id}`, root.token);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      'id',
      'collectionId',
      'collectionName',
      'email',
      'emailVisibility',
      'verified',
      'name',
      'avatar',
      'language',
      'isInitialUser',
      'inviteCode',
      'created',
      'updated',
      'isOperator',
      'disabled',
      'invitedBy',
      'inviterDeleted',
      'invitees',
      'codes',
      'sessions',
      'lastSignIn',
      'events',
      'waysIn',
    ]);
    expect(res.text).toContain(
      '"waysIn":{"password":true,"twoStep":false,"passkeys":0,"providers":0}}',
    );
  });
});
