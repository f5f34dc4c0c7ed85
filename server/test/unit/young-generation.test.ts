import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const MB = 1024 * 1024;

/**
 * A fresh process (its young generation at V8's starting 2 MB) keeps making objects that outlive
 * a few collections, as a burst of requests does, turn after turn of the event loop, and prints its
 * young generation's size.
 */
function youngAfterABurst(bound: number | null): number {
  const script = `
    import v8 from 'node:v8';
    import { boundYoungGeneration } from './server/src/tools/young-generation.ts';
    const stop = ${bound === null ? '() => {}' : `boundYoungGeneration(${bound})`};
    // A server's turn of the event loop: a few hundred KB of objects, then the loop turns (twice:
    // Node hands a collection's entry to its observers one turn after the collection).
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    let kept = [];
    for (let round = 0; round < 600; round += 1) {
      for (let i = 0; i < 5_000; i += 1) kept.push({ round, i });
      if (kept.length > 300_000) kept = [];
      await turn();
      await turn();
    }
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    stop();
    console.log(young.space_size);
  `;
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  return Number(out.trim());
}

describe('the young generation', () => {
  it('grows no further than its bound while a burst keeps objects alive', () => {
    const unbounded = youngAfterABurst(null);
    const bounded = youngAfterABurst(8 * MB);
    // V8 on its own doubles it up to 32 MB for such a burst.
    expect(unbounded).toBeGreaterThan(8 * MB);
    expect(bounded).toBeLessThanOrEqual(8 * MB);
    expect(bounded).toBeGreaterThan(2 * MB); // it still grows below the bound
  });
});
