import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRecord } from '../support/checks.js';
import { MSG, PATHS } from '../support/contract.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import {
  DATABASES,
  startTestServer,
  strongPassword,
  type TestServer,
  type User,
} from '../support/server.js';

/**
 * PocketBase's record list of the users collection for operators, through the official SDK:
 * paging, filter, sort, skipTotal and fields, and PocketBase's 400 for what it cannot read.
 */
describe.each(DATABASES)('record lists for operators on %s', (db) => {
  let t: TestServer;
  let operator: User;
  let members: User[];
  let unverified: User[];
  let pb: PocketBase;

  /** Every member, as the operator's list should show them, oldest first. */
  const everyone = () =>
    [operator, ...members, ...unverified].map((u) => ({ id: u.id, email: u.email }));

  const filterError = (message: string, param = 'filter') => ({
    data: { [param]: { code: `validation_invalid_${param}`, message } },
    message: MSG[400],
    status: 400,
  });

  beforeAll(async () => {
    t = await startTestServer({ db });
    operator = await t.initialUser();
    members = [];
    for (const tag of ['ada.lovelace', 'alan_turing', 'grace.hopper']) {
      members.push(await t.verifiedUser(`${tag}@example.com`, strongPassword()));
    }
    unverified = [
      await t.unverifiedUser('barbara.liskov@example.org', strongPassword()),
      await t.unverifiedUser('ken.thompson@example.org', strongPassword()),
    ];
    // A name, set by the member through the record update.
    const ada = sdkClient(t.url, members[0]!.token);
    await ada.collection('users').update(members[0]!.id, { name: 'Ada King' });
    pb = sdkClient(t.url, operator.token);
  });
  afterAll(() => t?.close());

  it('lists every member, oldest first, with the email, in PocketBase’s list answer', async () => {
    const list = await pb.collection('users').getList(1, 20);
    expect(list).toMatchObject({ page: 1, perPage: 20, totalItems: 6, totalPages: 1 });
    expect(list.items.map((r) => ({ id: r.id, email: r.email }))).toEqual(everyone());
    for (const item of list.items) expectRecord(item);
    expect(list.items[1]).toMatchObject({ name: 'Ada King', verified: true });
    expect(list.items[4]).toMatchObject({ verified: false, emailVisibility: false });
  });

  it('pages: perPage, page and skipTotal (totals -1)', async () => {
    const second = await pb.collection('users').getList(2, 4);
    expect(second).toMatchObject({ page: 2, perPage: 4, totalItems: 6, totalPages: 2 });
    expect(second.items.map((r) => r.id)).toEqual(
      everyone()
        .slice(4)
        .map((u) => u.id),
    );
    const skipped = await pb.collection('users').getList(1, 2, { skipTotal: true });
    expect(skipped).toMatchObject({ totalItems: -1, totalPages: -1 });
    expect(skipped.items).toHaveLength(2);
    const capped = await pb.collection('users').getList(1, 5000, { skipTotal: true });
    expect(capped.perPage).toBe(1000);
  });

  it('filters with PocketBase’s grammar: &&, ||, parentheses, ~, dates and yes/no fields', async () => {
    const ids = async (filter: string, sort?: string) =>
      (await pb.collection('users').getFullList({ filter, ...(sort ? { sort } : {}) })).map(
        (r) => r.id,
      );
    const [ada, alan, grace] = members.map((m) => m.id);
    const [barbara, ken] = unverified.map((m) => m.id);

    expect(await ids('verified = false')).toEqual([barbara, ken]);
    expect(await ids('verified != true && email ~ "KEN"')).toEqual([ken]);
    // `~` contains, A–Z in any case; `%` of its own makes it a pattern; `_` is literal otherwise.
    expect(await ids('email ~ "ALAN_"')).toEqual([alan]);
    expect(await ids('email ~ "a%lovelace"')).toEqual([]);
    expect(await ids('email ~ "%lovelace@%"')).toEqual([ada]);
    expect(await ids("email !~ 'example.com'")).toEqual([barbara, ken]);
    // && binds tighter than ||, as in PocketBase (SQL's AND before OR).
    expect(
      await ids('email = "ken.thompson@example.org" || verified = true && name ~ "king"'),
    ).toEqual([ada, ken]);
    expect(
      await ids(
        '(email = "ken.thompson@example.org" || verified = true) && name = null',
        '-created',
      ),
    ).toEqual([ken, grace, alan, operator.id]);
    const graceRecord = await pb.collection('users').getFirstListItem(`id = "${grace}"`);
    expect(await ids(`created >= "${graceRecord.created}" && verified = true`)).toEqual([grace]);
    expect(await ids(`created > "2000-01-01" && created < @now`, '-created')).toEqual(
      everyone()
        .map((u) => u.id)
        .reverse(),
    );
    expect(await ids('id = "nosuchmember00" || 1 = 2')).toEqual([]);
    expect(await ids('emailVisibility ?= false')).toHaveLength(6);
  });

  it('sorts by allowed fields, several of them, ties broken by id', async () => {
    const byEmail = await pb.collection('users').getFullList({ sort: 'email' });
    expect(byEmail.map((r) => r.email)).toEqual(
      everyone()
        .map((u) => u.email)
        .sort(),
    );
    const byVerified = await pb.collection('users').getFullList({ sort: '-verified,-email' });
    const expected = [...everyone()]
      .map((u) => ({ ...u, verified: !unverified.some((x) => x.id === u.id) }))
      .sort((a, b) => Number(b.verified) - Number(a.verified) || (a.email < b.email ? 1 : -1));
    expect(byVerified.map((r) => r.email)).toEqual(expected.map((u) => u.email));
  });

  it('fields picks the record keys; getFirstListItem finds one or answers 404', async () => {
    const picked = await pb.collection('users').getList(1, 2, { fields: 'id,email' });
    expect(picked.items).toEqual(everyone().slice(0, 2));
    expect(picked.totalItems).toBe(6);
    const first = await pb
      .collection('users')
      .getFirstListItem(`email = "${members[2]!.email}"`, { fields: '*' });
    expectRecord(first, { id: members[2]!.id });
    const none = await sdkError(pb.collection('users').getFirstListItem('email = "nobody@x.y"'));
    expect(none.status).toBe(404);
  });

  it('a filter or sort it cannot read: 400 with PocketBase’s message and what is wrong', async () => {
    const cases: Array<[string, Record<string, string>, unknown]> = [
      [
        'unknown field',
        { filter: 'password = "x"' },
        filterError(
          'Unknown field "password": filter by id, email, emailVisibility, verified, name, inviteCode, created, updated.',
        ),
      ],
      [
        'text against yes/no',
        { filter: 'verified = "yes"' },
        filterError(
          'Cannot compare verified (true or false) = text: text is compared with quoted text, true or false with true, false or a number.',
        ),
      ],
      [
        'unclosed text',
        { filter: 'email = "ada' },
        filterError('Unclosed quoted text at character 9.'),
      ],
      [
        'missing operand',
        { filter: 'email =' },
        filterError(
          'Expected a right operand (a field, a quoted text or a number) at character 8, found the end.',
        ),
      ],
      ['only white space', { filter: '  ' }, filterError('The filter is empty.')],
      [
        'bad join',
        { filter: 'verified = true & email ~ "a"' },
        filterError('Invalid join "&" at character 17: use && or ||.'),
      ],
      [
        'unknown sort field',
        { sort: '-password' },
        filterError(
          'Cannot sort by "password": sort by id, email, emailVisibility, verified, name, inviteCode, created, updated.',
          'sort',
        ),
      ],
    ];
    for (const [name, query, expected] of cases) {
      const err = await sdkError(pb.collection('users').getList(1, 30, query));
      expect({ name, status: err.status, body: err.response }).toEqual({
        name,
        status: 400,
        body: expected,
      });
    }
  });

  it('the list an operator gets, members and guests are refused: PocketBase’s 403', async () => {
    const asked = await pb.collection('users').getList(1, 30, { filter: 'verified = true' });
    expect(asked.totalItems).toBe(4);
    for (const client of [sdkClient(t.url, members[1]!.token), sdkClient(t.url)]) {
      const err = await sdkError(
        client.collection('users').getList(1, 30, { filter: 'verified = true' }),
      );
      expect(err.status).toBe(403);
      expect(err.response).toEqual({ data: {}, message: MSG.superusers, status: 403 });
    }
    // Even a filter that cannot be read: the rule comes first, as in PocketBase.
    const res = await t.get(
      `${PATHS.records}?filter=${encodeURIComponent('((')}`,
      members[0]!.token,
    );
    expect(res.status).toBe(403);
  });
});
