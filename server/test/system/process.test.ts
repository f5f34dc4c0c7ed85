import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { request } from '../support/http.js';
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
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

interface Proc {
  child: ChildProcess;
  url: string;
  out: () => string;
  exited: Promise<number | null>;
}

async function startProcess(env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: 'http://app.test',
      RATE_LIMITS: 'off',
      MAIL_POLL_MS: '50',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    try {
      const res = await request(url, 'GET', PATHS.health);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The start-up banner is written right after listen.
  await waitForOutput(() => output, /is running at|listening|http:\/\/127\.0\.0\.1/i, 5000).catch(
    () => {},
  );
  return { child, url, out: () => output, exited };
}

async function waitForOutput(out: () => string, re: RegExp, ms: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = out().match(re);
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`no ${re} in output:\n${out()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the server process', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  });

  it('prints the bootstrap link; without SMTP_URL prints mails (recipient, subject, link); SIGTERM stops it cleanly', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-proc-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const p = await startProcess({ DATA_DIR: dir });
    cleanups.push(() => void p.child.kill('SIGKILL'));

    const link = (await waitForOutput(p.out, /http:\/\/app\.test\/signup\?code=[^\s"]+/, 5000))[0];
    const email = 'console-mail@example.com';
    const password = strongPassword();
    const su = await request(p.url, 'POST', PATHS.records, {
      body: { email, password, passwordConfirm: password, inviteCode: inviteCodeFrom(link) },
    });
    expect(su.status, su.text).toBe(200);
    expect(su.body.isInitialUser).toBe(true);
    const rv = await request(p.url, 'POST', PATHS.requestVerification, { body: { email } });
    expect(rv.status).toBe(204);
    const m = await waitForOutput(p.out, /http:\/\/app\.test\/verify-email\?token=([\w.-]+)/, 5000);
    expect(p.out()).toContain('c***@example.com');
    expect(p.out()).toContain('Verify your Gatehouse email');
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
    expect(p.out()).not.toContain(password);
    expect(p.out()).not.toContain(auth);
    expect(p.out()).not.toContain(auth.split('.')[2]);
    expect(p.out()).not.toContain('SECRET-IN-QUERY-123');
    expect(p.out()).not.toContain('SECRETCODE-456');

    p.child.kill('SIGTERM');
    const code = await Promise.race([
      p.exited,
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
    cleanups.push(() => void p.child.kill('SIGKILL'));

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
    expect(p.child.exitCode, `the server process died:\n${p.out().slice(0, 600)}`).toBeNull();
    const health = await request(p.url, 'GET', PATHS.health);
    expect(health.status).toBe(200);
    const login = await request(p.url, 'POST', PATHS.login, {
      body: { identity: 'x@example.com', password: 'Wrong-pass-123' },
    });
    expect(login.body).toEqual({ data: {}, message: MSG.auth, status: 400 });
    p.child.kill('SIGTERM');
    await p.exited;
  }, 60_000);
});
