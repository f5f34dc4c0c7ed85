import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { PATHS, subjects } from './contract.js';
import { request, type ApiResponse, type Json, type RequestOptions } from './http.js';
import { MailReceiver, tokenFromMail } from './mail.js';

export type DbKind = 'sqlite' | 'postgres';
export const DATABASES: DbKind[] = ['sqlite', 'postgres'];

export const APP_URL = 'http://app.test';
export const PG_ADMIN_URL =
  process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface User {
  email: string;
  password: string;
  id: string;
  /** An auth token (from auth-with-password); '' when the helper did not sign in. */
  token: string;
  record: Json;
}

export interface TestServerOptions {
  db: DbKind;
  /** Extra or overriding environment variables. */
  env?: Record<string, string>;
  /** Reuse this database instead of creating one (a second instance; not dropped on close). */
  shareDatabaseOf?: TestServer;
  /** With db 'postgres': this database (say, on the test's own PostgreSQL), not a new one. */
  databaseUrl?: string;
}

let counter = 0;
/** A unique, lower-case email address. */
export function uniqueEmail(tag = 'user'): string {
  counter += 1;
  return `${tag}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}@example.com`;
}

export function strongPassword(): string {
  return `Tidal-Lantern-${randomBytes(6).toString('hex')}`;
}

/** A random TOKEN_SECRET (required on PostgreSQL, shared by the instances of one database). */
export function testTokenSecret(): string {
  return `test-token-secret-${randomBytes(24).toString('base64url')}`;
}

/** The code in a sign-up link `APP_URL/signup?code=CODE`. */
export function inviteCodeFrom(link: string): string {
  const code = new URL(link).searchParams.get('code');
  if (!code) throw new Error(`No code in link ${link}`);
  return code;
}

