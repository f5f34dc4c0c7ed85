import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../support/contract.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';
import { expectErrorShape } from '../support/table.js';

/**
 * `page` and `perPage` on every list (docs/api.md, Lists): missing takes the default, a `perPage`
 * over 100 is cut to 100, and any other value that is not a whole number from 1 is a 400 with a
 * field error, never a fallback or a database error (a 500 for `page=1e20`, once).
 */
const LISTS = [
  PATHS.securityEvents,
  '/api/admin/members',
  '/api/admin/outbox',
  '/api/admin/security-events',
];

const SAFE = Number.MAX_SAFE_INTEGER;
const BAD = ['1e20', '0', '-1', '1.5', 'abc', '', ' 2', '0x10', '9007199254740993', '1e2'];
const MESSAGE = 'Invalid page or perPage.';
const range = (max: number) => ({
  code: 'validation_number_out_of_range',
  message: `Must be a whole number from 1 to ${max}.`,
  params: { min: 1, max },
});
/** The last page of 30 (the default) whose offset is a safe integer. */
const LAST_PAGE = Math.floor(SAFE / 30) + 1;

describe.each(DATABASES)('list paging on %s', (db) => {
  let t: TestServer;
  let root: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    root = await t.initialUser();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(LISTS)(
    '%s: a page that is not a whole number from 1 is a 400 naming `page`',
    async (list) => {
      for (const bad of BAD) {
        const res = await t.get(`${list}?page=${encodeURIComponent(bad)}`, root.token);
        expect(res.status, `page=${bad}: ${res.text}`).toBe(400);
        expectErrorShape(res);
        expect(res.body, `page=${bad}`).toEqual({
          status: 400,
          message: MESSAGE,
          data: { page: range(LAST_PAGE) },
        });
      }
    },
  );

  it.each(LISTS)(
    '%s: a bad perPage is a 400 naming `perPage`; a big one is cut to 100',
    async (list) => {
      for (const bad of BAD) {
        const res = await t.get(`${list}?perPage=${encodeURIComponent(bad)}`, root.token);
        expect(res.status, `perPage=${bad}: ${res.text}`).toBe(400);
        expect(res.body, `perPage=${bad}`).toEqual({
          status: 400,
          message: MESSAGE,
          data: { perPage: range(SAFE) },
        });
      }
      const both = await t.get(`${list}?page=x&perPage=y`, root.token);
      expect(Object.keys(both.body.data).sort()).toEqual(['page', 'perPage']);
      const repeated = await t.get(`${list}?page=1&page=2`, root.token);
      expect(repeated.status).toBe(400);
      const big = await t.get(`${list}?perPage=${SAFE}`, root.token);
      expect(big.status, big.text).toBe(200);
      expect(big.body.perPage).toBe(100);
    },
  );

  it.each(LISTS)('%s: the defaults, and the last page the databases can skip to', async (list) => {
    const plain = await t.get(list, root.token);
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body).toMatchObject({ page: 1, perPage: 30 });

    const last = await t.get(`${list}?page=${LAST_PAGE}`, root.token);
    expect(last.status, last.text).toBe(200);
    expect(last.body).toMatchObject({ page: LAST_PAGE, perPage: 30, items: [] });
    const past = await t.get(`${list}?page=${LAST_PAGE + 1}`, root.token);
    expect(past.status, past.text).toBe(400);
    expect(past.body.data).toEqual({ page: range(LAST_PAGE) });

    // The limit follows perPage: with 100 a row, the last page is smaller.
    const last100 = Math.floor(SAFE / 100) + 1;
    const ok = await t.get(`${list}?perPage=100&page=${last100}&skipTotal=1`, root.token);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ page: last100, totalItems: -1, items: [] });
    const over = await t.get(`${list}?perPage=100&page=${last100 + 1}`, root.token);
    expect(over.body.data).toEqual({ page: range(last100) });
  });

  it('a guest still gets 401 before the paging is read', async () => {
    const res = await t.get(`${PATHS.securityEvents}?page=1e20`);
    expect(res.status).toBe(401);
  });
});
