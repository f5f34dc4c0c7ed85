/* global console, process */
// `npm run build:server`: the server as one file, server/dist/server.cjs (with its source map),
// so a start loads one file instead of several hundred (docs/decisions/0042), loaded by
// server/dist/main.js (server/src/launch.ts) with V8's code cache, server/dist/server.cache, which
// this build makes (docs/decisions/0065); and the operator CLI as one ES module,
// server/dist/cli.js, for installs without the development tools (scripts/cli.mjs).
// Types are checked by `npm run typecheck`, not here. Left outside the bundle: the native SQLite
// and Argon2 bindings, and the packages loaded on first use (docs/decisions/0041), which stay in
// node_modules.
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { WRAPPER_END, WRAPPER_START, compile, writeCache } from './code-cache.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'server/dist');

/** Imported as packages at run time; every one must be in package.json's "dependencies". */
const EXTERNAL = ['better-sqlite3', '@node-rs/argon2', '@simplewebauthn/server', 'oidc-provider'];

// A stamp written by build-if-stale.mjs is kept; older outputs (one file per module) are not.
for (const name of fs.existsSync(dist) ? fs.readdirSync(dist) : []) {
  if (name !== '.build-stamp') fs.rmSync(path.join(dist, name), { recursive: true, force: true });
}

/** What every bundle shares. */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Smaller to parse at every start. No `keepNames`: it wraps every function made at run time in
  // a naming call, measurably slower per request; error classes set their own `name`, and stack
  // traces name `server/src` files and lines through the map.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
};

// The server: CommonJS, which Node 20 can compile with a code cache (vm.Script); an ES module it
// cannot. `import.meta` is the bundle's own file, as it was in the ES module.
await build({
  ...common,
  entryPoints: { server: path.join(root, 'server/src/main.ts') },
  outdir: dist,
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // The licences' comments go to server.cjs.LEGAL.txt: their few accented names made the whole
  // source a two-byte string, twice the memory and ~100 ms more to read at every start.
  legalComments: 'linked',
  define: { 'import.meta.dirname': '__dirname', 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});

const bundle = fs.readFileSync(path.join(dist, 'server.cjs'), 'utf8');
// Node 20 loses what import() needs in code run from a code cache (the call fails with "A
// dynamic import callback was not specified"): the server loads its ES modules with require.
if (/\bimport\s*\(/.test(bundle)) {
  throw new Error(
    'server.cjs calls import(): load the package with lazyRequire (tools/lazy-require.ts).',
  );
}
if (Buffer.byteLength(bundle) !== bundle.length) {
  console.warn('server.cjs is not ASCII: every start reads it more slowly (docs/decisions/0065).');
}
const hash = createHash('sha256').update(bundle).digest('hex');

// What `node server/dist/main.js` runs: the bundle with its code cache.
await build({
  ...common,
  entryPoints: { main: path.join(root, 'server/src/launch.ts') },
  outdir: dist,
  format: 'esm',
  define: {
    BUNDLE_HASH: JSON.stringify(hash),
    WRAPPER_START: JSON.stringify(WRAPPER_START),
    WRAPPER_END: JSON.stringify(WRAPPER_END),
  },
});

// The code cache (scripts/code-cache.mjs): what a start compiles, recorded by starting the bundle
// once on a throwaway database; if that start fails, what compiling the bundle compiles.
const cacheFile = path.join(dist, 'server.cache');
const trained = spawnSync(
  process.execPath,
  [path.join(root, 'scripts/code-cache.mjs'), path.join(dist, 'server.cjs'), cacheFile, hash],
  { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 120_000 },
);
if (trained.status !== 0) {
  console.warn(`The code cache holds the top level only: the start failed.\n${trained.stderr}`);
  writeCache(cacheFile, hash, compile(path.join(dist, 'server.cjs'), bundle));
}

// The operator's CLI: an ES module, started once per command.
await build({
  ...common,
  entryPoints: { cli: path.join(root, 'server/src/cli.ts') },
  outdir: dist,
  format: 'esm',
  // The CommonJS packages inside the bundle call require() for Node's own modules, and
  // tools/lazy-require.ts loads the first-use packages by name.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
