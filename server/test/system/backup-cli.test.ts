import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmCli as cli } from '../support/cli.js';

/** `npm run --silent cli -- backup …` as an operator types it: usage, errors, overwriting. */

describe('the backup command', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-backup-'));
  const env = { DATA_DIR: path.join(dir, 'data'), APP_URL: 'http://app.test' };
  beforeAll(async () => {
    // Creates the database.
    const made = await cli(['initial-invite'], env);
    expect(made.code, made.stderr).toBe(0);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('without a file prints its usage (not "Unknown command") and exits 2', async () => {
    for (const args of [['backup'], ['backup', '--force'], ['backup', 'a.db', 'b.db']]) {
      const res = await cli(args, env);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr, args.join(' ')).toContain(
        'Usage: npm run --silent cli -- backup FILE [--force]',
      );
      expect(res.stderr).not.toContain('Unknown command');
    }
  }, 60_000);

  it('into a folder that does not exist says so, without a stack or TypeError', async () => {
    const res = await cli(['backup', '/nonexistent-gh-folder/x.db'], env);
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe('The folder /nonexistent-gh-folder does not exist.');
  }, 60_000);

  it('refuses to overwrite an existing file unless --force is given', async () => {
    const target = path.join(dir, 'backup.db');
    writeFileSync(target, 'precious');
    const refused = await cli(['backup', target], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`${target} already exists. Add --force to replace it.`);
    expect(readFileSync(target, 'utf8')).toBe('precious');

    const forced = await cli(['backup', target, '--force'], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout.trim()).toBe(`Backed up to ${target}`);
    expect(readFileSync(target).subarray(0, 15).toString()).toBe('SQLite format 3');
    expect((statSync(target).mode & 0o777).toString(8)).toBe('600');
  }, 60_000);

  it('a fresh file is written, and a folder as the target is refused', async () => {
    const target = path.join(dir, 'fresh.db');
    const res = await cli(['backup', target], env);
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(target).subarray(0, 15).toString()).toBe('SQLite format 3');
    const folder = await cli(['backup', dir], env);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain(`${dir} is a folder`);
  }, 60_000);
});
