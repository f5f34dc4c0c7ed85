import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS, subjects } from '../support/contract.js';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { waitUntil } from '../support/ports.js';
import { startTestServer, testTokenSecret, type TestServer, type User } from '../support/server.js';

/** Past one machine: several server processes on one PostgreSQL database (decisions.md). */
const S = subjects();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('two instances on one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;
  // Instances on PostgreSQL share the signing secret through TOKEN_SECRET, never the database.
  const TOKEN_SECRET = testTokenSecret();
  beforeAll(async () => {
    a = await startTestServer({ db: 'postgres', env: { TOKEN_SECRET } });
    await a.initialUser();
    // b sends through a's SMTP receiver, so every mail of either worker lands in one place.
    b = await startTestServer({
      db: 'postgres',
      shareDatabaseOf: a,
      env: { TOKEN_SECRET },
    });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('an instance without TOKEN_SECRET refuses to start, saying why', async () => {
    const env = { ...a.env, TOKEN_SECRET: '' };
    await expect(startServer(loadConfig(env), { logger: false })).rejects.toThrow(
      /TOKEN_SECRET must be set with DATABASE_URL/,
    );
  });

  it('they share token secrets and the resend throttle', async () => {
    const u = await a.unverifiedUser();
    const auth = await a.tokenFor(u);
    expect((await b.post(PATHS.refresh, {}, auth)).status).toBe(200);
    const onB = await b.login(u.email, u.password);
    expect((await a.get(PATHS.record(u.id), onB.body.token)).status).toBe(200);
    await a.verificationToken(u.email);
    expect((await b.post(PATHS.requestVerification, { email: u.email })).status).toBe(204);
    await sleep(700);
    expect(a.mail.countTo(u.email)).toBe(1);
  });

  it('a code consumed on one is used up on the other; an account made on one signs in on the other', async () => {
    const code = await a.newCode();
    expect((await b.signUp(code, 'made-on-b@example.com', 'Twin-Engines-4242')).status).toBe(200);
    const again = await a.signUp(code, 'late-on-a@example.com', 'Twin-Engines-4242');
    expect(again.body.data.inviteCode.code).toBe('validation_invalid_invite_code');
    expect((await a.login('made-on-b@example.com', 'Twin-Engines-4242')).status).toBe(200);
  });

  it('a session ended on one instance is refused by the other within a second', async () => {
    const u = await a.verifiedUser();
    const onB = await b.login(u.email, u.password);
    expect((await b.get(PATHS.codes, onB.body.token)).status).toBe(200);
    expect((await a.get(PATHS.codes, onB.body.token)).status).toBe(200);
    // Signed out on A: B refuses the token within the cache's bound (a second; docs/decisions/0039).
    expect((await a.post(PATHS.logout, {}, onB.body.token)).status).toBe(204);
    await refusedWithinASecond(b, onB.body.token);
    // Sign out all other devices on B: A refuses the ended one at once.
    const second = await a.login(u.email, u.password);
    expect((await a.get(PATHS.codes, second.body.token)).status).toBe(200);
    expect((await b.del(PATHS.sessions, u.token)).status).toBe(204);
    await refusedWithinASecond(a, second.body.token);
    expect((await a.get(PATHS.codes, u.token)).status).toBe(200);
  });

  it('an operator disabling a member on one instance ends their sessions on the other within a second', async () => {
    const root = await a.initialUser();
    const u = await a.verifiedUser();
    const onB = await b.login(u.email, u.password);
    expect((await b.get(PATHS.codes, onB.body.token)).status).toBe(200);
    expect((await a.get(PATHS.codes, u.token)).status).toBe(200);
    expect((await a.post(`/api/admin/members/${u.id}/disable`, {}, root.token)).status).toBe(200);
    await refusedWithinASecond(b, onB.body.token);
    expect((await b.get(PATHS.codes, u.token)).status).toBe(401);
    expect((await a.get(PATHS.codes, onB.body.token)).status).toBe(401);
    expect((await b.login(u.email, u.password)).status).toBe(403);
    expect((await b.post(`/api/admin/members/${u.id}/enable`, {}, root.token)).status).toBe(200);
    expect((await a.login(u.email, u.password)).status).toBe(200);
  });

  it('mail queued while SMTP is down is sent exactly once although both workers poll', async () => {
    const users: User[] = [];
    for (let i = 0; i < 3; i++) users.push(await a.verifiedUser());
    await a.mail.stop();
    try {
      for (const [i, u] of users.entries()) {
        const via = i % 2 ? a : b;
        expect((await via.post(PATHS.requestReset, { email: u.email })).status).toBe(204);
      }
      await sleep(500);
    } finally {
      await a.mail.start();
    }
    for (const u of users) await a.mail.waitForMailTo(u.email, S.reset, 15_000);
    await sleep(1500);
    for (const u of users) expect(a.mail.countTo(u.email, S.reset), u.email).toBe(1);
  });
});

/** The revocation bound on PostgreSQL: an ended session is refused within a second. */
async function refusedWithinASecond(server: TestServer, token: string): Promise<void> {
  await waitUntil(
    async () => (await server.get(PATHS.codes, token)).status === 401,
    1000,
    'the ended session to be refused',
  );
}
