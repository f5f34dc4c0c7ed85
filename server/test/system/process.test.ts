import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { request } from '../support/http.js';
import { startServerProcess, type ServerProcess } from '../../../test-harness/server-process.js';
import { waitForOutput } from '../support/server-process.js';
import {
  createPgDatabase,
  inviteCodeFrom,
  strongPassword,
  testTokenSecret,
} from '../support/server.js';

/**
 * The server as an operator runs it: its own process (server/src/main.ts through tsx), reading
 * the environment, printing to its console, stopping on SIGTERM.
 */
async function startProcess(env: Record<string, string>): Promise<ServerProcess> {
  const p = await startServerProcess({
    entry: 'server/src/main.ts',
    env: { APP_URL: 'http://app.test', RATE_LIMITS: 'off', MAIL_POLL_MS: '50', ...env },
    pollMs: 100,
    name: 'The server',
  });
  // The start-up banner is written right after listen.
  await waitForOutput(p.output, /is running at|listening|http:\/\/127\.0\.0\.1/i, 5000).catch(
    () => {},
  );
  return p;
}

describe('the server process', () => {
  const cleanups: (() => Promise<unknown> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  });

  it('prints the bootstrap link; without SMTP_URL prints mails (recipient, subject, link); SIGTERM stops it cleanly', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-proc-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const p = await startProcess({ DATA_DIR: dir });
    cleanups.push(() => p.kill());

    const link = (
      await waitForOutput(p.output, /http:\/\/app\.test\/signup\?code=[^\s"]+/, 5000)
    )[0];
    const email = 'console-mail@example.com';
    const password = strongPassword();
    const su = await request(p.url, 'POST', PATHS.records, {
      body: { email, password, passwordConfirm: password, inviteCode: inviteCodeFrom(link) },
    });
    expect(su.status, su.text).toBe(200);
    expect(su.body.isInitialUser).toBe(true);
    const rv = await request(p.url, 'POST', PATHS.requestVerification, { body: { email } });
    expect(rv.status).toBe(204);
    const m = await waitForOutput(
      p.output,
      /http:\/\/app\.test\/verify-email\?token=([\w.-]+)/,
      5000,
    );
    expect(p.output()).toContain('c***@example.com');
    expect(p.output()).toContain('Verify your Gatehouse email');
    const confirm = await request(p.url, 'POST', PATHS.confirmVerification, {
      body: { token: m[1] },
    });
    expect(confirm.status, confirm.text).toBe(204);
    // The request log keeps secrets out: passwords, Authorization tokens, tokens and codes in URLs.
    const login = await request(p.url, 'POST', PATHS.login, {
      body: { identity: email, password },
    });
    expect(login.status).toBe(200);
    const auth = login.body.token as string;
    expect(
      (await request(p.url, 'GET', PATHS.codes, { headers: { Authorization: auth } })).status,
    ).toBe(200);
    await request(p.url, 'GET', '/verify-email?token=SECRET-IN-QUERY-123');
    await request(p.url, 'GET', '/signup?code=SECRETCODE-456');
    await new Promise((r) => setTimeout(r, 300));
    expect(p.output()).not.toContain(password);
    expect(p.output()).not.toContain(auth);
    expect(p.output()).not.toContain(auth.split('.')[2]);
    expect(p.output()).not.toContain('SECRET-IN-QUERY-123');
    expect(p.output()).not.toContain('SECRETCODE-456');

    const code = await Promise.race([
      p.stop().then((exit) => exit.code),
      new Promise((r) => setTimeout(() => r('timeout'), 12_000)),
    ]);
    expect(code).toBe(0);
  }, 60_000);

  it('survives PostgreSQL terminating its connections (restart, failover) and keeps answering', async () => {
    const database = await createPgDatabase();
    cleanups.push(database.drop);
    const p = await startProcess({
      DATA_DIR: os.tmpdir(),
      DATABASE_URL: database.url,
      TOKEN_SECRET: testTokenSecret(),
      LOG_LEVEL: 'silent',
    });
    cleanups.push(() => p.kill());

    // Open a few pooled connections, which then sit idle.
    const logins = await Promise.all(
      Array.from({ length: 3 }, () =>
        request(p.url, 'POST', PATHS.login, {
          body: { identity: 'x@example.com', password: 'Wrong-pass-123' },
        }),
      ),
    );
    expect(logins.map((r) => r.status)).toEqual([400, 400, 400]);

    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const killed = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(p.running, `the server process died:\n${p.output().slice(0, 600)}`).toBe(true);
    const health = await request(p.url, 'GET', PATHS.health);
    expect(health.status).toBe(200);
    const login = await request(p.url, 'POST', PATHS.login, {
      body: { identity: 'x@example.com', password: 'Wrong-pass-123' },
    });
    expect(login.body).toEqual({ data: {}, message: MSG.auth, status: 400 });
    await p.stop();
  }, 60_000);
});
