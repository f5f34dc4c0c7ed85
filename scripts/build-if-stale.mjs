/* global console, process */
// `npm start` runs this first (scripts/start.mjs): it builds the server and the web app only when
// a source changed since the last successful build, so a restart builds nothing. The stamp
// (server/dist/.build-stamp) holds the newest modification time of the sources the last build
// saw. No build yet (a fresh clone) always builds. `--force` builds anyway.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const STAMP = path.join(root, 'server/dist/.build-stamp');
const OUTPUTS = ['server/dist/main.js', 'web/dist/index.html'];
/** What a build reads: sources, static files, configs and the installed packages' lockfile. */
const INPUTS = [
  'server/src',
  'server/tsconfig.json',
  'scripts/build-server.mjs',
  'web/src',
  'web/public',
  'web/index.html',
  'web/vite.config.ts',
  'web/tsconfig.json',
  'tsconfig.base.json',
  'package.json',
  'package-lock.json',
];
/** Written by the build itself (TanStack Router's route tree), so never a reason to build. */
const GENERATED = new Set([path.join(root, 'web/src/routeTree.gen.ts')]);

function newestMtime(entry) {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat || GENERATED.has(entry)) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its folder's time
  for (const name of fs.readdirSync(entry)) {
    newest = Math.max(newest, newestMtime(path.join(entry, name)));
  }
  return newest;
}

function staleReason() {
  if (process.argv.includes('--force')) return 'asked to (--force)';
  const missing = OUTPUTS.find((file) => !fs.existsSync(path.join(root, file)));
  if (missing) return `${missing} is missing`;
  const built = Number(fs.readFileSync(STAMP, { encoding: 'utf8', flag: 'a+' }).trim() || 0);
  const newest = Math.max(...INPUTS.map((input) => newestMtime(path.join(root, input))));
  return newest > built ? 'sources changed since the last build' : null;
}

/** Builds when a source changed since the last build; exits the process when the build fails. */
export function buildIfStale() {
  const reason = staleReason();
  if (!reason) return;
  // A deployment of the built files alone (no sources, or `npm ci --omit=dev`: no compiler) starts
  // what it has.
  const canBuild =
    fs.existsSync(path.join(root, 'server/src')) &&
    fs.existsSync(path.join(root, 'node_modules/esbuild')) &&
    fs.existsSync(path.join(root, 'node_modules/vite'));
  if (!canBuild) {
    if (OUTPUTS.every((file) => fs.existsSync(path.join(root, file)))) return;
    console.error('Gatehouse is not built and cannot be built here: run `npm install` first.');
    process.exit(1);
  }
  const newest = Math.max(...INPUTS.map((input) => newestMtime(path.join(root, input))));
  const started = Date.now();
  console.log(`Building (${reason})…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  // The times seen before building: a file saved during the build makes the next start build.
  fs.writeFileSync(STAMP, `${newest}\n`);
  console.log(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
}

// Run on its own (`node scripts/build-if-stale.mjs [--force]`): only the check and the build.
if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) buildIfStale();
