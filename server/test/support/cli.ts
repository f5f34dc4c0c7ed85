import { execFile } from 'node:child_process';
import path from 'node:path';

/** The repository root: where an operator runs `npm run cli`. */
export const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

export interface CliRun {
  code: number;
  stdout: string;
  /** npm's own warnings about this machine's npm config left out. */
  stderr: string;
}

/** `cmd args` in the repository root, in its own process, with PATH, HOME and `env` only. */
export function runInRoot(
  cmd: string,
  args: string[],
  env: Record<string, string>,
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr: stderr.replace(/^npm warn .*\n/gm, '') });
      },
    );
  });
}

/** `npm run --silent cli -- …args`, as an operator types it. */
export const npmCli = (args: string[], env: Record<string, string>) =>
  runInRoot('npm', ['run', '--silent', 'cli', '--', ...args], env);

/** The CLI without npm in front (`npx tsx server/src/cli.ts …args`). */
export const tsxCli = (args: string[], env: Record<string, string>) =>
  runInRoot('npx', ['tsx', 'server/src/cli.ts', ...args], env);
