import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { tanstackRouter } from '@tanstack/router-plugin/vite';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

/** React, the router and Query (and the bundler's own helpers): every screen needs them. */
const FRAMEWORK =
  /node_modules[\\/](react|react-dom|scheduler|@tanstack)[\\/]|preload-helper|rolldown[\\/]runtime/;

/**
 * What the login and sign-up screens share with other screens: left to itself the bundler makes
 * each of these a chunk of its own, most under a kilobyte. Not lib/pb.ts: the SDK loads on demand.
 */
const FIRST_SCREEN_SHARED = [
  'components/ui/',
  'lib/email-rule.ts',
  'lib/history-state.ts',
  'lib/session.ts',
  'lib/use-form-submit.ts',
  'features/accounts/current-password-field.tsx',
  'features/accounts/email-field.tsx',
  'features/accounts/resend-wait.ts',
  'features/accounts/validation.ts',
  'features/providers/continue-with-providers-section.tsx',
  'features/providers/provider-errors.ts',
];

const inWebSrc = (id: string, file: string) =>
  id.replaceAll('\\', '/').includes(`/web/src/${file}`);

export default defineConfig({
  root: webRoot,
  plugins: [
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      routesDirectory: `${webRoot}src/routes`,
      generatedRouteTree: `${webRoot}src/routeTree.gen.ts`,
    }),
    react(),
    tailwindcss(),
  ],
  build: {
    outDir: `${webRoot}dist`,
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        // Fewer, larger chunks for a visitor's first screen (docs/decisions/0045).
        codeSplitting: {
          groups: [
            { name: 'framework', test: (id) => FRAMEWORK.test(id) },
            { name: 'forms', test: (id) => FIRST_SCREEN_SHARED.some((file) => inWebSrc(id, file)) },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8090',
    },
  },
});
