/* global console, process, URL, setTimeout */
// The page benchmark: the JavaScript that loading / downloads (gzip), and Lighthouse
// performance and accessibility scores for / and /whats-new, mobile and desktop presets.
import http from 'node:http';
import { chromium } from '@playwright/test';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { desktopConfig } from 'lighthouse';
import { startGatehouse, table } from './lib.mjs';

const CHROME_PATH = process.env.CHROME_PATH || '/usr/bin/chromium';
const CHROME_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Body size of `url` when asked with this Accept-Encoding (what travels on the wire). */
function wireBytes(url, encoding) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': encoding } }, (res) => {
        let bytes = 0;
        res.on('data', (c) => (bytes += c.length));
        res.on('end', () =>
          resolve({ bytes, encoding: res.headers['content-encoding'] ?? 'identity' }),
        );
      })
      .on('error', reject);
  });
}

/** The scripts a fresh visitor's Chromium fetches for `path` until the network is idle. */
async function loadScripts(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const scripts = new Map();
  page.on('response', (response) => {
    const type = response.request().resourceType();
    if (type === 'script' || /\.m?js(\?|$)/.test(response.url()))
      scripts.set(response.url(), response);
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  const rows = [];
  for (const [scriptUrl, response] of scripts) {
    rows.push({
      url: scriptUrl,
      transferBytes: (await response.request().sizes()).responseBodySize,
      encoding: (await response.allHeaders())['content-encoding'] ?? 'identity',
    });
  }
  await context.close();
  return rows;
}

/**
 * Measures every script loading `path` fetches. The server compresses its files in the
 * background after start, so the first load only finds the files; once each answers gzip, a
 * second fresh visitor's load is measured.
 */
async function scriptsOf(base, path) {
  const browser = await chromium.launch({ executablePath: CHROME_PATH, args: CHROME_FLAGS });
  try {
    const first = await loadScripts(browser, `${base}${path}`);
    for (const { url } of first) {
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const [gzip, raw] = [await wireBytes(url, 'gzip'), await wireBytes(url, 'identity')];
        if (gzip.encoding === 'gzip' || raw.bytes <= 1024) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const rows = [];
    for (const script of await loadScripts(browser, `${base}${path}`)) {
      const gzip = await wireBytes(script.url, 'gzip');
      const raw = await wireBytes(script.url, 'identity');
      rows.push({
        file: new URL(script.url).pathname,
        rawBytes: raw.bytes,
        // Files of 1 KB or less are sent as they are.
        gzipBytes: gzip.encoding === 'gzip' ? gzip.bytes : raw.bytes,
        chromiumTransferBytes: script.transferBytes,
        chromiumEncoding: script.encoding,
      });
    }
    const sum = (k) => rows.reduce((n, r) => n + r[k], 0);
    return {
      path,
      files: rows,
      totalRawBytes: sum('rawBytes'),
      totalGzipBytes: sum('gzipBytes'),
      totalChromiumTransferBytes: sum('chromiumTransferBytes'),
    };
  } finally {
    await browser.close();
  }
}

const score = (s) => (s === null || s === undefined ? null : Math.round(s * 100));

async function lighthouseRuns(base) {
  const chrome = await chromeLauncher.launch({
    chromePath: CHROME_PATH,
    chromeFlags: CHROME_FLAGS,
  });
  const runs = [];
  try {
    for (const preset of ['mobile', 'desktop']) {
      for (const path of ['/', '/whats-new']) {
        console.log(`Lighthouse (${preset}) ${path}...`);
        // A run that could not measure (no paint seen, a busy machine) is tried again, twice.
        let lhr;
        for (let attempt = 1; attempt <= 3; attempt++) {
          const result = await lighthouse(
            `${base}${path}`,
            {
              port: chrome.port,
              output: 'json',
              logLevel: 'error',
              onlyCategories: ['performance', 'accessibility'],
            },
            preset === 'desktop' ? desktopConfig : undefined,
          );
          lhr = result.lhr;
          if (lhr.categories.performance.score !== null && !lhr.runtimeError) break;
          console.log(
            `  attempt ${attempt} measured nothing: ${lhr.runtimeError?.message ?? 'no score'}`,
          );
        }
        const audit = (id) => lhr.audits[id]?.numericValue;
        const ms = (id) => (audit(id) === undefined ? null : Math.round(audit(id)));
        runs.push({
          preset,
          path,
          performance: score(lhr.categories.performance.score),
          accessibility: score(lhr.categories.accessibility.score),
          runtimeError: lhr.runtimeError?.message,
          metricsMs: {
            firstContentfulPaint: ms('first-contentful-paint'),
            largestContentfulPaint: ms('largest-contentful-paint'),
            totalBlockingTime: ms('total-blocking-time'),
            speedIndex: ms('speed-index'),
          },
          cumulativeLayoutShift: audit('cumulative-layout-shift'),
          failedAccessibilityAudits: lhr.categories.accessibility.auditRefs
            .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
            .map((ref) => ref.id),
          runWarnings: lhr.runWarnings,
        });
      }
    }
  } finally {
    chrome.kill();
  }
  return runs;
}

export async function runPage() {
  const app = await startGatehouse();
  try {
    console.log(`Gatehouse at ${app.url}: measuring the JavaScript of / ...`);
    const js = await scriptsOf(app.url, '/');
    const lh = await lighthouseRuns(app.url);

    const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
    console.log('');
    console.log(
      table(
        js.files.map((f) => [
          f.file,
          kb(f.rawBytes),
          kb(f.gzipBytes),
          `${kb(f.chromiumTransferBytes)} (${f.chromiumEncoding})`,
        ]),
        ['script loaded by /', 'raw', 'gzip', 'as Chromium fetched it'],
      ),
    );
    const jsMet = js.totalGzipBytes <= 120 * 1024;
    console.log(
      `${'-'.repeat(31)}\ntotal: ${kb(js.totalRawBytes)} raw, ${kb(js.totalGzipBytes)} gzip, ` +
        `${kb(js.totalChromiumTransferBytes)} as Chromium fetched it`,
    );
    console.log(
      `\nJavaScript for /: ${kb(js.totalGzipBytes)} gzip (${kb(js.totalRawBytes)} raw, ` +
        `${js.files.length} files) — target <= 120 KB gzip: ${jsMet ? 'met' : 'MISSED'}\n`,
    );
    console.log(
      table(
        lh.map((r) => [
          r.preset,
          r.path,
          r.performance ?? 'error',
          r.accessibility ?? 'error',
          r.metricsMs.firstContentfulPaint ?? '-',
          r.metricsMs.largestContentfulPaint ?? '-',
          r.metricsMs.totalBlockingTime ?? '-',
          r.cumulativeLayoutShift?.toFixed(3) ?? 'n/a',
          r.failedAccessibilityAudits.join(', ') || '-',
        ]),
        [
          'preset',
          'page',
          'perf',
          'a11y',
          'FCP ms',
          'LCP ms',
          'TBT ms',
          'CLS',
          'a11y audits failed',
        ],
      ),
    );
    const perfMet = lh.every((r) => r.performance !== null && r.performance >= 95);
    const a11yMet = lh.every((r) => r.accessibility === 100);
    console.log(
      `\nTargets: performance >= 95: ${perfMet ? 'met' : 'MISSED'}; accessibility 100: ${a11yMet ? 'met' : 'MISSED'}`,
    );
    return {
      javascript: js,
      lighthouse: lh,
      targets: {
        jsGzipKB: { target: '<= 120', met: jsMet },
        performance: { target: '>= 95', met: perfMet },
        accessibility: { target: '100', met: a11yMet },
      },
    };
  } finally {
    await app.close();
  }
}
