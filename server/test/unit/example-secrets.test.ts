import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, EXAMPLE_TOKEN_SECRETS, loadConfig } from '../../src/config.js';

/**
 * Every TOKEN_SECRET value this repository shows (the example settings files, the deployment
 * recipe, the docs and READMEs) is public, so the server must refuse each one at start. The files
 * are read here, so an example added later with a new value fails this test until it is refused.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

function exampleFiles(): string[] {
  const top = readdirSync(ROOT, { withFileTypes: true });
  return [
    // .env.example, README.md and any other example or document at the top.
    ...top
      .filter((e) => e.isFile() && /(\.example|\.md)$/.test(e.name))
      .map((e) => path.join(ROOT, e.name)),
    // bench/README.md, e2e/README.md, …
    ...top
      .filter((e) => e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.'))
      .flatMap((e) => readdirSync(path.join(ROOT, e.name)).map((n) => path.join(ROOT, e.name, n)))
      .filter((file) => file.endsWith('.md')),
    ...filesUnder(path.join(ROOT, 'deploy')),
    ...filesUnder(path.join(ROOT, 'docs')).filter((file) => file.endsWith('.md')),
  ];
}

/** `TOKEN_SECRET=value` or `TOKEN_SECRET: value`; empty values and `$(…)` / `$VAR` are no values. */
function shownSecrets(): { file: string; value: string }[] {
  const found: { file: string; value: string }[] = [];
  for (const file of new Set(exampleFiles())) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\bTOKEN_SECRET\s*[=:]\s*["']?([^\s"'`#]*)/g)) {
      const value = m[1]!;
      if (value !== '' && !value.startsWith('$')) {
        found.push({ file: path.relative(ROOT, file), value });
      }
    }
  }
  return found;
}

describe('example TOKEN_SECRET values', () => {
  it('every TOKEN_SECRET the repository shows is refused at start, naming the variable', () => {
    const shown = shownSecrets();
    // deploy/compose.env.example has one: the scan must find at least that.
    expect(shown.map((s) => s.file)).toContain(path.join('deploy', 'compose.env.example'));
    for (const { file, value } of shown) {
      expect(EXAMPLE_TOKEN_SECRETS, `${file}: ${value}`).toContain(value);
      let error: unknown;
      try {
        loadConfig({ TOKEN_SECRET: value });
      } catch (err) {
        error = err;
      }
      expect(error, `${file}: ${value}`).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain('TOKEN_SECRET');
      expect((error as Error).message).toContain('openssl rand -base64 48');
    }
  });

  it('with spaces around it, or beside DATABASE_URL, an example value is still refused', () => {
    for (const value of EXAMPLE_TOKEN_SECRETS) {
      for (const env of [
        { TOKEN_SECRET: ` ${value} ` },
        { TOKEN_SECRET: value, DATABASE_URL: 'postgres://u@db:5432/gh' },
      ]) {
        expect(() => loadConfig(env)).toThrow(/TOKEN_SECRET is the example value/);
      }
    }
    // A secret of one's own passes.
    expect(loadConfig({ TOKEN_SECRET: 'x'.repeat(40) }).tokenSecret).toBe('x'.repeat(40));
  });
});
