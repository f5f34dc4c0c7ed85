import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { HELPER_NICENESS_STEPS } from '../../src/tools/helper-threads.js';
import { PATHS } from '../support/contract.js';
import { request } from '../support/http.js';
import { inviteCodeFrom, strongPassword } from '../support/server.js';
import {
  startServerProcess,
  type ServerProcess,
  waitForOutput,
} from '../support/server-process.js';

/** Each thread of a process and its niceness (`/proc/<pid>/task/<tid>/stat`, field 19). */
function nicenessByThread(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
    // After the command's closing parenthesis: state is field 3, niceness field 19.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    threads.set(Number(task), Number(fields[16]));
  }
  return threads;
}

describe.runIf(process.platform === 'linux')('the server process’s threads', () => {
  let server: ServerProcess | undefined;
  afterAll(() => server?.stop());

  it('answers on the main thread first: every helper thread (password hashes, V8’s helpers) runs at a lower priority', async () => {
    server = await startServerProcess({ RATE_LIMITS: 'off' });
    // The banner, with the initial member's sign-up link, is printed once the threads are lowered.
    const [link] = await waitForOutput(
      server.output,
      /http:\/\/app\.test\/signup\?code=[^\s"]+/,
      5000,
    );
    const threads = nicenessByThread(server.pid);
    // The main thread keeps the niceness it was started with (this runner's, 0 by default).
    const main = threads.get(server.pid)!;
    expect(main).toBe(os.getPriority());
    const helpers = [...threads].filter(([tid]) => tid !== server!.pid);
    // libuv's thread pool (4) and V8's platform threads at least.
    expect(helpers.length).toBeGreaterThanOrEqual(4);
    for (const [, niceness] of helpers) {
      expect(niceness).toBe(Math.min(19, main + HELPER_NICENESS_STEPS));
    }

    // The hashes still run there: the initial member signs up (one Argon2 hash).
    const code = inviteCodeFrom(link);
    const email = 'threads@example.com';
    const password = strongPassword();
    const signUp = await request(server.url, 'POST', PATHS.records, {
      body: { email, password, passwordConfirm: password, inviteCode: code },
    });
    expect(signUp.status, signUp.text).toBe(200);
    expect(nicenessByThread(server.pid).get(server.pid)).toBe(main);
  });
});
