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
  },
});
