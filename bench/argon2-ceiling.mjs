/* global process, performance */
// The logins' ceiling on this machine, run as its own process by load.mjs: argon2id verifications
// alone, with the server's parameters and library (accounts/passwords.ts), as many at once as the
// load sends logins (each waits its turn on libuv's thread pool, as in the server). Prints
// `ceiling <verifications per second>`.
import { hash, verify } from '@node-rs/argon2';

const [concurrency = '50', seconds = '6'] = process.argv.slice(2);
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
const stored = await hash('Bench-ceiling-password-1', ARGON2);
const until = performance.now() + Number(seconds) * 1000;
let done = 0;
async function worker() {
  while (performance.now() < until) {
    await verify(stored, 'Bench-ceiling-password-1');
    done += 1;
  }
}
const started = performance.now();
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
process.stdout.write(`ceiling ${(done / ((performance.now() - started) / 1000)).toFixed(1)}\n`);
