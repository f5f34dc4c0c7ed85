import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { APP_ROUTES, HTML_CSP, isAppRoute, pageCsp } from '../../src/http/web-app.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const ROUTES_DIR = path.join(ROOT, 'web', 'src', 'routes');

/**
 * The URL paths of TanStack Router's file routes: `_layout` segments add nothing, `index` is the
 * parent's path, `a.b` is `a/b`, `$param` matches any segment (here: `x`), `-x` and tests are not
 * routes, `route.tsx` is its folder's route.
 */
function routePaths(dir = ROUTES_DIR, prefix: string[] = []): string[] {
  const paths: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('-')) continue;
    if (entry.isDirectory()) {
      paths.push(...routePaths(path.join(dir, entry.name), [...prefix, ...segments(entry.name)]));
      continue;
    }
    if (!/\.tsx?$/.test(entry.name) || /\.(test|spec)\.tsx?$/.test(entry.name)) continue;
    const base = entry.name.replace(/\.tsx?$/, '').replace(/\.lazy$/, '');
    if (base === '__root') continue;
    const parts = base === 'route' ? [] : segments(base);
    paths.push('/' + [...prefix, ...parts].join('/'));
  }
  return paths;
}

function segments(name: string): string[] {
  return name
    .split('.')
    .filter((s) => s !== 'index' && !s.startsWith('_') && !/^\(.*\)$/.test(s))
    .map((s) => (s.startsWith('$') ? 'x' : s));
}

describe('the web app routes the server knows (APP_ROUTES)', () => {
  it('include every screen of web/src/routes', () => {
    const paths = [...new Set(routePaths())];
    expect(paths.length).toBeGreaterThan(5);
    const missing = paths.filter((p) => !isAppRoute(p));
    expect(
      missing,
      `web/src/routes has screens that APP_ROUTES in server/src/http/web-app.ts lacks`,
    ).toEqual([]);
  });

  it('match exactly, with an optional trailing slash, and everything under /admin/', () => {
    for (const p of APP_ROUTES) expect(isAppRoute(p), p).toBe(true);
    expect(isAppRoute('/home/')).toBe(true);
    expect(isAppRoute('/admin/users/42')).toBe(true);
    expect(isAppRoute('/homes')).toBe(false);
    expect(isAppRoute('/profile/x')).toBe(false);
    expect(isAppRoute('/administrator')).toBe(false);
  });
});

/** A script the build compressed, at levels the server never uses itself (it uses 11 and 9). */
const BIG = `console.log(${JSON.stringify(Array.from({ length: 600 }, (_, i) => (i * 7919) % 1009))});`;
const BUILT_BR = brotliCompressSync(BIG, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
const BUILT_GZ = gzipSync(BIG, { level: 1 });

/** GET with an Accept-Encoding: the status, the encoding and the body's bytes as sent. */
function rawGet(base: string, p: string, encoding: string) {
  return new Promise<{ status: number; encoding: string | undefined; body: Buffer }>(
    (resolve, reject) => {
      http
        .get(`${base}${p}`, { headers: { 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              encoding: res.headers['content-encoding'],
              body: Buffer.concat(chunks),
            }),
          );
        })
        .on('error', reject);
    },
  );
}

describe("the page's security policy", () => {
  it('allows the inline theme script by its hash, and nothing else inline', () => {
    const script = "document.documentElement.classList.add('dark');";
    const hash = createHash('sha256').update(script).digest('base64');
    const csp = pageCsp(
      `<head><script>${script}</script><script type="module" src="/a.js"></script></head>`,
    );
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}';`);
    expect(csp).not.toContain('unsafe-inline');
    expect(pageCsp('<head><title>x</title></head>')).toBe(HTML_CSP);
  });
});

