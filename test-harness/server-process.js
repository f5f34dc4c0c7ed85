/* global process, setTimeout, clearTimeout */
// @ts-check
// A Gatehouse server in a child process, as the server's system tests, the cluster test, the
// browser journeys' setup and the benchmarks start it: on a free port, with an environment, until
// it answers; its console captured; stopped with a signal and, if that does not end it, SIGKILL.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, sleep } from './ports.js';

/** The repository's root: the default working directory, from which `entry` is resolved. */
const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * @typedef {object} ServerProcessOptions
 * @property {Record<string, string | undefined>} [env] Goes last into the child's environment,
 *   after PATH and HOME (or all of this process's, see `inheritEnv`), PORT, HOST=127.0.0.1 and
 *   DATA_DIR (see `tempDataDir`).
 * @property {boolean} [inheritEnv] Start from this process's whole environment (the benchmarks,
 *   the browser journeys). Without it only PATH and HOME are passed on, so that nothing in the
 *   developer's shell changes what a test starts.
 * @property {string} [entry] The script node runs, relative to `cwd` (server/dist/main.js); a
 *   `.ts` entry (server/src/main.ts) runs through tsx.
 * @property {string[]} [nodeArgs] Node's own flags, before the entry (--inspect, --cpu-prof…).
 * @property {string[]} [args] After the entry; with `command`, that program's arguments.
 * @property {string} [command] A program to run instead of node (`npm` for `npm start`); `entry`
 *   and `nodeArgs` are then unused.
 * @property {string} [cwd] The working directory (the repository's root).
 * @property {number} [port] Its PORT, when the caller needs it before the start (APP_URL, an OAuth
 *   callback) or wants the same one again after a restart; otherwise a free one.
 * @property {string} [tempDataDir] The prefix of a fresh DATA_DIR in the system's temporary
 *   folder, removed when the process is stopped.
 * @property {string | null} [readyPath] Asked (GET) until it answers 200: /api/health, or null to
 *   ask nothing.
 * @property {RegExp} [readyOutput] Waited for in its output first (the bootstrap link, a `ready`
 *   line); what it matched is the handle's `match`.
 * @property {number} [timeoutMs] How long the start may take, both waits together (30 s).
 * @property {number} [pollMs] How often `readyPath` is asked and the output read (50 ms).
 * @property {boolean} [detached] Its own process group, signalled as a whole: `npm start` runs
 *   node under npm and a shell, which must stop together.
 * @property {number} [killAfterMs] How long a stop waits after its signal before SIGKILL (15 s).
 * @property {string} [name] What start-up errors call it ("The Gatehouse server").
 * @property {number} [outputTail] How many characters of its output, the last ones, a start-up
 *   error quotes (all of it).
 * @property {string} [logFile] Where its whole output is written once it has exited (kept after
 *   the run, for a failure's post-mortem).
 */

/** @typedef {{ code: number | null, signal: NodeJS.Signals | null }} Exit */

/**
 * @typedef {object} ServerProcess
 * @property {string} url `http://127.0.0.1:{port}`.
 * @property {number} port
 * @property {number} pid The child's (with `detached`, also its process group's).
 * @property {string | undefined} dataDir The `tempDataDir` made for it.
 * @property {RegExpExecArray | null} match What `readyOutput` matched.
 * @property {() => string} output Everything it printed so far, stdout and stderr.
 * @property {boolean} running Whether it has not exited yet.
 * @property {Promise<Exit>} exited Settles once it has exited.
 * @property {(signal?: NodeJS.Signals) => Promise<Exit>} stop Sends `signal` (SIGTERM), SIGKILL
 *   after `killAfterMs`, waits for the exit and removes `tempDataDir`.
 * @property {() => Promise<Exit>} kill `stop('SIGKILL')`: no shutdown at all.
 */

/**
 * Starts a server (Gatehouse, or any program that serves HTTP on PORT) in a child process and
 * waits until it is ready: `readyOutput` printed, then `readyPath` answered with 200. A start that
 * fails (the process exits, or the time runs out) stops it and throws with its output.
 * @param {ServerProcessOptions} [options]
 * @returns {Promise<ServerProcess>}
 */
export async function startServerProcess(options = {}) {
  const {
    entry = 'server/dist/main.js',
    nodeArgs = [],
    args = [],
    command,
    cwd = ROOT,
    inheritEnv = false,
    readyPath = '/api/health',
    readyOutput,
    timeoutMs = 30_000,
    pollMs = 50,
    detached = false,
    killAfterMs = 15_000,
    name = 'The Gatehouse server',
    outputTail = Infinity,
    logFile,
  } = options;
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const dataDir = options.tempDataDir
    ? mkdtempSync(path.join(os.tmpdir(), options.tempDataDir))
    : undefined;
  const base = inheritEnv
    ? process.env
    : { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
  const [program, argv] = command
    ? [command, args]
    : [
        process.execPath,
        [...nodeArgs, ...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []), entry, ...args],
      ];
  const child = spawn(program, argv, {
    cwd,
    env: {
      ...base,
      PORT: String(port),
      HOST: '127.0.0.1',
      ...(dataDir ? { DATA_DIR: dataDir } : {}),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text) => (output += text));
  child.stderr.setEncoding('utf8').on('data', (text) => (output += text));
  if (logFile) {
    child.once('close', () => {
      try {
        writeFileSync(logFile, output);
      } catch {
        // Its folder is gone (the run's teardown removed it).
      }
    });
  }

  /** @type {Exit | undefined} */
  let exit;
  /** @type {Error | undefined} */
  let spawnError;
  /** @type {Promise<Exit>} */
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve((exit = { code, signal })));
    // A program that could not be started at all (no such file) never exits.
    child.on('error', (error) => {
      if (child.pid !== undefined) return;
      spawnError = error;
      resolve((exit = { code: null, signal: null }));
    });
  });
  /** @param {NodeJS.Signals} [signal] */
  const stop = async (signal = 'SIGTERM') => {
    if (!exit) await stopProcess(child, { signal, killAfterMs, group: detached });
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    return exited;
  };

  /** @param {string} why */
  const fail = (why) =>
    new Error(`${name} ${why}. Its output so far:\n${output.slice(-outputTail)}`);
  const seconds = `${timeoutMs / 1000} s`;
  const deadline = Date.now() + timeoutMs;
  /** @type {RegExpExecArray | null} */
  let match = null;
  try {
    for (;;) {
      if (exit) {
        if (spawnError) throw fail(`could not be started (${spawnError.message})`);
        throw fail(
          exit.signal
            ? `was ended by ${exit.signal} before it was ready`
            : `exited with code ${exit.code} before it was ready`,
        );
      }
      if (readyOutput && !match) match = readyOutput.exec(output);
      const printed = !readyOutput || match !== null;
      if (printed && (readyPath === null || (await answers200(url, readyPath)))) break;
      if (Date.now() > deadline) {
        throw fail(
          printed
            ? `did not answer GET ${readyPath} with 200 within ${seconds}`
            : `printed nothing matching ${readyOutput} within ${seconds}`,
        );
      }
      await Promise.race([sleep(pollMs), exited]);
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    url,
    port,
    pid: /** @type {number} */ (child.pid),
    dataDir,
    match,
    output: () => output,
    get running() {
      return exit === undefined;
    },
    exited,
    stop,
    kill: () => stop('SIGKILL'),
  };
}

/**
 * Stops a child process: `signal` (SIGTERM), SIGKILL if it is still there after `killAfterMs`
 * (15 s), and waits for its exit. With `group`, the child was spawned `detached` and its whole
 * process group is signalled. Also for children started without the harness (nginx).
 * @param {import('node:child_process').ChildProcess} child
 * @param {{ signal?: NodeJS.Signals, killAfterMs?: number, group?: boolean }} [options]
 * @returns {Promise<void>}
 */
export async function stopProcess(
  child,
  { signal = 'SIGTERM', killAfterMs = 15_000, group = false } = {},
) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  /** @param {NodeJS.Signals} sig */
  const send = (sig) => {
    try {
      if (group && child.pid !== undefined) process.kill(-child.pid, sig);
      else child.kill(sig);
    } catch {
      // The group is gone already.
    }
  };
  send(signal);
  const timer = setTimeout(() => send('SIGKILL'), killAfterMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Whether GET `url``path` answers 200 (a fresh connection each time; an answer that takes more
 * than 5 s counts as none, so that a stalled server does not hold the wait past its time-out).
 * @param {string} url
 * @param {string} path
 * @returns {Promise<boolean>}
 */
function answers200(url, path) {
  return new Promise((resolve) => {
    const req = http.get(`${url}${path}`, { agent: false, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
  });
}
