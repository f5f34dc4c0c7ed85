import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The API reference is generated from the routes' schemas: the OpenAPI document lists every route
 * the server registers, and the page shows it under the site's strict policy.
 */
describe('the API reference', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite' });
  });
  afterAll(() => t?.close());

  /** Fastify's `:id` is OpenAPI's `{id}`. */
  const openApiPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');

  it('the OpenAPI 3.1 document lists every registered route, each with a summary, a tag and its answers', async () => {
    const res = await t.get('/api/docs/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    const registered = t.routes.filter((r) => r.method !== 'HEAD' && r.url.startsWith('/api'));
    expect(registered.length).toBeGreaterThan(50);
    const missing = registered.filter(
      (r) => !doc.paths[openApiPath(r.url)]?.[r.method.toLowerCase()],
    );
    expect(missing).toEqual([]);
    const incomplete: string[] = [];
    for (const [path, item] of Object.entries(
      doc.paths as Record<
        string,
        Record<string, { summary?: string; tags?: string[]; responses?: object }>
      >,
    )) {
      for (const [method, op] of Object.entries(item)) {
        if (!op.summary || !op.tags?.length || !Object.keys(op.responses ?? {}).length) {
          incomplete.push(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    expect(incomplete).toEqual([]);
  });

  it('the page is plain HTML with its own stylesheet, under a policy that allows no script', async () => {
    const res = await t.get('/api/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(res.text).not.toContain('<script');
    expect(res.text).toContain('<code>/api/collections/users/auth-with-password</code>');
    const css = await t.get('/api/docs/reference.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toContain('text/css');
  });
});
