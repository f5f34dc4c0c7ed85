import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { freePort } from '../support/ports.js';
import { startServerProcess } from '../../../test-harness/server-process.js';

/**
 * A production install: the built files, package.json and the lockfile, `npm ci --omit=dev` (no
 * compiler, no test tools, no browsers), and the server starts. Needs `npm run build` first.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const DIST = path.join(ROOT, 'server', 'dist');
const run = promisify(execFile);

const SRC = path.join(ROOT, 'server', 'src');

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** `@scope/name/x` → `@scope/name`; `name/x` → `name`. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe.skipIf(!existsSync(path.join(DIST, 'main.js')))('installing for production', () => {
  const temp = mkdtempSync(path.join(os.tmpdir(), 'gh-production-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('every package the server loads is a dependency, not a devDependency', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    // What the server's code loads at run time: its imports (bundled into server/dist/main.js or
    // left outside it), dynamic imports and first-use loads; type-only imports load nothing.
    const loaded = /(?:\bfrom\s*|\bimport\s*\(\s*|\blazyRequire<[^(]*>\(\s*)'([^']+)'/g;
    const imported = new Set<string>();
    for (const file of sourceFiles()) {
      const code = readFileSync(file, 'utf8').replace(/^import type [^;]*;/gm, '');
      for (const m of code.matchAll(loaded)) {
        const specifier = m[1]!;
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
        if (builtinModules.includes(specifier)) continue;
        imported.add(packageOf(specifier));
      }
    }
    expect(imported).toContain('fastify');
    expect(imported).toContain('pg');
    expect(imported).toContain('@simplewebauthn/server');
    const missing = [...imported].filter((name) => !(name in pkg.dependencies));
    expect(missing, 'loaded by the server but not in "dependencies"').toEqual([]);
  });

  // Slow system test (1–3 minutes): a real `npm ci` from the registry (or npm's cache).
  it('slow system test: `npm ci --omit=dev` on the built files, then `npm start` answers /api/health and `npm run cli` works', async () => {
    const app = path.join(temp, 'app');
    for (const part of [
      'server/dist',
      'web/dist',
      'scripts',
      'package.json',
      'package-lock.json',
    ]) {
      cpSync(path.join(ROOT, part), path.join(app, part), { recursive: true });
    }
    await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], {
      cwd: app,
      timeout: 480_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(existsSync(path.join(app, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(path.join(app, 'node_modules', 'vite'))).toBe(false);

    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(temp, 'data'),
      ENV_FILE: '',
    };
    // npm start in its own process group: npm, its shell and node are stopped together.
    const server = await startServerProcess({
      command: 'npm',
      args: ['start'],
      cwd: app,
      port,
      env,
      detached: true,
      timeoutMs: 60_000,
      name: 'The production install',
    });
    try {
      const page = await request(server.url, 'GET', '/');
      expect(page.status).toBe(200);
      expect(server.output()).not.toContain('Building');

      // The operator's CLI works there too (no tsx, no sources): the bundle in server/dist.
      const link = await run('npm', ['run', '--silent', 'cli', '--', 'initial-invite'], {
        cwd: app,
        env,
      });
      expect(link.stdout).toMatch(/^http:\/\/localhost:\d+\/signup\?code=[0-9A-Z-]+\n$/);
    } finally {
      await server.stop();
    }
  }, 600_000);
});
