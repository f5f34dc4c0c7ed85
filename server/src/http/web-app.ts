import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Hosts the built single-page app from memory: the whole of web/dist is a few hundred KB, so it is
 * read once at start, with the gzip and brotli forms the build wrote beside each file (`x.js.gz`,
 * `x.js.br`; web/vite.config.ts), and served with ETags. What the server changes (index.html, the
 * release notes under another APP_NAME) or a build without those forms is compressed in the
 * background after start. Hashed files under
 * /assets/ are cached for a year; index.html and changelog.json are revalidated every time.
 * Any other GET that is not a file gets index.html: with 200 on the app's routes (APP_ROUTES), with
 * 404 elsewhere (the app's router shows its Not Found view, and crawlers and monitors see a 404).
 */

/**
 * The paths the web app's router answers. It must follow web/src/routes: a screen added there goes
 * here too (server/test/system/web-app.test.ts reads the route files and fails on a missing one).
 * `/admin` covers everything under `/admin/` (the operator console's screens).
 */
export const APP_ROUTES: readonly string[] = [
  '/',
  '/signup',
  '/forgot-password',
  '/reset-password',
  '/verify-email',
  '/confirm-email-change',
  '/home',
  '/profile',
  '/settings',
  '/whats-new',
  '/gate',
  '/admin',
];
/** Routes whose every sub-path is the app's too (`/authorize/{uid}`: an app's sign-in). */
const APP_ROUTE_PREFIXES: readonly string[] = ['/admin', '/authorize'];

/** Whether the web app has a screen at `pathname` (a trailing slash is the same path). */
export function isAppRoute(pathname: string): boolean {
  const p = pathname.length > 1 ? pathname.replace(/\/+$/, '') || '/' : pathname;
  return APP_ROUTES.includes(p) || APP_ROUTE_PREFIXES.some((prefix) => p.startsWith(`${prefix}/`));
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.map': 'application/json; charset=utf-8',
};

/**
 * The page's security policy: nothing inline, nothing from elsewhere, never framed. The one inline
 * script the page has (it applies the member's theme before the first paint) is allowed by its
 * hash (`pageCsp`).
 */
export const HTML_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** HTML_CSP allowing, by their sha256, the inline scripts `html` carries (none else). */
export function pageCsp(html: string): string {
  const hashes = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`,
  );
  if (hashes.length === 0) return HTML_CSP;
  return HTML_CSP.replace("script-src 'self'", `script-src 'self' ${hashes.join(' ')}`);
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
  compressible: boolean;
  gzip?: Buffer;
  br?: Buffer;
}

const escapeAttr = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class WebApp {
  private assets = new Map<string, Asset>();
  private index: Asset;
  /** The page's security policy, allowing the page's own inline scripts (`pageCsp`). */
  private csp = HTML_CSP;
  private reading: Promise<void> | undefined;
  private read = false;
  /** Whether the built app was found (else a placeholder page is served). */
  readonly built: boolean;

  /**
   * The app in `dist`, read by `load`: the server calls it once it listens, so a start does not
   * wait for ~500 files (docs/decisions/0065); a page asked for before they are read waits for them.
   */
  constructor(
    private readonly dist: string,
    private readonly site: Site,
  ) {
    this.built = existsSync(path.join(dist, 'index.html'));
    this.index = asset(
      Buffer.from(personalize(placeholderPage(site.appName), site)),
      TYPES['.html']!,
      false,
    );
  }

  /** Reads the files (once), then compresses what has no compressed forms in the background. */
  load(): Promise<void> {
    this.reading ??= this.readAll().then(() => {
      this.read = true;
      void this.compressAll();
    });
    return this.reading;
  }

  private async readAll(): Promise<void> {
    const { dist, site } = this;
    let indexHtml: string | undefined;
    try {
      // A file's compressed forms are read with it, never served under their own names.
      const files = (await fs.readdir(dist, { recursive: true, withFileTypes: true })).filter(
        (file) => file.isFile() && !/\.(gz|br)$/.test(file.name),
      );
      // All at once: one after the other, the start waited on ~500 reads in turn.
      const read = await Promise.all(
        files.map(async (file) => {
          const full = path.join(file.parentPath, file.name);
          const urlPath = '/' + path.relative(dist, full).split(path.sep).join('/');
          const built = await fs.readFile(full);
          const body =
            urlPath === '/changelog.json' ? nameReleaseNotes(built, site.appName) : built;
          if (urlPath === '/index.html') return { urlPath, body };
          const immutable = urlPath.startsWith('/assets/');
          const hosted = asset(
            body,
            TYPES[path.extname(full)] ?? 'application/octet-stream',
            immutable,
          );
          if (hosted.compressible && body === built) {
            [hosted.gzip, hosted.br] = await Promise.all([
              readIfThere(`${full}.gz`),
              readIfThere(`${full}.br`),
            ]);
          }
          return { urlPath, body, hosted };
        }),
      );
      for (const { urlPath, body, hosted } of read) {
        if (hosted) this.assets.set(urlPath, hosted);
        else indexHtml = body.toString('utf8');
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (indexHtml !== undefined) {
      const page = personalize(indexHtml, site);
      this.index = asset(Buffer.from(page), TYPES['.html']!, false);
      this.csp = pageCsp(page);
    }
  }

  private async compressAll(): Promise<void> {
    for (const file of [this.index, ...this.assets.values()]) {
      if (!file.compressible) continue;
      file.gzip ??= await gzipAsync(file.body, { level: 9 });
      file.br ??= await brotliAsync(file.body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
      });
    }
  }

  /** Serves a GET or HEAD outside /api/. */
  serve(request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> {
    if (!this.read) return this.load().then(() => this.serve(request, reply));
    const pathname = decodeURIComponentSafe(request.url.split('?', 1)[0] ?? '/');
    const file = this.assets.get(pathname);
    if (file) return send(request, reply, file);
    // A missing file is a 404, never the page: a stale script tag must not get HTML back.
    if (pathname.startsWith('/assets/') || /\.[a-z0-9]+$/i.test(pathname)) {
      return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    }
    reply.header('Content-Security-Policy', this.csp);
    // Not a screen of the app: the page still renders (its Not Found view), with a 404.
    if (!isAppRoute(pathname)) return send(request, reply.code(404), this.index);
    return send(request, reply, this.index);
  }
}

/** A file's contents, or undefined when there is no such file. */
async function readIfThere(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function asset(body: Buffer, type: string, immutable: boolean): Asset {
  return {
    body,
    type,
    etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
    cacheControl: immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    compressible: body.length > 1024 && /text|json|javascript|svg/.test(type),
  };
}

function send(request: FastifyRequest, reply: FastifyReply, file: Asset): FastifyReply {
  reply.header('Cache-Control', file.cacheControl).header('ETag', file.etag).type(file.type);
  if (file.compressible) reply.header('Vary', 'Accept-Encoding');
  if (reply.statusCode === 200 && request.headers['if-none-match'] === file.etag) {
    return reply.code(304).send();
  }
  const accepts = String(request.headers['accept-encoding'] ?? '');
  if (file.br && /\bbr\b/.test(accepts)) {
    return reply.header('Content-Encoding', 'br').send(file.br);
  }
  if (file.gzip && /\bgzip\b/.test(accepts)) {
    return reply.header('Content-Encoding', 'gzip').send(file.gzip);
  }
  return reply.send(file.body);
}

/** What the page is told about the site; of the providers only their names (never a secret). */
interface Site {
  appName: string;
  appUrl: string;
  providers?: ReadonlyArray<{ name: string; displayName: string }>;
}

/**
 * Puts APP_NAME and APP_URL where the web app reads them (two meta tags and the title), and the
 * configured sign-in providers in a third meta tag, only when there are some.
 */
function personalize(html: string, site: Site): string {
  const providers = (site.providers ?? []).map((p) => ({
    name: p.name,
    displayName: p.displayName,
  }));
  const providersMeta =
    providers.length > 0
      ? `\n    <meta name="sign-in-providers" content="${escapeAttr(JSON.stringify(providers))}" />`
      : '';
  return html
    .replace(
      /<meta name="application-name" content="[^"]*"\s*\/?>/,
      `<meta name="application-name" content="${escapeAttr(site.appName)}" />`,
    )
    .replace(
      /<meta name="app-url" content="[^"]*"\s*\/?>/,
      `<meta name="app-url" content="${escapeAttr(site.appUrl)}" />${providersMeta}`,
    )
    .replace(/<title>[^<]*<\/title>/, `<title>${escapeAttr(site.appName)}</title>`);
}

/** The product name the release notes are written with (web/public/changelog.json). */
const WRITTEN_NAME = 'Gatehouse';

/**
 * The release notes with the configured APP_NAME instead of the name they are written with, in
 * every string of every entry. A file that is not the expected JSON is served as it is.
 */
function nameReleaseNotes(body: Buffer, appName: string): Buffer {
  if (appName === WRITTEN_NAME) return body;
  let entries: unknown;
  try {
    entries = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  const rename = (value: unknown): unknown => {
    if (typeof value === 'string') return value.replaceAll(WRITTEN_NAME, appName);
    if (Array.isArray(value)) return value.map(rename);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rename(v)]));
    }
    return value;
  };
  return Buffer.from(JSON.stringify(rename(entries), null, 2));
}

function placeholderPage(appName: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8" /><title>${escapeAttr(appName)}</title>
<meta name="application-name" content="" /><meta name="app-url" content="" /></head>
<body><h1>${escapeAttr(appName)}</h1>
<p>The API is running. The web app has not been built yet: run <code>npm run build</code>.</p>
</body></html>`;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
