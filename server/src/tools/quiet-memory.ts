import type { Session } from 'node:inspector';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { lazyRequire } from './lazy-require.js';

/**
 * Gives memory back when the server goes quiet (docs/decisions/0065). V8 grows its young
 * generation to 32 MB when many objects outlive a collection (the start, a burst of requests) and
 * keeps it until a collection that reduces memory, which its own memory reducer only schedules
 * after a full collection: a server whose old generation never filled kept ~18 MB it no longer
 * used. Once a second this looks at how busy the event loop was (no work per request); after a
 * quiet second that follows a busy one, with the young generation grown, it asks V8 for the
 * collection the DevTools' "collect garbage" makes, through an in-process inspector session (no
 * port is opened). At most once every `minIntervalMs`; a few milliseconds of CPU each time.
 */
export function collectWhenQuiet(options: { minIntervalMs?: number } = {}): () => void {
  const minIntervalMs = options.minIntervalMs ?? 10_000;
  /** A second with the event loop busy less than this is quiet. */
  const QUIET = 0.02;
  /** The young generation's size at rest (V8's starting size is 1 MB, grown in steps). */
  const GROWN = 4 * 1024 * 1024;
  let session: Session | undefined;
  let last = performance.eventLoopUtilization();
  let busySinceCollection = true; // the start itself
  let collectedAt = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const quiet = performance.eventLoopUtilization(now, last).utilization < QUIET;
    last = now;
    if (!quiet) {
      busySinceCollection = true;
      return;
    }
    if (!busySinceCollection || Date.now() - collectedAt < minIntervalMs) return;
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    if (!young || young.space_size < GROWN) return;
    busySinceCollection = false;
    collectedAt = Date.now();
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
