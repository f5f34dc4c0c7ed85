import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PATHS } from './contract.js';
import { request } from './http.js';
import { freePort, waitUntil } from './ports.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

/** A Gatehouse server in its own process (server/src/main.ts through tsx), with its console. */
export interface ServerProcess {
  url: string;
  /** Everything it printed so far (stdout and stderr: the banner and pino's JSON lines). */
  output(): string;
  /** SIGTERM, wait for the exit, remove its data directory. */
  stop(): Promise<void>;
}

/** Starts one on a free port with a fresh SQLite data directory and `env` on top. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gh-proc-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_URL: 'http://app.test',
      DATA_DIR: dataDir,
      MAIL_POLL_MS: '50',
      // A developer's .env in the project root must not change what the tests start.
      ENV_FILE: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
        return request(url, 'GET', PATHS.health).then(
          (res) => res.status === 200,
          () => false,
        );
      },
      30_000,
      `the server to start:\n${output}`,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, output: () => output, stop };
}
