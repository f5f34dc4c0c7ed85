import type { Session } from 'node:inspector';
import { performance } from 'node:perf_hooks';
import { lazyRequire } from './lazy-require.js';

/**
 * Gives memory back once the server has been quiet for a minute (docs/decisions/0065, 0074): the
 * garbage a busy spell left in the old generation, and the young generation grown for it (up to
 * its bound, tools/young-generation.ts). V8's own memory reducer schedules such a collection only
 * after a full one, which a server of this size may not need for hours. Once a second this looks
 * at how busy the event loop was (no work per request); after a minute of quiet seconds that
 * follow a busy one, it asks V8 for the collection the DevTools' "collect garbage" makes, through
 * an in-process inspector session (no port is opened): a few milliseconds of CPU.
 *
 * Not sooner: a full collection while no request is in flight lets V8 forget what it learnt of
 * the requests' objects, and each request costs 25–40 % more CPU for minutes afterwards. After a
 * quiet second (until 0.5.1), a busy server paid that after every pause.
 */
export function collectWhenQuiet(): () => void {
  /** How many quiet seconds in a row make the server quiet. */
  const QUIET_SECONDS = 60;
  /** A second with the event loop busy less than this is quiet. */
  const QUIET = 0.02;
  let session: Session | undefined;
  let last = performance.eventLoopUtilization();
  let busySinceCollection = true; // the start itself
  let quietFor = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const quiet = performance.eventLoopUtilization(now, last).utilization < QUIET;
    last = now;
    if (!quiet) {
      busySinceCollection = true;
      quietFor = 0;
      return;
    }
    quietFor += 1;
    if (!busySinceCollection || quietFor < QUIET_SECONDS) return;
    busySinceCollection = false;
    if (!session) {
      session = new (lazyRequire<typeof import('node:inspector')>('node:inspector').Session)();
      session.connect();
    }
    session.post('HeapProfiler.collectGarbage');
  }, 1000);
  timer.unref();
  return () => {
    clearInterval(timer);
    session?.disconnect();
  };
}
