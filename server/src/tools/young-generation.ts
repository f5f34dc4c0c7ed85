import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/**
 * A bound on V8's young generation, kept through its growth alone (docs/decisions/0074). V8
 * doubles the young generation whenever enough objects outlive its collections (the start, a
 * burst of requests), up to 32 MB, and gives it back only in a memory-reducing full collection,
 * which costs the requests after it (tools/quiet-memory.ts). So it is never grown past `max`: the
 * launcher holds it at V8's starting size (two halves of 1 MB) through the start
 * (server/src/launch.ts), and from the listen on, after each collection, growth is allowed while
 * it is smaller than `max` and held once it is not. 8 MB answered as fast as 32 MB under load;
 * one never grown, 2 MB, took 10–15 % more CPU per answer (bench/README.md, 11-29 late).
 */

/** The young generation's bound: two halves of 4 MB. */
export const YOUNG_GENERATION_MAX = 8 * 1024 * 1024;

/**
 * V8's own growth factor: each growth doubles the young generation. A code cache made while the
 * factor differs is refused by a start (scripts/code-cache.mjs and launch.ts set it back first).
 */
const V8_GROWTH_FACTOR = 2;

/** Lets V8 grow the young generation (by its own factor), or holds it at its size. */
export function allowYoungGrowth(grow: boolean): void {
  v8.setFlagsFromString(`--semi-space-growth-factor=${grow ? V8_GROWTH_FACTOR : 1}`);
}

/**
 * Keeps the young generation within `max` from now on: after every collection, growth is allowed
 * only below it. Set each time, not only on a change: the launcher sets the flag around a
 * code-cache write. Node reports a collection to its observers a turn of the event loop after it,
 * so collections that follow each other within one turn (a long synchronous stretch: hundreds of
 * KB of objects each, or more) can grow it a step past `max` before the check holds it there.
 * Returns the function that stops it (growth is V8's own again).
 */
export function boundYoungGeneration(max = YOUNG_GENERATION_MAX): () => void {
  const check = () => {
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    allowYoungGrowth(young !== undefined && young.space_size < max);
  };
  check();
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    allowYoungGrowth(true);
  };
}
