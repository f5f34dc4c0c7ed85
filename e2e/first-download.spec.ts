import http from 'node:http';
import { expect, test } from '@playwright/test';
import { e2eEnv } from './support/env';
import { expectLoginScreen } from './support/ui';

/**
 * A visitor's first screen stays within its budget: the scripts Chromium fetches for the login
 * screen weigh at most 120 KB gzip on the wire (the figure `npm run bench -- page` prints, with
 * Lighthouse's scores beside it), and none of them is the client library, which loads once someone
 * signs in (docs/decisions/0045-first-screen-chunks.md). A size, not a time: it fails the moment a
 * change pulls a signed-in screen's code into the first download.
 */

const BUDGET_BYTES = 120 * 1024;
const ORIGIN = e2eEnv().servers.screens.url;

/** The body's size on the wire when asked with gzip (files of 1 KB or less come as they are). */
function gzipBytes(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve(bytes));
      })
      .on('error', reject);
  });
}

test('the login screen downloads at most 120 KB gzip of scripts, without the client library', async ({
  browser,
}) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const scripts = new Set<string>();
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') scripts.add(response.url());
  });
  await page.goto(`${ORIGIN}/`, { waitUntil: 'networkidle' });
  await expectLoginScreen(page);
  await context.close();

  expect(scripts.size).toBeGreaterThan(0);
  let total = 0;
  const sources: string[] = [];
  for (const url of scripts) {
    total += await gzipBytes(url);
    const body = await (await fetch(url)).text();
    // The SDK's batch requests name their JSON part so; nothing of the app's own does.
    if (body.includes('@jsonPayload')) sources.push(new URL(url).pathname);
  }
  expect(sources, 'scripts carrying the client library on the first screen').toEqual([]);
  expect(total, `scripts of the first screen, gzip bytes`).toBeLessThanOrEqual(BUDGET_BYTES);
});
