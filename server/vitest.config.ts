import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'server',
    root: import.meta.dirname,
    include: ['test/**/*.test.ts'],
    // The cluster (three instances, nginx, faults) runs on its own: npm run test:cluster.
    exclude: ['test/cluster/**'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
