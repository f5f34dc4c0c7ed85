import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

// Free ports, the port probe and the polling wait are the shared harness's (test-harness/ports.js),
// the same the browser journeys' setup and the benchmarks use.
export { accepts, freePort, waitUntil } from '../../../test-harness/ports.js';

/**
 * The path of a system program, looked up on PATH and in the sbin directories (which a non-root
 * PATH may lack). Throws with how to install it: a missing program fails a test, never skips it.
 */
export function systemProgram(name: string, install: string): string {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin', '/sbin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  throw new Error(`${name} is not installed; this test needs it. Install it with: ${install}`);
}
