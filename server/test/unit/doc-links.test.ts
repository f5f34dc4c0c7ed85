import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The docs point at files: links between documents (`[0039](0039-postgresql-read-cache.md)`) and
 * paths in backticks (`server/src/http/envelope.ts`, `db/prepared.ts`, `support/smtp.ts`). A file
 * moved, renamed or split leaves such a pointer behind, and nobody notices until a reader follows
 * it. This reads every Markdown file of the repository and names each pointer (file and line)
 * whose target does not exist.
 *
 * What counts as a pointer:
 * - a link or image whose target is relative (not `https:`, `mailto:`, `#anchor` or a server path
 *   such as `/api/docs`), resolved from the Markdown file's folder;
 * - a backticked word with a `/` inside whose first part is a file or folder of the repository,
 *   of the Markdown file's folder, or of `server/src`, `web/src`, `server` or `web` (the docs name
 *   source files from there: `core/tokens.ts`, `lib/auth.ts`, `features/admin/`), and that holds
 *   no placeholder (`<name>`, `{id}`, `…`, `NNNN`) or glob (`*`). `text/plain` and `DATA_DIR/x`
 *   are not pointers: no such first part exists.
 * Fenced code blocks are example commands and are not read. Built or local output (`dist/`,
 * `data/`, `node_modules/`, test results) is not part of the repository and is never a target,
 * nor are the few paths the docs tell an operator to make.
 *
 * The decision records are checked for a Status line and a line in their index too.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

/** Folders that hold no document of the repository's own: installed, built or local output. */
const NOT_SOURCES = new Set([
  'node_modules',
  'dist',
  'dist-baseline',
  'data',
  'test-results',
  'playwright-report',
  'results',
]);

/** Paths the operator makes on their machine, as the docs tell them to; never in the repository. */
const MADE_BY_THE_OPERATOR = new Set(['deploy/certs/', 'deploy/compose.env']);

/** Where a short path in backticks may start, besides the Markdown file's own folder. */
const SOURCE_ROOTS = ['', 'server/src', 'web/src', 'server', 'web'].map((p) => path.join(ROOT, p));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || NOT_SOURCES.has(entry.name)) return [];
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(file);
    return entry.name.endsWith('.md') ? [file] : [];
  });
}

interface BrokenPointer {
  line: number;
  target: string;
}

const PATH_WORD = /^[\w@.-]+(\/[\w@.-]+)+\/?$/;
const LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g;
const REFERENCE = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/;