/** A fresh, empty PostgreSQL database; `drop()` removes it (forcibly, after a grace period). */
export async function createPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `gh_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      try {
        // Let connections that are closing finish first: FORCE terminates them, and a client of a
        // pool that is still ending would then report the termination as an error.
        for (let i = 0; i < 40; i++) {
          const r = await c.query(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
            [name],
          );
          if (r.rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export class TestServer {
  /** The SMTP receiver this server mails through; instances on one database share one. */
  mail = new MailReceiver();
  url = '';
  bootstrapLink: string | null = null;
  config!: Config;
  env: Record<string, string> = {};
  dataDir = '';
  databaseUrl: string | undefined;
  private running: RunningServer | null = null;
  private cleanups: (() => Promise<void> | void)[] = [];
  private initial: Promise<User> | null = null;
  private codePool: string[] = [];
  private codesListed = false;

  constructor(readonly db: DbKind) {}

  /** Prepares storage and mail, then starts the server. */
  async init(options: TestServerOptions): Promise<void> {
    if (options.shareDatabaseOf) {
      // The mail outbox lives in the shared database, so either instance's worker may send a
      // mail the other queued: like the SMTP server of a real deployment, the receiver is one.
      this.mail = options.shareDatabaseOf.mail;
      this.dataDir = options.shareDatabaseOf.dataDir;
      this.databaseUrl = options.shareDatabaseOf.databaseUrl;
    } else {
      await this.mail.start();
      this.cleanups.push(() => this.mail.stop());
      this.dataDir = mkdtempSync(path.join(os.tmpdir(), 'gh-test-'));
      const dir = this.dataDir;
      this.cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      if (options.databaseUrl) {
        this.databaseUrl = options.databaseUrl;
      } else if (this.db === 'postgres') {
        const created = await createPgDatabase();
        this.databaseUrl = created.url;
        this.cleanups.push(created.drop);
      }
    }
    // PostgreSQL needs TOKEN_SECRET (the secret must not live in the shared database); a second
    // instance on the same database shares the first one's.
    const tokenSecret =
      options.shareDatabaseOf?.env.TOKEN_SECRET ??
      (this.db === 'postgres' ? testTokenSecret() : undefined);
    this.env = {
      PORT: '0',
      HOST: '127.0.0.1',
      APP_URL,
      DATA_DIR: this.dataDir,
      SMTP_URL: this.mail.url,
      MAIL_FROM: 'Gatehouse <no-reply@app.test>',
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'silent',
      MAIL_POLL_MS: '50',
      MAIL_RETRY_BASE_MS: '100',
      ...(this.databaseUrl ? { DATABASE_URL: this.databaseUrl } : {}),
      ...(tokenSecret ? { TOKEN_SECRET: tokenSecret } : {}),
      ...options.env,
    };
    await this.start();
  }

  /** The routes the running server registered (method and path pattern). */
  get routes(): Array<{ method: string; url: string }> {
    return this.running?.routes ?? [];
  }

  /** Starts (again) with the current env; storage, secrets and mail receiver are kept. */
  async start(envOverride: Record<string, string> = {}): Promise<void> {
    if (this.running) throw new Error('already running');
    Object.assign(this.env, envOverride);
    this.config = loadConfig(this.env);
    this.running = await startServer(this.config, { logger: false });
    this.url = this.running.url;
    this.bootstrapLink = this.running.bootstrapLink;
  }

  /** Stops the HTTP server and mail worker only. */
  async stop(): Promise<void> {
    const r = this.running;
    this.running = null;
    if (r) await r.close();
  }

  async restart(envOverride: Record<string, string> = {}): Promise<void> {
    await this.stop();
    await this.start(envOverride);
  }

  async close(): Promise<void> {
    await this.stop().catch(() => {});
    for (const c of this.cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
    this.cleanups = [];
  }

  // ------------------------------------------------------------------------------- HTTP

  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse> {
    return request(this.url, method, path, options);
  }

  get(path: string, token?: string): Promise<ApiResponse> {
    return this.request('GET', path, { headers: token ? { Authorization: token } : {} });
  }

  post(path: string, body?: unknown, token?: string): Promise<ApiResponse> {
    return this.request('POST', path, {
      body: body ?? {},
      headers: token ? { Authorization: token } : {},
    });
  }

  patch(path: string, body: unknown, token?: string): Promise<ApiResponse> {
    return this.request('PATCH', path, { body, headers: token ? { Authorization: token } : {} });
  }

  del(path: string, token?: string): Promise<ApiResponse> {
    return this.request('DELETE', path, { headers: token ? { Authorization: token } : {} });
  }

  signUp(code: string, email: string, password: string, extra: Json = {}): Promise<ApiResponse> {
    return this.post(PATHS.records, {
      email,
      password,
      passwordConfirm: password,
      inviteCode: code,
      ...extra,
    });
  }

  login(email: string, password: string): Promise<ApiResponse> {
    return this.post(PATHS.login, { identity: email, password });
  }

  /** Asks for a verification mail and returns the token from its link. */
  async verificationToken(email: string): Promise<string> {
    const res = await this.post(PATHS.requestVerification, { email });
    if (res.status !== 204) throw new Error(`request-verification: ${res.status} ${res.text}`);
    const mail = await this.mail.waitForMailTo(email, subjects().verify);
    return tokenFromMail(mail, `${this.env.APP_URL ?? APP_URL}/verify-email?token=`);
  }

  /** Asks for a password-reset mail and returns the token from its link. */
  async resetToken(email: string): Promise<string> {
    const res = await this.post(PATHS.requestReset, { email });
    if (res.status !== 204) throw new Error(`request-password-reset: ${res.status} ${res.text}`);
    const mail = await this.mail.waitForMailTo(email, subjects().reset);
    return tokenFromMail(mail, `${this.env.APP_URL ?? APP_URL}/reset-password?token=`);
  }

  // ------------------------------------------------------------------------------- users

  /** The initial user (signed up with the bootstrap code, verified, signed in). Made once. */
  initialUser(): Promise<User> {
    this.initial ??= (async () => {
      if (!this.bootstrapLink) throw new Error('This server start made no bootstrap link');
      const code = inviteCodeFrom(this.bootstrapLink);
      return this.completeUser(code, uniqueEmail('initial'), strongPassword());
    })();
    return this.initial;
  }

  /** An unused invite code of the initial user (generating more when needed). */
  async newCode(): Promise<string> {
    const initial = await this.initialUser();
    if (this.codePool.length === 0) {
      // The initial user's own codes once; after that only newly generated ones: a later list
      // also holds codes a test made for its own use (an invitation by email, say).
      if (!this.codesListed) {
        this.codesListed = true;
        const list = await this.get(PATHS.codes, initial.token);
        if (list.status !== 200) throw new Error(`invite-codes: ${list.status} ${list.text}`);
        this.codePool.push(...(list.body.codes as { code: string }[]).map((c) => c.code));
      }
      const gen = await this.post(PATHS.generate, {}, initial.token);
      if (gen.status !== 200) throw new Error(`generate: ${gen.status} ${gen.text}`);
      this.codePool.push(...(gen.body.codes as { code: string }[]).map((c) => c.code));
    }
    return this.codePool.pop()!;
  }

  /** Signs up a new account (not verified, not signed in). */
  async unverifiedUser(email = uniqueEmail(), password = strongPassword()): Promise<User> {
    const code = await this.newCode();
    const res = await this.signUp(code, email, password);
    if (res.status !== 200) throw new Error(`sign-up: ${res.status} ${res.text}`);
    return { email, password, id: res.body.id, token: '', record: res.body };
  }

  /** Signs up, verifies through the mailed link and signs in. */
  async verifiedUser(email = uniqueEmail(), password = strongPassword()): Promise<User> {
    return this.completeUser(await this.newCode(), email, password);
  }

  private async completeUser(code: string, email: string, password: string): Promise<User> {
    const res = await this.signUp(code, email, password);
    if (res.status !== 200) throw new Error(`sign-up: ${res.status} ${res.text}`);
    const token = await this.verificationToken(email);
    const confirm = await this.post(PATHS.confirmVerification, { token });
    if (confirm.status !== 204) throw new Error(`confirm: ${confirm.status} ${confirm.text}`);
    const login = await this.login(email, password);
    if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`);
    return {
      email,
      password,
      id: login.body.record.id,
      token: login.body.token,
      record: login.body.record,
    };
  }

  /** Signs in and returns the auth token. */
  async tokenFor(user: { email: string; password: string }): Promise<string> {
    const res = await this.login(user.email, user.password);
    if (res.status !== 200) throw new Error(`login: ${res.status} ${res.text}`);
    return res.body.token as string;
  }
}

/** Starts a server on a fresh SQLite directory or PostgreSQL database, with a real SMTP receiver. */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const t = new TestServer(options.db);
  try {
    await t.init(options);
  } catch (err) {
    await t.close();
    throw err;
  }
  return t;
}
