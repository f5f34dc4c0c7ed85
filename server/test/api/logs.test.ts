import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { LogModel } from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import { insertLogEntries } from '../support/logs.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';

/** PocketBase's 403 at its superusers' routes, which operators may use here. */
const NOT_ALLOWED = 'The authorized record is not allowed to perform this action.';
/**
 * The request log through the official SDK (`pb.logs`), as PocketBase's logs API: every API
 * request is a row (its route's pattern, status, member, address, browser), written in batches
 * apart from the main data; operators read it, members may not; nothing secret is ever stored.
 */
describe.each(DATABASES)('the request log on %s', (db) => {
  let t: TestServer;
  let operator: User;
  let member: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    operator = await t.initialUser();
    member = await t.verifiedUser();
  });
  afterAll(() => t?.close());

  const asOperator = () => sdkClient(t.url, operator.token);

  /** The rows matching `filter`, newest first, once at least `min` of them are there. */
  async function rowsWhere(filter: string, min = 1): Promise<LogModel[]> {
    let items: LogModel[] = [];
    for (let i = 0; i < 40; i++) {
      ({ items } = await asOperator().logs.getList(1, 200, { filter, sort: '-@rowid' }));
      if (items.length >= min) return items;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return items;
  }

  /** Everything the store holds, as text: the SQLite file and its WAL, or PostgreSQL's table. */
  async function storedText(): Promise<string> {
    // A read writes what this instance has buffered first.
    await asOperator().logs.getList(1, 1);
    if (db === 'sqlite') {
      const file = path.join(t.dataDir, 'auxiliary.db');
      return ['', '-wal']
        .filter((suffix) => existsSync(file + suffix))
        .map((suffix) => readFileSync(file + suffix).toString('latin1'))
        .join('');
    }
    return withDatabase(t, async (kdb) => {
      const { rows } = await sql<{ text: string | null }>`
        select string_agg(entries, ' ') as text from logs`.execute(kdb);
      return rows[0]?.text ?? '';
    });
  }

  it("an operator sees each API request: the route's pattern, status, member, address and browser", async () => {
    const pb = sdkClient(t.url, member.token);
    await pb.send(PATHS.codes, { headers: { 'User-Agent': 'logs-test/1.0' } });
    await pb.collection('users').getOne(member.id, { headers: { 'User-Agent': 'logs-test/1.0' } });
    const missing = await t.get('/api/no-such-route');
    expect(missing.status).toBe(404);

    const rows = await rowsWhere(
      `data.authId = "${member.id}" && data.userAgent = "logs-test/1.0"`,
      2,
    );
    const codes = rows.find((r) => r.message === 'GET /api/invite-codes')!;
    expect(codes).toMatchObject({
      level: 0,
      data: {
        type: 'request',
        method: 'GET',
        url: '/api/invite-codes',
        status: 200,
        auth: 'users',
        authId: member.id,
        remoteIP: '127.0.0.1',
        userAgent: 'logs-test/1.0',
      },
    });
    expect(codes.id).toMatch(/^[a-z0-9]{15}$/);
    expect(codes.created).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(typeof codes.data.execTime).toBe('number');
    expect(Object.keys(codes).sort()).toEqual(['created', 'data', 'id', 'level', 'message']);

    // The pattern, never the path as sent: the record's id is not in it.
    const record = rows.find((r) => r.data.url === '/api/collections/users/records/:id')!;
    expect(record.message).toBe('GET /api/collections/users/records/:id');
    expect(JSON.stringify(record)).not.toContain(`records/${member.id}`);

    const [unmatched] = await rowsWhere('data.url = "(unmatched)" && data.status = 404');
    expect(unmatched).toMatchObject({ level: 8, message: 'GET (unmatched)' });

    expect(await asOperator().logs.getOne(codes.id)).toEqual(codes);
    const gone = await sdkError(asOperator().logs.getOne('nosuchlog000000'));
    expect(gone.status).toBe(404);
    expect(gone.response).toEqual({ data: {}, message: MSG[404], status: 404 });
  });

  it("a member gets PocketBase's 403 and a guest its 401", async () => {
    const pb = sdkClient(t.url, member.token);
    for (const call of [
      () => pb.logs.getList(1, 10),
      () => pb.logs.getStats(),
      () => pb.logs.getOne('nosuchlog000000'),
    ]) {
      const refused = await sdkError(call());
      expect(refused.status).toBe(403);
      expect(refused.response).toEqual({ data: {}, message: NOT_ALLOWED, status: 403 });
    }
    const guest = await sdkError(sdkClient(t.url).logs.getList(1, 10));
    expect(guest.status).toBe(401);
    expect(guest.response).toEqual({ data: {}, message: MSG.needsAuth, status: 401 });
  });

  it('no token, password or code ever reaches the stored log', async () => {
    const user = await t.verifiedUser();
    const wrong = `Wrong-${user.password}`;
    expect((await t.login(user.email, wrong)).status).toBe(400);
    const signedIn = await t.login(user.email, user.password);
    expect(signedIn.status).toBe(200);
    const token = signedIn.body.token as string;
    const inviteCode = await t.newCode();
    const queryToken = 'QueryTokenSecret1234567890';
    const queryCode = 'QRYC-ODES-ECRE-T000';
    expect(
      (await t.get(`${PATHS.codes}?token=${queryToken}&code=${queryCode}`, token)).status,
    ).toBe(200);
    expect((await t.get(`${PATHS.health}?token=${queryToken}`)).status).toBe(200);
    expect((await t.post('/api/gatehouse/invite-codes/check', { inviteCode })).status).toBe(204);
    expect((await t.post(PATHS.confirmVerification, { token })).status).toBe(400);
    const reset = await t.resetToken(user.email);
    const newPassword = `New-${user.password}`;
    expect(
      (
        await t.post(PATHS.confirmReset, {
          token: reset,
          password: newPassword,
          passwordConfirm: newPassword,
        })
      ).status,
    ).toBe(204);

    const rows = await rowsWhere(`data.url = "${PATHS.confirmReset}"`);
    expect(rows.length).toBeGreaterThan(0);
    const stored = await storedText();
    expect(stored).toContain(PATHS.login);
    for (const secret of [
      user.password,
      wrong,
      newPassword,
      token,
      reset,
      inviteCode,
      queryToken,
      queryCode,
    ]) {
      expect(stored).not.toContain(secret);
    }
  });

  it('filters and sorts as PocketBase does on the log fields; a filter or sort it cannot read is a 400', async () => {
    const pb = sdkClient(t.url, member.token);
    await sdkError(pb.send('/api/logs', {}));
    await pb.send(PATHS.codes, {});

    const errors = await rowsWhere('data.status >= 400 && data.method = "GET"');
    expect(errors.every((r) => (r.data.status as number) >= 400 && r.data.method === 'GET')).toBe(
      true,
    );
    expect(new Set(errors.map((r) => r.level))).toEqual(new Set([8]));
    // A refused read of the log is logged; successful ones are not (as in PocketBase).
    expect(errors.some((r) => r.data.url === '/api/logs')).toBe(true);

    const op = asOperator();
    const either = await op.logs.getList(1, 500, {
      filter: `(data.url = "/api/logs" || data.url ~ "invite-codes") && data.authId = '${member.id}'`,
    });
    expect(either.items.length).toBeGreaterThanOrEqual(2);
    expect(
      either.items.every((r) => ['/api/logs', '/api/invite-codes'].includes(r.data.url as string)),
    ).toBe(true);
    const none = await op.logs.getList(1, 10, {
      filter: 'data.method != "GET" && data.url = "/api/logs"',
    });
    expect(none.items).toEqual([]);
    expect(none.totalItems).toBe(0);

    const oldestFirst = await op.logs.getList(1, 30, { sort: 'created' });
    const newestFirst = await op.logs.getList(1, 30, { sort: '-created,-@rowid' });
    const created = (items: LogModel[]) => items.map((r) => r.created);
    expect(created(oldestFirst.items)).toEqual([...created(oldestFirst.items)].sort());
    expect(created(newestFirst.items)).toEqual([...created(newestFirst.items)].sort().reverse());
    expect(newestFirst.totalItems).toBe(oldestFirst.totalItems);
    const skipped = await op.logs.getList(1, 5, { skipTotal: true });
    expect(skipped).toMatchObject({ page: 1, perPage: 5, totalItems: -1, totalPages: -1 });

    for (const options of [
      { filter: 'password = "x"' },
      { filter: 'data.status >= "many"' },
      { filter: '(data.status = 200' },
      { filter: 'data.status === 200' },
      { sort: '-data.password' },
    ]) {
      const bad = await sdkError(op.logs.getList(1, 10, options));
      expect(bad.status).toBe(400);
      expect(bad.response).toEqual({ data: {}, message: MSG[400], status: 400 });
    }
    const badStats = await sdkError(op.logs.getStats({ filter: 'data.url ~ ' }));
    expect(badStats.status).toBe(400);
    expect(badStats.response).toEqual({ data: {}, message: 'Invalid filter format.', status: 400 });
  });

  it('counts rows per hour, with the same filter', async () => {
    // Requests of two past hours, written as the server writes them.
    await insertLogEntries(
      t,
      ['2026-11-20T09:15:00.000Z', '2026-11-20T09:59:59.999Z', '2026-11-20T11:00:00.000Z'].map(
        (iso) => ({ at: Date.parse(iso), url: '/api/seeded' }),
      ),
    );
    const op = asOperator();
    expect(await op.logs.getStats({ filter: 'data.url = "/api/seeded"' })).toEqual([
      { date: '2026-11-20 09:00:00.000Z', total: 2 },
      { date: '2026-11-20 11:00:00.000Z', total: 1 },
    ]);

    const all = await op.logs.getStats();
    for (const hour of all) expect(hour.date).toMatch(/^\d{4}-\d\d-\d\d \d\d:00:00\.000Z$/);
    expect(all.map((h) => h.date)).toEqual([...all.map((h) => h.date)].sort());
    const list = await op.logs.getList(1, 1);
    expect(all.reduce((sum, h) => sum + h.total, 0)).toBe(list.totalItems);
  });
});

describe('with LOGS_RETENTION_DAYS=0', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite', env: { LOGS_RETENTION_DAYS: '0' } });
  });
  afterAll(() => t?.close());

  it('no request is logged', async () => {
    const operator = await t.initialUser();
    expect((await t.get(PATHS.codes, operator.token)).status).toBe(200);
    const pb = sdkClient(t.url, operator.token);
    const list = await pb.logs.getList(1, 10);
    expect(list.totalItems).toBe(0);
  });
});
