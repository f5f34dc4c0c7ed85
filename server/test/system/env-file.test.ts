import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseEnvFile, withEnvFile } from '../../src/config.js';
import { npmCli as cli } from '../support/cli.js';
import { startServerProcess } from '../support/server-process.js';

/** The project's .env (or ENV_FILE) under the real environment, for the server and the CLI. */
const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-envfile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function envFile(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('the .env file', () => {
  it('is read as KEY=VALUE lines with comments and optional quotes', () => {
    expect(
      parseEnvFile(
        [
          '# Gatehouse settings',
          '',
          'APP_URL=https://gate.example.com  # public address',
          "APP_NAME='Door # One'",
          'MAIL_FROM="Door <door@example.com>"',
          'export PORT = 9000',
          'EMPTY=',
          'HASH=a#b',
        ].join('\n'),
      ),
    ).toEqual({
      APP_URL: 'https://gate.example.com',
      APP_NAME: 'Door # One',
      MAIL_FROM: 'Door <door@example.com>',
      PORT: '9000',
      EMPTY: '',
      HASH: 'a#b',
    });
    expect(() => parseEnvFile('APP_URL https://x\nSMTP_URL: smtp://u:secret@h')).toThrow(
      ConfigError,
    );
    try {
      parseEnvFile('SMTP_URL: smtp://u:secret@h');
    } catch (error) {
      expect((error as Error).message).toContain('.env line 1 is not KEY=VALUE');
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it('lies under the environment: a variable set in both keeps the environment’s value', () => {
    const file = envFile('precedence.env', 'APP_NAME=FromFile\nPORT=9001\nRATE_LIMITS=off\n');
    const config = loadConfig(withEnvFile({ ENV_FILE: file, PORT: '9002', RATE_LIMITS: '' }));
    expect(config.appName).toBe('FromFile');
    expect(config.port).toBe(9002);
    // Set, though empty, in the environment: the default, not the file's value.
    expect(config.rateLimits).toBe(true);
    expect(withEnvFile({ ENV_FILE: '' })).toEqual({ ENV_FILE: '' });
    expect(() => withEnvFile({ ENV_FILE: path.join(dir, 'missing.env') })).toThrow(
      /ENV_FILE: cannot read/,
    );
  });

  it('the CLI prints the link with APP_URL from the file; the environment wins over it', async () => {
    const file = envFile(
      'cli.env',
      `APP_URL=https://from-file.example\nDATA_DIR=${path.join(dir, 'cli-data')}\n`,
    );
    const fromFile = await cli(['initial-invite', '--create'], {
      ENV_FILE: file,
      LOG_LEVEL: 'silent',
    });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stdout).toMatch(/^https:\/\/from-file\.example\/signup\?code=\S+\n$/);
    const fromEnv = await cli(['initial-invite'], {
      ENV_FILE: file,
      APP_URL: 'https://from-env.example',
      LOG_LEVEL: 'silent',
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.stdout).toMatch(/^https:\/\/from-env\.example\/signup\?code=\S+\n$/);
    // Every command reads it: users too, on the file's DATA_DIR.
    const users = await cli(['users', 'list'], { ENV_FILE: file, LOG_LEVEL: 'silent' });
    expect(users.code, users.stderr).toBe(0);
    expect(users.stderr).toBe(`Database: ${path.join(dir, 'cli-data', 'gatehouse.db')}\n`);
  }, 60_000);

  it('the server reads it too (APP_NAME from the file in the page title)', async () => {
    const file = envFile(
      'server.env',
      'APP_NAME=Door From File\nAPP_URL=https://ignored.example\n',
    );
    const server = await startServerProcess({ ENV_FILE: file, LOG_LEVEL: 'warn' });
    try {
      const page = await fetch(`${server.url}/`);
      expect(await page.text()).toContain('<title>Door From File</title>');
      // APP_URL came from the environment (http://app.test), not from the file.
      const html = await (await fetch(`${server.url}/signup`)).text();
      expect(html).not.toContain('ignored.example');
    } finally {
      await server.stop();
    }
  }, 60_000);
});