/** The pointers of one Markdown text (of the file at `file`) whose targets do not exist. */
function brokenPointers(text: string, file: string): BrokenPointer[] {
  const dir = path.dirname(file);
  const broken: BrokenPointer[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const opener = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
      return;
    }
    if (opener) {
      fence = opener;
      return;
    }
    const spans = [...raw.matchAll(/(`+)([^`]+?)\1(?!`)/g)].map((m) => m[2]!.trim());
    for (const span of spans) {
      const target = repositoryPath(span, dir);
      if (target && !SOURCE_ROOTS.concat(dir).some((base) => existsSync(path.join(base, target)))) {
        broken.push({ line, target: span });
      }
    }
    const prose = raw.replace(/(`+)[^`]+?\1(?!`)/g, '');
    const targets = [...prose.matchAll(LINK)].map((m) => m[1]!);
    const reference = REFERENCE.exec(prose)?.[1];
    if (reference) targets.push(reference);
    for (const target of targets) {
      if (/^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('/')) {
        continue;
      }
      const local = safeDecode(target.replace(/[?#].*$/, ''));
      if (outsideRepository(local)) continue;
      if (!existsSync(path.resolve(dir, local))) broken.push({ line, target });
    }
  });
  return broken;
}

/**
 * The path a backticked word names, relative to some base, or undefined when the word is not a
 * path into the repository (a MIME type, a package name, a URL, a placeholder, a glob, output).
 */
function repositoryPath(span: string, dir: string): string | undefined {
  const word = span.replace(/:\d+(-\d+)?$/, '').replace(/#L?\d+.*$/, '');
  if (!PATH_WORD.test(word) || /NNNN/.test(word) || MADE_BY_THE_OPERATOR.has(word))
    return undefined;
  const parts = word.split('/').filter(Boolean);
  if (parts.some((p) => p === '.' || p === '..' || NOT_SOURCES.has(p))) return undefined;
  const first = parts[0]!;
  const bases = SOURCE_ROOTS.concat(dir);
  return bases.some((base) => existsSync(path.join(base, first))) ? word : undefined;
}

function outsideRepository(local: string): boolean {
  return local.split(/[\\/]/).some((p) => NOT_SOURCES.has(p));
}

function safeDecode(target: string): string {
  try {
    return decodeURIComponent(target);
  } catch {
    return target;
  }
}

describe('the docs point only at files that exist', () => {
  const files = markdownFiles(ROOT);

  it('reads the READMEs, docs/ and the decision records', () => {
    const names = files.map((f) => path.relative(ROOT, f));
    expect(names).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/api.md',
        'docs/operations.md',
        'docs/decisions/README.md',
        'e2e/README.md',
        'bench/README.md',
      ]),
    );
    expect(names.filter((n) => n.startsWith('docs/decisions/')).length).toBeGreaterThan(40);
    expect(names.some((n) => n.includes('node_modules'))).toBe(false);
  });

  it('every relative link and every backticked repository path exists', () => {
    const broken = files.flatMap((file) =>
      brokenPointers(readFileSync(file, 'utf8'), file).map(
        ({ line, target }) => `${path.relative(ROOT, file)}:${line}: ${target}`,
      ),
    );
    expect(broken).toEqual([]);
  });

  it('every decision record has a Status line and a line in the index', () => {
    const dir = path.join(ROOT, 'docs', 'decisions');
    const index = readFileSync(path.join(dir, 'README.md'), 'utf8');
    const records = readdirSync(dir).filter((name) => /^\d{4}-.*\.md$/.test(name));
    const problems = records.flatMap((name) => {
      const head = readFileSync(path.join(dir, name), 'utf8').split('\n').slice(0, 5).join('\n');
      const status =
        /^\*\*Status:\*\* (accepted|(partly )?superseded by \[\d{4}\]\(\d{4}-[^)]+\.md\))/m;
      return [
        ...(status.test(head) ? [] : [`${name}: no Status line under its title`]),
        ...(index.includes(`](${name})`)
          ? []
          : [`${name}: not listed in docs/decisions/README.md`]),
      ];
    });
    expect(records.length).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  });

  it('tells a pointer from an example, a URL, a placeholder and a glob', () => {
    const file = path.join(ROOT, 'docs', 'example.md');
    const text = [
      'See `server/src/http/envelope.ts`, `db/prepared.ts`, [0020](decisions/0020-server-layers.md).',
      'Gone: `server/src/accounts/tokens.ts` and [a record](decisions/0037-nothing.md#why).',
      'Not paths: `text/plain`, `DATA_DIR/secret.key`, `@simplewebauthn/server`, `server/src/*.ts`,',
      '`docs/decisions/NNNN-title.md`, `web/src/features/<name>/`, `server/dist/main.js`, `./data`,',
      '[the reference](/api/docs), [PocketBase](https://pocketbase.io), [up](#top).',
      '```sh',
      'cp deploy/missing.env.example deploy/missing.env   # [x](nowhere.md)',
      '```',
      'Short ones: `core/missing.ts`, `lib/auth.ts:12`.',
      '[gone]: decisions/0099-none.md',
    ].join('\n');
    expect(brokenPointers(text, file)).toEqual([
      { line: 2, target: 'server/src/accounts/tokens.ts' },
      { line: 2, target: 'decisions/0037-nothing.md#why' },
      { line: 9, target: 'core/missing.ts' },
      { line: 10, target: 'decisions/0099-none.md' },
    ]);
  });
});
