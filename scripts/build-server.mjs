// `npm run build:server`: the server as one ES module, server/dist/main.js (with its source map),
// so a start loads one file instead of several hundred (docs/decisions/0042), and the operator
// CLI likewise, server/dist/cli.js, for installs without the development tools (scripts/cli.mjs).
// Types are checked by `npm run typecheck`, not here. Left outside the bundle: the native SQLite
// and Argon2 bindings, and the packages loaded on first use (docs/decisions/0041), which stay in
// node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'server/dist');

/** Imported as packages at run time; every one must be in package.json's "dependencies". */
const EXTERNAL = ['better-sqlite3', '@node-rs/argon2', '@simplewebauthn/server', 'oidc-provider'];

// A stamp written by build-if-stale.mjs is kept; older outputs (one file per module) are not.
for (const name of fs.existsSync(dist) ? fs.readdirSync(dist) : []) {
  if (name !== '.build-stamp') fs.rmSync(path.join(dist, name), { recursive: true, force: true });
}

await build({
  entryPoints: [path.join(root, 'server/src/main.ts'), path.join(root, 'server/src/cli.ts')],
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL,
  // The CommonJS packages inside the bundle call require() for Node's own modules, and
  // tools/lazy-require.ts loads the first-use packages by name.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  // Smaller to parse at every start. No `keepNames`: it wraps every function made at run time in
  // a naming call, measurably slower per request; error classes set their own `name`, and stack
  // traces name `server/src` files and lines through the map.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
});
