import {
  startServerProcess as start,
  type ServerProcess,
} from '../../../test-harness/server-process.js';

/**
 * A Gatehouse server in its own process (server/src/main.ts through tsx), with its console:
 * `output()` is everything it printed (stdout and stderr: the banner and pino's JSON lines);
 * `stop()` sends SIGTERM, waits for the exit and removes its data directory.
 */
export type { ServerProcess };

/** Starts one on a free port with a fresh SQLite data directory and `env` on top. */
export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  return start({
    entry: 'server/src/main.ts',
    tempDataDir: 'gh-proc-',
    env: {
      APP_URL: 'http://app.test',
      MAIL_POLL_MS: '50',
      // A developer's .env in the project root must not change what the tests start.
      ENV_FILE: '',
      ...env,
    },
    name: 'The server',
  });
}

/** Waits (up to `ms`) until what a process printed matches `re`; fails quoting the output. */
export async function waitForOutput(
  out: () => string,
  re: RegExp,
  ms: number,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = out().match(re);
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`no ${re} in output:\n${out()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
