import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The API reference, generated from the routes' schemas (contract/): the OpenAPI 3.1 document at
 * /api/docs/openapi.json, and a readable page of it at /api/docs (plain HTML and a stylesheet of
 * its own, no script, so the site's strict security policy holds). Registered before the routes:
 * it collects them as they are added.
 */

const TITLE = 'Gatehouse HTTP API';

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{
    name: string;
    in: string;
    required?: boolean;
    description?: string;
    schema?: JsonSchema;
  }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<
    string,
    { description?: string; content?: Record<string, { schema?: JsonSchema }> }
  >;
}

interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  default?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  $ref?: string;
  additionalProperties?: boolean | JsonSchema;
}

type Document = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
};

// Named: fastify-plugin names an anonymous plugin from a stack trace, which with
// `--enable-source-maps` reads the bundle's whole source map at start (docs/decisions/0065).
export const apiDocs = fp(
  async (app: FastifyInstance, options: { version: string }) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: TITLE,
          version: options.version,
          description:
            'PocketBase-compatible accounts API of Gatehouse. The flows, limits and error rules are in docs/api.md.',
        },
        components: {
          securitySchemes: {
            authToken: {
              type: 'apiKey',
              in: 'header',
              name: 'Authorization',
              description: 'An auth token, with or without `Bearer `.',
            },
          },
        },
      },
      // A request field with a default is not required of the client (it reads as '' when missing).
      transformObject: (document) =>
        'openapiObject' in document
          ? (dropDefaultedRequired(document.openapiObject as unknown as Document) as never)
          : document.swaggerObject,
      exposeHeadRoutes: false,
    });

    let json: string | undefined;
    let html: string | undefined;
    const documentJson = () => (json ??= JSON.stringify(app.swagger()));

    app.get(
      '/api/docs/openapi.json',
      { schema: { summary: 'This OpenAPI document', tags: ['Reference'] } },
      async (_request, reply) => {
        reply.type('application/json; charset=utf-8');
        return documentJson();
      },
    );
    app.get(
      '/api/docs',
      { schema: { summary: 'This reference, as a page', tags: ['Reference'] } },
      async (_request, reply) => {
        reply.type('text/html; charset=utf-8');
        reply.header('content-security-policy', DOCS_CSP);
        return (html ??= renderReference(JSON.parse(documentJson()) as Document));
      },
    );
    app.get(
      '/api/docs/reference.css',
      { schema: { summary: "The reference page's stylesheet", tags: ['Reference'] } },
      async (_request, reply) => {
        reply.type('text/css; charset=utf-8');
        return STYLES;
      },
    );
  },
  { name: 'api-docs' },
);

/** Nothing but this page's own stylesheet. */
const DOCS_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function dropDefaultedRequired(doc: Document): Document {
  const visit = (schema: JsonSchema | undefined) => {
    if (!schema || typeof schema !== 'object') return;
    if (schema.properties && schema.required) {
      schema.required = schema.required.filter((k) => schema.properties![k]?.default === undefined);
      if (schema.required.length === 0) delete schema.required;
    }
    for (const child of Object.values(schema.properties ?? {})) visit(child);
    visit(schema.items);
    for (const child of schema.anyOf ?? []) visit(child);
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      for (const media of Object.values(op.requestBody?.content ?? {})) visit(media.schema);
    }
  }
  return doc;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `code` spans for backticks, nothing else of Markdown. */
const prose = (text: string | undefined) =>
  text ? escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>') : '';

function typeOf(schema: JsonSchema | undefined, doc: Document): string {
  if (!schema) return '';
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop() ?? 'object';
    return doc.components?.schemas?.[name]?.title ?? name;
  }
  if (schema.anyOf) return schema.anyOf.map((s) => typeOf(s, doc)).join(' | ');
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
  if (type === 'array') return `${typeOf(schema.items, doc)}[]`;
  return type;
}

