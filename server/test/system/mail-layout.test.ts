import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS, subjects } from '../support/contract.js';
import { startTestServer, strongPassword, type TestServer } from '../support/server.js';

/**
 * Real mails (captured by the test SMTP receiver) rendered in Debian's Chromium at a phone's
 * 360 px: nothing scrolls sideways however long the link, and the button is a 44 px target.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// As e2e/playwright.config.ts launches it.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe.skipIf(!existsSync(CHROMIUM))('mail in a browser at 360 px', () => {
  let t: TestServer;
  let browser: Browser;
  const mails: { name: string; html: string; text: string }[] = [];

  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const user = await t.verifiedUser();
    const verify = t.mail.filter((m) => m.subject === subjects().verify)[0]!;
    mails.push({ name: 'verification', html: verify.html, text: verify.text });
    const token = await t.resetToken(user.email);
    const reset = t.mail.filter((m) => m.subject === subjects().reset)[0]!;
    mails.push({ name: 'password reset', html: reset.html, text: reset.text });
    // The notice quotes the browser's description: 200 characters without a space here.
    const password = strongPassword();
    const confirmed = await t.request('POST', PATHS.confirmReset, {
      body: { token, password, passwordConfirm: password },
      headers: { 'User-Agent': `Agent/${'x'.repeat(220)}` },
    });
    expect(confirmed.status, confirmed.text).toBe(204);
    const notice = await t.mail.waitForMailTo(user.email, 'Your Gatehouse password was changed');
    mails.push({ name: 'password changed', html: notice.html, text: notice.text });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('has a viewport, a language, a title, the wordmark, and a plain-text part as complete', () => {
    for (const { name, html, text: raw } of mails) {
      const text = raw.replace(/\r\n/g, '\n'); // SMTP's line ends
      expect(html, name).toMatch(/<meta name="viewport" content="width=device-width/);
      expect(html, name).toMatch(/<html lang="en">/);
      expect(html, name).toMatch(/<title>[^<]+<\/title>/);
      expect(html, name).toMatch(/>Gatehouse<\/p>/);
      const link = /^(http:\/\/\S+)$/m.exec(text)?.[1];
      expect(link, `${name}: the link on a line of its own`).toBeDefined();
      expect(html, name).toContain(`href="${link!.replace(/&/g, '&#38;')}"`);
      expect(text, name).toMatch(/^Gatehouse\n\nHello,\n\n.+\n\nhttp\S+\n\n.+\n\n— Gatehouse\s*$/);
    }
  });

  it('does not scroll sideways at 360 px, and the button is at least 44 px tall', async () => {
    // A phone: without a viewport meta it would lay the mail out 980 px wide and shrink it.
    const page = await browser.newPage({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
    });
    try {
      for (const { name, html } of mails) {
        await page.setContent(html);
        const scrollWidth = await page.evaluate('document.scrollingElement.scrollWidth');
        expect(Number(scrollWidth), name).toBeLessThanOrEqual(360);
        const button = page.locator('a').first();
        const box = await button.boundingBox();
        expect(box!.height, name).toBeGreaterThanOrEqual(44);
        expect(box!.width, name).toBeGreaterThanOrEqual(44);
      }
    } finally {
      await page.close();
    }
  }, 60_000);
});
