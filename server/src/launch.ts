import fs from 'node:fs';
import { SourceMap, createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { allowYoungGrowth } from './tools/young-generation.js';

/**
 * What `node server/dist/main.js` runs (built from this file by scripts/build-server.mjs): it loads
 * the bundled server, server/dist/server.cjs (built from main.ts), with V8's code cache, so a start
 * does not parse 3 MB of JavaScript again (docs/decisions/0065).
 *
 * The cache (server/dist/server.cache) is made by the build, which starts the bundle once to
 * record what a start compiles (scripts/code-cache.mjs: the build passes its wrapper in; the
 * file name must match). V8 refuses a cache made by another Node version or with other V8 flags
 * (`--max-old-space-size`…); such a server then compiles as without one, and writes its own
 * cache 10 s after it started, when the folder is writable. The bundle's hash in the file's first
 * bytes ties the cache to the bundle (V8 itself only compares the source's length).
 */

/** Set by the build: the SHA-256 of server.cjs, in hex. */
declare const BUNDLE_HASH: string;
/**
 * Set by the build from scripts/code-cache.mjs, which records the cache in the same wrapper: the
 * bundle is CommonJS, run in a function like Node's own module wrapper.
 */
declare const WRAPPER_START: string;
declare const WRAPPER_END: string;

const dir = import.meta.dirname;
const bundle = path.join(dir, 'server.cjs');
const cacheFile = path.join(dir, 'server.cache');
/** The cache's header: the bundle's hash (hex). */
const HEADER = 64;
/** When a server whose cache was refused writes its own: after the start and first requests. */
const WRITE_AFTER_MS = 10_000;

function readCache(): Buffer | undefined {
  let file: Buffer;
  try {
    file = fs.readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  if (file.length <= HEADER || file.toString('latin1', 0, 64) !== BUNDLE_HASH) return undefined;
  return file.subarray(HEADER);
}

/** Writes the cache beside the bundle, whole or not at all (a rename), if the folder allows. */
function writeCache(script: vm.Script): void {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    return; // a read-only install keeps the build's cache
  }
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    // V8 ties a cache to the flags it was made with: these are the ones a start compiles with.
    allowYoungGrowth(true);
    const data = script.createCachedData();
    allowYoungGrowth(false); // the listening server sets it again after each collection
    fs.writeFileSync(temp, Buffer.concat([Buffer.from(BUNDLE_HASH), data]));
    fs.renameSync(temp, cacheFile);
  } catch {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * With `--enable-source-maps`, Node maps the stack traces of the files its loaders load; the
 * bundle is compiled here instead, so its frames are mapped here, to `server/src` files and lines,
 * through server.cjs.map (read at the first stack trace, not at start).
 */
function mapStackTraces(): void {
  let map: SourceMap | null | undefined;
  const load = () => {
    try {
      return new SourceMap(JSON.parse(fs.readFileSync(`${bundle}.map`, 'utf8')));
    } catch {
      return null;
    }
  };
  const mapFrame = (frame: NodeJS.CallSite): string => {
    const text = String(frame);
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    if (frame.getFileName() !== bundle || line === null || column === null) return text;
    map ??= load();
    const entry = map?.findEntry(line - 1, column - 1) as
      Partial<{ originalSource: string; originalLine: number; originalColumn: number }> | undefined;
    if (entry?.originalSource === undefined || entry.originalLine === undefined) return text;
    const source = entry.originalSource.startsWith('file://')
      ? entry.originalSource.slice('file://'.length)
      : path.resolve(dir, entry.originalSource);
    const from = `${bundle}:${line}:${column}`;
    const at = text.lastIndexOf(from);
    if (at < 0) return text;
    const to = `${source}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}`;
    return text.slice(0, at) + to + text.slice(at + from.length);
  };
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]) => {
    let head: string;
    try {
      head = Error.prototype.toString.call(error);
    } catch {
      head = '<error>';
    }
    return head + frames.map((frame) => `\n    at ${mapFrame(frame)}`).join('');
  };
}

/**
 * Compiles the bundle in its wrapper. In a function, so that the text read (2.4 MB) and the cache
 * (2 MB) are garbage once V8 has them: as module-level constants they stayed in memory for the
 * server's life, beside V8's own copy of the wrapped source.
 */
function compile(): vm.Script {
  const cache = readCache();
  const script = new vm.Script(`${WRAPPER_START}${fs.readFileSync(bundle, 'utf8')}${WRAPPER_END}`, {
    filename: bundle,
    lineOffset: -1, // the wrapper's line: the bundle's lines keep their numbers
    cachedData: cache,
  });
  if (!cache || script.cachedDataRejected) {
    setTimeout(() => writeCache(script), WRITE_AFTER_MS).unref();
  }
  return script;
}

if (process.sourceMapsEnabled) mapStackTraces();
const module = { exports: {} };
const script = compile();
// The start makes many objects that live on (the modules, the routes): V8 would grow its young
// generation to 16 MB for them and keep it. It stays at its starting size until the server
// listens and bounds it (tools/young-generation.ts). Set after compiling: V8 checks a code
// cache against the flags.
allowYoungGrowth(false);
(script.runInThisContext() as (...args: unknown[]) => void)(
  module.exports,
  createRequire(bundle),
  module,
  bundle,
  dir,
);
