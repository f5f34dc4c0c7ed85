import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import {
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';

/**
 * POST /api/gatehouse/invite-codes/check: sign-up's early look at a typed code. 204 for a code
 * that would let someone sign up now, else sign-up's own field error; limited like sign-up
 * (docs/decisions/0033-invite-code-check-before-sign-up.md).
 */
const CHECK = '/api/gatehouse/invite-codes/check';

const invalidCode = {
  data: {
    inviteCode: {
      code: 'validation_invalid_invite_code',
      message: 'Invalid or already used invite code.',
    },
  },
  message: MSG.validate,
  status: 400,
};

describe.each(DATABASES)('invite code check on %s', (db) => {
  let t: TestServer;
  let member: User;
  let codes: string[];
  beforeAll(async () => {
    t = await startTestServer({ db });
    member = await t.verifiedUser();
    const list = await t.get(PATHS.codes, member.token);
    codes = (list.body.codes as { code: string }[]).map((c) => c.code);
  });
  afterAll(() => t?.close());

  it('an unused code: 204, as typed, lower-case, or without its dashes; it stays unused', async () => {
    const code = codes[0]!;
    for (const typed of [code, code.toLowerCase(), ` ${code.replace(/-/g, '')} `]) {
      const res = await t.post(CHECK, { inviteCode: typed });
      expect(res.status, `${typed}: ${res.text}`).toBe(204);
      expect(res.text).toBe('');
    }
    const list = await t.get(PATHS.codes, member.token);
    expect((list.body.codes as { code: string }[]).map((c) => c.code)).toContain(code);
  });

  it('an unknown code, and a code once it is used: sign-up’s invalid-code field error', async () => {
    const unknown = await t.post(CHECK, { inviteCode: 'NOPE-NOPE-NOPE-NOPE-NOPE' });
    expect(unknown.body).toEqual(invalidCode);

    const code = codes[1]!;
    expect((await t.signUp(code, uniqueEmail('checked'), strongPassword())).status).toBe(200);
    const used = await t.post(CHECK, { inviteCode: code });
    expect(used.status).toBe(400);
    expect(used.body).toEqual(invalidCode);
  });

  it('a blank code: validation_required; a body that is not an object: loading error', async () => {
    for (const body of [{}, { inviteCode: '' }, { inviteCode: ' - ' }]) {
      const res = await t.post(CHECK, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.data.inviteCode.code).toBe('validation_required');
    }
    const wrongType = await t.post(CHECK, { inviteCode: 42 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.data).toEqual({});
  });
});

describe.each(DATABASES)('invite code check before anyone signed up, on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
  });
  afterAll(() => t?.close());

  it('the printed bootstrap code says it makes the initial member, until it is used', async () => {
    const code = new URL(t.bootstrapLink ?? '').searchParams.get('code') ?? '';
    expect(code).not.toBe('');
    const res = await t.post(CHECK, { inviteCode: code });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ initialUser: true });

    await t.initialUser();
    const used = await t.post(CHECK, { inviteCode: code });
    expect(used.body).toEqual(invalidCode);
    // Ordinary codes still answer 204.
    const member = await t.verifiedUser();
    const list = await t.get(PATHS.codes, member.token);
    const [own] = (list.body.codes as { code: string }[]).map((c) => c.code);
    expect((await t.post(CHECK, { inviteCode: own })).status).toBe(204);
  });
});

describe('invite code check: the limit', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite', env: { RATE_LIMITS: 'on' } });
  });
  afterAll(() => t?.close());

  it('10 checks a minute from one network; the 11th is 429 before the code is looked at', async () => {
    for (let i = 1; i <= 10; i++) {
      expect((await t.post(CHECK, { inviteCode: `GUESS-${i}` })).status, `check ${i}`).toBe(400);
    }
    const over = await t.post(CHECK, { inviteCode: 'GUESS-11' });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ data: {}, message: MSG[429], status: 429 });
  });
});
