import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { npmCli, tsxCli } from '../support/cli.js';
import {
  APP_URL,
  createPgDatabase,
  inviteCodeFrom,
  startTestServer,
  strongPassword,
  type TestServer,
} from '../support/server.js';

const cli = (env: Record<string, string>) =>
  tsxCli(['initial-invite'], { LOG_LEVEL: 'silent', ...env });
const npmInitialInvite = (env: Record<string, string>) =>
  npmCli(['initial-invite'], { LOG_LEVEL: 'silent', ...env });

const LINK_RE = /^http:\/\/app\.test\/signup\?code=\S+\n?$/;

describe('the initial-invite CLI', () => {
  const dirs: string[] = [];
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('on a fresh DATA_DIR makes no database unless told to (--create)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-cli-'));
    dirs.push(dir);
    const dataDir = path.join(dir, 'data');
    const file = path.join(dataDir, 'gatehouse.db');
    for (const args of [
      ['initial-invite'],
      ['users', 'list'],
      ['backup', path.join(dir, 'b.db')],
    ]) {
      const refused = await npmCli(args, { LOG_LEVEL: 'silent', DATA_DIR: dataDir });
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        args[0] === 'backup'
          ? `No Gatehouse database at ${file}: check DATA_DIR.\n`
          : `No Gatehouse database at ${file}: check DATA_DIR, or add --create to start a new, empty one.\n`,
      );
    }
    expect(existsSync(dataDir)).toBe(false);
    const made = await npmCli(['users', 'list', '--create'], {
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
    });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toBe(`Database: ${file} (new)\n`);
    expect(made.stdout).toBe('');
    expect(existsSync(file)).toBe(true);
  }, 120_000);

  it('on PostgreSQL, an empty database needs --create; a missing one is named', async () => {
    const empty = await createPgDatabase();
    try {
      const env = {
        LOG_LEVEL: 'silent',
        DATABASE_URL: empty.url,
        TOKEN_SECRET: 'x'.repeat(32),
        APP_URL,
      };
      const place = `PostgreSQL 127.0.0.1:5432${new URL(empty.url).pathname}`;
      const refused = await cli(env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `No Gatehouse database at ${place}: check DATABASE_URL, or add --create to start a new, empty one.\n`,
      );
      const made = await tsxCli(['initial-invite', '--create'], env);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stderr).toBe(`Database: ${place} (new)\n`);
      expect(made.stdout).toMatch(LINK_RE);
      const again = await cli(env);
      expect(again.stderr).toBe(`Database: ${place}\n`);
      expect(again.stdout).toBe(made.stdout);

      const missing = new URL(empty.url);
      missing.pathname = '/gh_test_not_there';
      const none = await cli({ ...env, DATABASE_URL: missing.toString() });
      expect(none.code).toBe(1);
      expect(none.stderr).toBe(
        'No database at PostgreSQL 127.0.0.1:5432/gh_test_not_there: create it first (createdb gh_test_not_there), or check DATABASE_URL.\n',
      );
    } finally {
      await empty.drop();
    }
  }, 120_000);

  it('with --create prints one line, the link; again prints the same link; fails once used', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-cli-'));
    dirs.push(dir);
    const env = { DATA_DIR: dir, APP_URL };
    const first = await npmCli(['initial-invite', '--create'], { LOG_LEVEL: 'silent', ...env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(LINK_RE);
    expect(first.stdout.trim().split('\n')).toHaveLength(1);
    const second = await npmInitialInvite(env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe(first.stdout.trim());
    expect(second.stderr).toBe(`Database: ${path.join(dir, 'gatehouse.db')}\n`);

    // Start the server on that directory and sign up with the CLI's code.
    const t = await startTestServer({ db: 'sqlite', env: { DATA_DIR: dir } });
    servers.push(t);
    const res = await t.signUp(
      inviteCodeFrom(first.stdout.trim()),
      'first@example.com',
      strongPassword(),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.isInitialUser).toBe(true);
    await t.stop();

    const after = await cli(env);
    expect(after.code).not.toBe(0);
    expect(after.stdout.trim()).toBe('');
    expect(after.stderr.trim()).not.toBe('');
  }, 120_000);

  it('agrees with the link the server printed at its first start (PostgreSQL)', async () => {
    const t = await startTestServer({ db: 'postgres' });
    servers.push(t);
    expect(t.bootstrapLink).toMatch(LINK_RE);
    const out = await cli({ DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl!, APP_URL });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout.trim()).toBe(t.bootstrapLink);
    await t.initialUser();
    const after = await cli({ DATA_DIR: t.dataDir, DATABASE_URL: t.databaseUrl!, APP_URL });
    expect(after.code).not.toBe(0);
    expect(after.stderr.trim()).not.toBe('');
  }, 120_000);

  it('initialInviteLink() fails once an initial user exists', async () => {
    const { initialInviteLink } = (await import('../../src/' + 'cli.js')) as {
      initialInviteLink: (config: TestServer['config']) => Promise<string>;
    };
    const t = await startTestServer({ db: 'sqlite' });
    servers.push(t);
    expect(await initialInviteLink(t.config)).toBe(t.bootstrapLink);
    await t.initialUser();
    await expect(initialInviteLink(t.config)).rejects.toThrow();
  });
});
