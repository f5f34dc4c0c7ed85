/* global console, fetch, process, setTimeout */
// The server's code cache (docs/decisions/0065), made by the build (build-server.mjs) and read by
// server/dist/main.js (server/src/launch.ts), which compiles server.cjs in the same wrapper under
// the same file name. The file: the bundle's SHA-256 in hex, then V8's data.
//
// `node scripts/code-cache.mjs <server.cjs> <server.cache> <hash>` records what a start compiles:
// it runs the bundle as the launcher does, on a throwaway SQLite database and a free port with
// nothing from the environment (no .env, no DATABASE_URL, no SMTP_URL), waits for the first 200
// from /api/health, writes the cache of every function compiled by then, and exits.
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * How the bundle is wrapped: a CommonJS module's function, on a line of its own. The build passes
 * these to server/src/launch.ts, so the launcher compiles exactly what the cache was made from.
 */
export const WRAPPER_START = '(function (exports, require, module, __filename, __dirname) {\n';
export const WRAPPER_END = '\n})';

/** The bundle compiled as the launcher compiles it. */
export function compile(bundleFile, source) {
  return new vm.Script(`${WRAPPER_START}${source}${WRAPPER_END}`, {
    filename: bundleFile,
    lineOffset: -1,
  });
}

export function writeCache(cacheFile, hash, script) {
  // V8 ties a cache to the flags it was made with, and a running server changes one
  // (server/src/tools/young-generation.ts): back to V8's default, which a start compiles with.
  v8.setFlagsFromString('--semi-space-growth-factor=2');
  fs.writeFileSync(cacheFile, Buffer.concat([Buffer.from(hash), script.createCachedData()]));
}

async function freePort() {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

if (process.argv[1] === import.meta.filename) {
  const [bundleFile, cacheFile, hash] = process.argv.slice(2);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-code-cache-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  for (const name of Object.keys(process.env)) {
    if (name !== 'PATH' && name !== 'HOME') delete process.env[name];
  }
  Object.assign(process.env, {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    APP_URL: `http://127.0.0.1:${port}`,
    ENV_FILE: '',
    LOG_LEVEL: 'silent',
  });
  const script = compile(bundleFile, fs.readFileSync(bundleFile, 'utf8'));
  const module = { exports: {} };
  script.runInThisContext()(
    module.exports,
    createRequire(bundleFile),
    module,
    bundleFile,
    path.dirname(bundleFile),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      console.error('The server did not answer within a minute.');
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  writeCache(cacheFile, hash, script);
  process.exit(0);
}
