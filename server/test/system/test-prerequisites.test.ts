import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';
import { freePort } from '../support/ports.js';

/**
 * scripts/test-prerequisites.mjs, which `npm test` runs first: what it says when the machine
 * lacks a piece. TEST_PREREQUISITES=check keeps it from installing or starting anything; the
 * programs it looks for come from a folder of stand-ins on PATH (the sbin folders are searched
 * too, so nginx stands in there as well), and PostgreSQL and Redis are the ones the tests use.
 */
const SCRIPT = path.join(ROOT, 'scripts/test-prerequisites.mjs');
const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
const HEADER =
  'The tests need these first (as root on Debian, npm test installs and starts them itself):';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-prereq-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder holding stand-ins for `programs` (each exits 0). */
function binWith(name: string, programs: string[]): string {
  const bin = path.join(dir, name);
  mkdirSync(bin);
  for (const p of programs)
    writeFileSync(path.join(bin, p), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return bin;
}

const chromium = path.join(dir, 'chromium');
writeFileSync(chromium, '', { mode: 0o755 });
const ALL = ['pg_dump', 'pg_restore', 'redis-server', 'nginx', 'openssl'];

function check(
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SCRIPT],
      {
        cwd: ROOT,
        env: { HOME: process.env.HOME ?? '/tmp', TEST_PREREQUISITES: 'check', ...env },
        timeout: 30_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('the test prerequisites check', () => {
  it('with everything there, says nothing and lets the tests run', async () => {
    const run = await check({ PATH: binWith('all', ALL), CHROMIUM_PATH: chromium });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('');
    expect(run.code).toBe(0);
  });

  it('a program missing from PATH: one line with the command that brings it, exit code 1', async () => {
    const run = await check({
      PATH: binWith(
        'no-openssl',
        ALL.filter((p) => p !== 'openssl'),
      ),
      CHROMIUM_PATH: chromium,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`${HEADER}\n  openssl: ${sudo}apt-get install -y openssl\n`);
  });

  it('nothing there: a line for each piece', async () => {
    const [pgPort, redisPort] = [await freePort(), await freePort()];
    const run = await check({
      PATH: binWith('none', []),
      CHROMIUM_PATH: path.join(dir, 'no-chromium'),
      TEST_PG_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
      TEST_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    });
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(HEADER);
    expect(lines).toEqual(
      expect.arrayContaining([
        `  Chromium at ${dir}/no-chromium (CHROMIUM_PATH): no such file; unset CHROMIUM_PATH for /usr/bin/chromium`,
        `  PostgreSQL at TEST_PG_URL (127.0.0.1:${pgPort}): does not answer`,
        `  pg_dump and pg_restore: ${sudo}apt-get install -y postgresql-client`,
        `  redis-server (Redis 7): ${sudo}apt-get install -y redis-server`,
        `  Redis at TEST_REDIS_URL (127.0.0.1:${redisPort}): does not answer`,
        `  openssl: ${sudo}apt-get install -y openssl`,
      ]),
    );
    // nginx is found in /usr/sbin when the machine has it, whatever PATH says.
    expect(lines.length).toBeGreaterThanOrEqual(7);
  });
});
