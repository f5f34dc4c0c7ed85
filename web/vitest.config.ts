import { defineProject } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { linguiPlugins } from './lingui-vite.ts';

export default defineProject({
  plugins: [...linguiPlugins(), react()],
  test: {
    name: 'web',
    root: import.meta.dirname,
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'jsdom',
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
    // A guard against a test that hangs, not a speed check: with four files at once on two cores
    // (docs/decisions/0073), a long journey through a screen can take several seconds.
    testTimeout: 20_000,
  },
});
