import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { tanstackRouter } from '@tanstack/router-plugin/vite';
import { linguiPlugins } from './lingui-vite.ts';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * React and the router (and the bundler's own helpers): every screen needs them. Not TanStack
 * Query: only signed-in screens use it, and it loads with them (lib/queries.ts).
 */
const FRAMEWORK =
  /node_modules[\\/](react|react-dom|scheduler|@tanstack[\\/](?!query-core|react-query))|preload-helper|rolldown[\\/]runtime/;

/**
 * What the login and sign-up screens share with other screens: left to itself the bundler makes
 * each of these a chunk of its own, most under a kilobyte. Not lib/pb.ts: the SDK loads on demand.
 * Only the parts of `components/ui/` these screens use; the others (`ui` below) load with the
 * signed-in screens.
 */
const FIRST_SCREEN_SHARED = [
  'components/ui/alert.tsx',
  'components/ui/button.tsx',
  'components/ui/card.tsx',
  'components/ui/cn.ts',
  'components/ui/field.tsx',
  'components/ui/password-field.tsx',
  'components/ui/screen.tsx',
  'components/ui/spinner.tsx',
  'lib/api-error.ts',
  'lib/email-rule.ts',
  'lib/history-state.ts',
  'lib/session.ts',
  'lib/use-form-submit.ts',
  'features/accounts/current-password-field.tsx',
  'features/accounts/email-field.tsx',
  'features/accounts/resend-wait.ts',
  'features/accounts/validation.ts',
  'features/providers/continue-with-providers-section.tsx',
];

/**
 * The WebAuthn library and the passkey prompt's helpers, which the login screen loads for passkey
 * autofill: one chunk, though Settings and the "Confirm it's you" dialog import the library too
 * (left to itself the bundler splits the library off, one more file for the first screen). Not the
 * library's registration (adding a passkey in Settings): it goes with Settings. The library has no
 * side effects on import, and is treated so below: else its one entry module, which re-exports the
 * registration too, would keep it in this chunk.
 */
const WEBAUTHN = /node_modules[\\/]@simplewebauthn[\\/]browser[\\/]/;
const REGISTRATION = /[\\/](startRegistration|identifyRegistrationError)\.js$/;
const PASSKEY_PROMPT = (id: string) =>
  (WEBAUTHN.test(id) || /features[\\/]passkeys[\\/]ceremony\.ts$/.test(id)) &&
  !REGISTRATION.test(id);

const inWebSrc = (id: string, file: string) =>
  id.replaceAll('\\', '/').includes(`/web/src/${file}`);

/**
 * Each built text file's gzip (level 9) and brotli (quality 11) forms, written beside it once per
 * build (`x.js.gz`, `x.js.br`): the server serves them as they are, instead of compressing every
 * file again at each start (seconds of CPU and tens of MB of brotli's memory; docs/decisions/0058).
 * The same files as the server compresses (server/src/http/web-app.ts): text over 1 KB. Not
 * index.html: the server writes the site's name and address into it.
 */
function precompress(): Plugin {
  return {
    name: 'gatehouse-precompress',
    apply: 'build',
    closeBundle() {
      const dist = `${webRoot}dist`;
      for (const name of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
        if (!/\.(js|css|json|svg|txt|webmanifest|map)$/.test(name)) continue;
        const file = path.join(dist, name);
        const body = readFileSync(file);
        if (body.length <= 1024) continue;
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
      }
    },
  };
}

export default defineConfig({
  root: webRoot,
  plugins: [
    tanstackRouter({
      target: 'react',
      autoCodeSplitting: true,
      routesDirectory: `${webRoot}src/routes`,
      generatedRouteTree: `${webRoot}src/routeTree.gen.ts`,
    }),
    // A text without its German is a build error: no English is left on a German screen.
    ...linguiPlugins({ failOnMissing: true }),
    react(),
    tailwindcss(),
    precompress(),
  ],
  build: {
    outDir: `${webRoot}dist`,
    emptyOutDir: true,
    // Every browser the app supports preloads modules itself (modulepreload: Chromium, Firefox 115,
    // Safari 17): no polyfill in the first download.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      treeshake: { moduleSideEffects: [{ test: WEBAUTHN, sideEffects: false }] },
      output: {
        // Seven characters of content hash, not eight: every chunk's name is in the first screen's
        // list of what it may load (and in each import), so each character weighs on its budget;
        // 42 bits still tell a changed file from the one cached (docs/decisions/0069).
        chunkFileNames: 'assets/[name]-[hash:7].js',
        // Fewer, larger chunks for a visitor's first screen (docs/decisions/0045).
        codeSplitting: {
          groups: [
            { name: 'framework', test: (id) => FRAMEWORK.test(id) },
            { name: 'forms', test: (id) => FIRST_SCREEN_SHARED.some((file) => inWebSrc(id, file)) },
            { name: 'ceremony', test: PASSKEY_PROMPT },
            // What only signed-in screens use of components/ui, one chunk rather than one each.
            { name: 'ui', test: (id) => inWebSrc(id, 'components/ui/') },
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
