import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { npmCli, tsxCli } from '../support/cli.js';
import {
  APP_URL,
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

  it('on a fresh DATA_DIR prints one line, the link; again prints the same link; fails once used', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-cli-'));
    dirs.push(dir);
    const env = { DATA_DIR: dir, APP_URL };
    const first = await npmInitialInvite(env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(LINK_RE);
    expect(first.stdout.trim().split('\n')).toHaveLength(1);
    const second = await cli(env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe(first.stdout.trim());

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
