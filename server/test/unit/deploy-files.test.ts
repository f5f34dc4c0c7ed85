import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** deploy/nginx/compose.conf is deploy/nginx/gatehouse.conf with the containers as instances. */
const DEPLOY = path.resolve(import.meta.dirname, '..', '..', '..', 'deploy');
const body = (file: string) =>
  readFileSync(path.join(DEPLOY, 'nginx', file), 'utf8')
    .replace(/^(#.*\n)+/, '')
    .replace(/^ {4}server \S+ max_fails/gm, '    server INSTANCE max_fails');

describe('the deployment recipe', () => {
  it('the compose site is the tested site but for its upstream lines', () => {
    expect(body('compose.conf')).toBe(body('gatehouse.conf'));
    expect(readFileSync(path.join(DEPLOY, 'nginx', 'compose.conf'), 'utf8')).toMatch(
      /server app3:8090 /,
    );
  });
});
