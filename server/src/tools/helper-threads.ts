import fs from 'node:fs';
import os from 'node:os';

/**
 * How far below the main thread the server's helper threads run, in steps of niceness. Ten steps
 * apart, the scheduler gives a helper about a tenth of the CPU the main thread gets when both want
 * it, and all of it when the main thread does not.
 */
export const HELPER_NICENESS_STEPS = 10;

/** Linux's lowest priority. */
const LOWEST = 19;

/**
 * Lowers the scheduling priority of every thread of this process but the main one (Linux; a no-op
 * elsewhere) to HELPER_NICENESS_STEPS below the main thread's. The main thread answers every
 * request; the others are libuv's thread pool, where the password hashes run (19 MiB and ~8 ms of
 * CPU each), and V8's helpers (concurrent collection and compilation). During a burst of sign-ins
 * the hashes would otherwise take the cores from the main thread, and every other member's request
 * would wait behind them. With the main thread first, the hashes still use whatever CPU the
 * requests leave (docs/decisions/0075).
 *
 * Run once the server is started: Node starts its thread pool before the server's code runs, and
 * threads started later by the main thread (a worker, the inspector) keep its priority. Returns
 * how many threads it lowered.
 */
export function yieldHelperThreads(steps = HELPER_NICENESS_STEPS): number {
  if (process.platform !== 'linux') return 0;
  let tasks: string[];
  try {
    tasks = fs.readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  const niceness = Math.min(LOWEST, os.getPriority(process.pid) + steps);
  let lowered = 0;
  for (const task of tasks) {
    const tid = Number(task);
    if (tid === process.pid) continue;
    try {
      // On Linux a thread id names that thread alone; a thread already lower stays as it is.
      if (os.getPriority(tid) < niceness) {
        os.setPriority(tid, niceness);
        lowered += 1;
      }
    } catch {
      // The thread ended meanwhile.
    }
  }
  return lowered;
}
