import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import type { ApiResponse } from '../support/http.js';
import {
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';

/**
 * Sign-up tells the holder of a valid code that an email has an account (validation_not_unique)
 * at most 3 times per code and 10 times per inviter a day; past that the code is burnt and the
 * answer is the invalid-code one (docs/decisions/0019-enumeration-bounds-and-mail-lifetimes.md).
 */
const taken = {
  email: { code: 'validation_not_unique', message: 'Value must be unique.' },
};
const invalidCode = {
  inviteCode: {
    code: 'validation_invalid_invite_code',
    message: 'Invalid or already used invite code.',
  },
};

function expectFields(res: ApiResponse, data: object, what: string): void {
  expect(res.status, `${what}: ${res.text}`).toBe(400);
  expect(res.body, what).toEqual({ data, message: MSG.create, status: 400 });
}

describe.each(DATABASES)('sign-up as an email probe, bounded, on %s', (db) => {
  let t: TestServer;
  let existing: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    existing = await t.unverifiedUser();
  });
  afterAll(() => t?.close());

  /** A new verified member and their own five codes. */
  async function inviter(): Promise<{ user: User; codes: string[] }> {
    const user = await t.verifiedUser();
    const list = await t.get(PATHS.codes, user.token);
    expect(list.status).toBe(200);
    return { user, codes: (list.body.codes as { code: string }[]).map((c) => c.code) };
  }
  const probe = (code: string) => t.signUp(code, existing.email, strongPassword());
  const fresh = (code: string) => t.signUp(code, uniqueEmail('fresh'), strongPassword());
  const listed = async (user: User) =>
    ((await t.get(PATHS.codes, user.token)).body.codes as { code: string }[]).map((c) => c.code);

  it('a code says "email taken" 3 times; the 4th answer is invalid code, and the code is burnt', async () => {
    const { user, codes } = await inviter();
    const code = codes[0]!;
    for (let i = 1; i <= 3; i++) expectFields(await probe(code), taken, `answer ${i}`);
    expectFields(await probe(code), invalidCode, 'answer 4');
    // Burnt, not just blocked: a fresh email is refused too, and the code left its owner's list.
    expectFields(await fresh(code), invalidCode, 'a fresh email after the bound');
    expect(await listed(user)).not.toContain(code);
    // The owner's other codes are untouched.
    expect((await fresh(codes[1]!)).status).toBe(200);
  });

  it('an inviter\'s codes say "email taken" 10 times a day in all; the 11th burns its code', async () => {
    const { user, codes } = await inviter();
    const [a, b, c, d, e] = codes as [string, string, string, string, string];
    for (const code of [a, b, c]) {
      for (let i = 0; i < 3; i++) expectFields(await probe(code), taken, `3 on ${code}`);
    }
    expectFields(await probe(d), taken, 'answer 10');
    expectFields(await probe(d), invalidCode, 'answer 11');
    expectFields(await fresh(d), invalidCode, 'the 11th answer burnt its code');
    expect(await listed(user)).not.toContain(d);
    // Codes not burnt still invite people whose email is new.
    expect((await fresh(a)).status).toBe(200);
    expect((await fresh(e)).status).toBe(200);
  });

  it('the counts are kept in the database: they hold across a restart', async () => {
    const { codes } = await inviter();
    const code = codes[0]!;
    expectFields(await probe(code), taken, 'answer 1');
    expectFields(await probe(code), taken, 'answer 2');
    await t.restart();
    expectFields(await probe(code), taken, 'answer 3');
    expectFields(await probe(code), invalidCode, 'answer 4, after a restart');
  });
});
