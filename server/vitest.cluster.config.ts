import { defineConfig } from 'vitest/config';

/** npm run test:cluster: the load-balanced cluster under faults (test/cluster), on its own. */
export default defineConfig({
  test: {
    name: 'cluster',
    root: import.meta.dirname,
    include: ['test/cluster/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
