import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['server/vitest.config.ts', 'web/vitest.config.ts'],
    // Most test files wait more than they compute (servers, SMTP, PostgreSQL, child processes), so
    // at least four files run at once even on two cores, where Vitest's default (the cores less
    // one) ran them one by one with the machine mostly idle (docs/decisions/0073).
    maxWorkers: Math.max(availableParallelism() - 1, 4),
  },
});
