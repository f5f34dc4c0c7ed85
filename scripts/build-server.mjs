// `npm run build:server`: the server as one file, server/dist/server.cjs (with its source map),
// so a start loads one file instead of several hundred (docs/decisions/0042), loaded by
// server/dist/main.js (server/src/launch.ts) with V8's code cache, server/dist/server.cache, which
// this build makes (docs/decisions/0065); and the operator CLI as one ES module,
// server/dist/cli.js, for installs without the development tools (scripts/cli.mjs).
// Types are checked by `npm run typecheck`, not here. Left outside the bundle: the native SQLite
// and Argon2 bindings, and the packages loaded on first use (docs/decisions/0041), which stay in
// node_modules.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { build } from 'esbuild';

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
const hash = createHash('sha256').update(bundle).digest('hex');

// What `node server/dist/main.js` runs: the bundle with its code cache.
await build({
  ...common,
  entryPoints: { main: path.join(root, 'server/src/launch.ts') },
  outdir: dist,
  format: 'esm',
  define: { BUNDLE_HASH: JSON.stringify(hash) },
});

// The code cache of what compiling the bundle compiles (its top level); a running server adds
// what its start compiled (launch.ts). Made with the same wrapper and file name as launch.ts.
const script = new vm.Script(
  `(function (exports, require, module, __filename, __dirname) {\n${bundle}\n})`,
  { filename: path.join(dist, 'server.cjs'), lineOffset: -1 },
);
fs.writeFileSync(
  path.join(dist, 'server.cache'),
  Buffer.concat([Buffer.from(`${hash}b`), script.createCachedData()]),
);

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