function fields(schema: JsonSchema | undefined, doc: Document, depth = 0): string {
  if (!schema?.properties || depth > 3) return '';
  const rows = Object.entries(schema.properties).map(([name, child]) => {
    const required = schema.required?.includes(name) ? ' <span class="req">required</span>' : '';
    const nested =
      child.properties || child.items?.properties
        ? fields(child.properties ? child : child.items, doc, depth + 1)
        : '';
    return `<li><code>${escapeHtml(name)}</code> <span class="type">${escapeHtml(typeOf(child, doc))}</span>${required}${child.description ? ` — ${prose(child.description)}` : ''}${nested}</li>`;
  });
  return `<ul class="fields">${rows.join('')}</ul>`;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** The reference page: one section per tag, one entry per operation, in path order. */
export function renderReference(doc: Document): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths ?? {}).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    for (const [method, op] of Object.entries(item)) {
      const tag = op.tags?.[0] ?? 'Other';
      const id = slug(`${method} ${path}`);
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<li><code>${escapeHtml(p.name)}</code> <span class="type">${escapeHtml(p.in)}, ${escapeHtml(typeOf(p.schema, doc))}</span>${p.required ? ' <span class="req">required</span>' : ''}${(p.description ?? p.schema?.description) ? ` — ${prose(p.description ?? p.schema?.description)}` : ''}</li>`,
        )
        .join('');
      const body = op.requestBody?.content?.['application/json']?.schema;
      const responses = Object.entries(op.responses ?? {})
        .map(([status, r]) => {
          const schema = Object.values(r.content ?? {})[0]?.schema;
          return `<li><span class="status">${escapeHtml(status)}</span> ${prose(r.description)}${fields(schema, doc)}</li>`;
        })
        .join('');
      const entry = [
        `<section class="op" id="${id}">`,
        `<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>`,
        op.summary ? `<p class="summary">${prose(op.summary)}</p>` : '',
        op.description ? `<p>${prose(op.description)}</p>` : '',
        op.security?.length ? '<p class="auth">Needs a signed-in member (auth token).</p>' : '',
        params ? `<h4>Parameters</h4><ul class="fields">${params}</ul>` : '',
        body
          ? `<h4>Body (JSON)</h4>${fields(body, doc) || `<p>${escapeHtml(typeOf(body, doc))}</p>`}`
          : '',
        responses ? `<h4>Answers</h4><ul class="responses">${responses}</ul>` : '',
        '</section>',
      ].join('');
      byTag.set(tag, [...(byTag.get(tag) ?? []), entry]);
    }
  }
  const tags = [...byTag.keys()];
  const nav = tags.map((t) => `<li><a href="#${slug(t)}">${escapeHtml(t)}</a></li>`).join('');
  const sections = tags
    .map((t) => `<h2 id="${slug(t)}">${escapeHtml(t)}</h2>${byTag.get(t)!.join('')}`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)}</title><link rel="stylesheet" href="/api/docs/reference.css"></head>
<body><header><h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
<p>${prose(doc.info.description)} Machine-readable: <a href="/api/docs/openapi.json">openapi.json</a> (OpenAPI 3.1). Errors always come in PocketBase's envelope: <code>{"status", "message", "data"}</code>.</p>
<nav><ul>${nav}</ul></nav></header><main>${sections}</main></body></html>`;
}

const STYLES = `:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--code:#f3f4f6}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--line:#30363d;--bg:#0d1117;--code:#161b22}}
body{font:15px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg);max-width:60rem;margin:0 auto;padding:1rem}
h1 small{font-size:.6em;color:var(--muted)}h2{border-bottom:1px solid var(--line);padding-bottom:.25rem;margin-top:2rem}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:0;list-style:none}
code{background:var(--code);padding:0 .25rem;border-radius:4px;font-size:.9em}
.op{border:1px solid var(--line);border-radius:8px;padding:.5rem 1rem;margin:1rem 0}.op h3{margin:.25rem 0;font-size:1rem;overflow-wrap:anywhere}
.method{display:inline-block;min-width:4.5rem;font-weight:700}.get{color:#1a7f37}.post{color:#0969da}.patch{color:#9a6700}.delete{color:#cf222e}.put{color:#8250df}
@media (prefers-color-scheme:dark){.get{color:#3fb950}.post{color:#58a6ff}.patch{color:#d29922}.delete{color:#f85149}.put{color:#bc8cff}}
.type,.auth{color:var(--muted)}.req{color:#cf222e;font-size:.85em}.status{font-weight:700}h4{margin:.75rem 0 .25rem}
ul.fields,ul.responses{margin:.25rem 0;padding-left:1.25rem}`;
