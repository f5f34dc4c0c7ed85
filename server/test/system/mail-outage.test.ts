import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS, subjects } from '../support/contract.js';
import { DATABASES, startTestServer, type TestServer } from '../support/server.js';

const S = subjects();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(DATABASES)('mail delivery when SMTP fails, on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
    await t.initialUser();
  });
  afterAll(() => t?.close());

  it('SMTP down while a mail is queued, then up on the same port: it arrives exactly once', async () => {
    const u = await t.unverifiedUser();
    const port = t.mail.port;
    await t.mail.stop();
    const res = await t.post(PATHS.requestVerification, { email: u.email });
    expect(res.status).toBe(204);
    await sleep(700); // several failed attempts (retry base 100 ms)
    expect(t.mail.countTo(u.email)).toBe(0);
    await t.mail.start();
    expect(t.mail.port).toBe(port);
    const mail = await t.mail.waitForMailTo(u.email, S.verify, 15_000);
    expect(mail.text).toContain('http://app.test/verify-email?token=');
    await sleep(1500);
    expect(t.mail.countTo(u.email)).toBe(1);
    // The mail works: it verifies the account.
    const token = new URL(
      mail.text.match(/http:\/\/app\.test\/verify-email\?token=\S+/)![0],
    ).searchParams.get('token');
    expect((await t.post(PATHS.confirmVerification, { token })).status).toBe(204);
  });

  it('a temporary SMTP refusal (451) is retried: the mail arrives exactly once', async () => {
    const u = await t.verifiedUser();
    t.mail.refuseNext(2);
    expect((await t.post(PATHS.requestReset, { email: u.email })).status).toBe(204);
    await t.mail.waitForMailTo(u.email, S.reset, 15_000);
    await sleep(1000);
    expect(t.mail.countTo(u.email, S.reset)).toBe(1);
  });

  it('deleting a user drops their queued mail', async () => {
    const u = await t.verifiedUser();
    await t.mail.stop();
    try {
      expect((await t.post(PATHS.requestReset, { email: u.email })).status).toBe(204);
      await sleep(200);
      expect((await t.del(PATHS.record(u.id), u.token)).status).toBe(204);
    } finally {
      await t.mail.start();
    }
    await t.mail.expectNone(
      (m) => m.to.includes(u.email) && m.subject === S.reset,
      2500,
      'reset mail',
    );
  });

  it('a mail queued before a restart is sent after it', async () => {
    const u = await t.unverifiedUser();
    await t.mail.stop();
    expect((await t.post(PATHS.requestVerification, { email: u.email })).status).toBe(204);
    await sleep(300);
    await t.stop();
    await t.mail.start();
    await t.start();
    await t.mail.waitForMailTo(u.email, S.verify, 15_000);
    await sleep(800);
    expect(t.mail.countTo(u.email)).toBe(1);
  });
});