describe('hosting the built web app', () => {
  let t: TestServer;
  let renamed: TestServer;
  const webDist = mkdtempSync(path.join(os.tmpdir(), 'gh-web-'));
  const notes = [
    {
      version: '0.1.0',
      date: '2026-01-01',
      title: 'Gatehouse opens',
      summary: 'Gatehouse opens its doors.',
      features: ['Share Gatehouse invites.'],
      improvements: [],
      fixes: [],
    },
  ];
  beforeAll(async () => {
    mkdirSync(path.join(webDist, 'assets'));
    writeFileSync(
      path.join(webDist, 'index.html'),
      '<!doctype html><html><head><title>Gatehouse</title></head><body>app-shell</body></html>',
    );
    writeFileSync(path.join(webDist, 'assets', 'index-Bx3k9Qz1.js'), 'console.log(1);');
    writeFileSync(path.join(webDist, 'changelog.json'), JSON.stringify(notes));
    // A script over 1 KB with the compressed forms the build writes beside it (web/vite.config.ts).
    writeFileSync(path.join(webDist, 'assets', 'big-Qw3r7y1u.js'), BIG);
    writeFileSync(path.join(webDist, 'assets', 'big-Qw3r7y1u.js.br'), BUILT_BR);
    writeFileSync(path.join(webDist, 'assets', 'big-Qw3r7y1u.js.gz'), BUILT_GZ);
    t = await startTestServer({ db: 'sqlite', env: { WEB_DIST: webDist } });
    renamed = await startTestServer({ db: 'sqlite', env: { WEB_DIST: webDist, APP_NAME: 'Door' } });
  });
  afterAll(async () => {
    await t?.close();
    await renamed?.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  it('serves an unknown path with 404 and the page (the app shows its Not Found view)', async () => {
    for (const p of ['/deep/link/here', '/homes', '/profile/x', '/nope?x=1']) {
      const res = await t.request('GET', p);
      expect(res.status, p).toBe(404);
      expect(res.headers['content-type'], p).toMatch(/text\/html/);
      expect(res.text, p).toContain('app-shell');
      expect(res.headers['content-security-policy'] ?? '', p).toMatch(/frame-ancestors 'none'/);
    }
    expect((await t.request('HEAD', '/deep/link/here')).status).toBe(404);
  });

  it('serves the app routes with 200', async () => {
    for (const p of [
      ...APP_ROUTES,
      '/signup?code=ABC',
      '/home/',
      '/admin/users',
      '/verify-email?token=x',
    ]) {
      const res = await t.request('GET', p);
      expect(res.status, p).toBe(200);
      expect(res.text, p).toContain('app-shell');
    }
  });

  it("serves the build's brotli and gzip forms as they are, never under their own names", async () => {
    const br = await rawGet(t.url, '/assets/big-Qw3r7y1u.js', 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.encoding).toBe('br');
    expect(br.body.equals(BUILT_BR)).toBe(true);
    expect(brotliDecompressSync(br.body).toString()).toBe(BIG);
    const gz = await rawGet(t.url, '/assets/big-Qw3r7y1u.js', 'gzip');
    expect(gz.encoding).toBe('gzip');
    expect(gz.body.equals(BUILT_GZ)).toBe(true);
    const plain = await rawGet(t.url, '/assets/big-Qw3r7y1u.js', 'identity');
    expect(plain.encoding).toBeUndefined();
    expect(plain.body.toString()).toBe(BIG);
    for (const p of ['/assets/big-Qw3r7y1u.js.br', '/assets/big-Qw3r7y1u.js.gz']) {
      expect((await rawGet(t.url, p, 'br')).status, p).toBe(404);
    }
  });

  it('a missing asset stays a plain 404', async () => {
    for (const p of ['/assets/old-1234.js', '/missing.png']) {
      const res = await t.request('GET', p);
      expect(res.status, p).toBe(404);
      expect(res.headers['content-type'], p).toMatch(/text\/plain/);
      expect(res.text, p).not.toContain('app-shell');
    }
  });

  it('serves the release notes with the configured APP_NAME instead of "Gatehouse"', async () => {
    const same = await t.request('GET', '/changelog.json');
    expect(same.body).toEqual(notes);
    const res = await renamed.request('GET', '/changelog.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual([
      {
        ...notes[0],
        title: 'Door opens',
        summary: 'Door opens its doors.',
        features: ['Share Door invites.'],
      },
    ]);
  });
});
