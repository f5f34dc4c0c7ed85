import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

/** Checks every screen state gets: accessibility (axe) in light and dark, and 360 px width. */

const PHONE = { width: 360, height: 740 };
const LAPTOP = { width: 1280, height: 800 };
/** The page while checkScreen scans it: the style sheet that stops colour fades. */
type NoFades = Window & { noFades?: CSSStyleSheet };

async function axeProblems(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help}\n` +
        v.nodes
          .slice(0, 5)
          .map((n) => `      ${n.target.join(' ')}: ${n.failureSummary?.replace(/\s+/g, ' ')}`)
          .join('\n'),
    );
}

/** The page is no wider than the viewport: nothing makes a phone scroll sideways. */
export async function sidewaysOverflow(page: Page): Promise<{ scroll: number; client: number }> {
  return page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
}

/**
 * Scans the screen as it is now with axe twice: at laptop width in the light scheme, and at
 * 360 px wide in the dark scheme (so both schemes and both widths are covered); with `every`, in
 * all four pairings. At 360 px the page must not scroll sideways. Leaves the page at its width,
 * in the light scheme.
 */
export async function checkScreen(
  page: Page,
  screen: string,
  options: { every?: boolean } = {},
): Promise<void> {
  await test.step(`axe and 360 px: ${screen}`, async () => {
    const problems: string[] = [];
    const viewport = page.viewportSize() ?? LAPTOP;
    const runs: Array<['light' | 'dark', typeof LAPTOP, string]> = options.every
      ? [
          ['light', LAPTOP, 'light, laptop'],
          ['dark', LAPTOP, 'dark, laptop'],
          ['light', PHONE, 'light, 360 px'],
          ['dark', PHONE, 'dark, 360 px'],
        ]
      : [
          ['light', LAPTOP, 'light, laptop'],
          ['dark', PHONE, 'dark, 360 px'],
        ];
    // A scheme change starts colour fades (transitions): scan the colours they end at, not a frame
    // half-way. Axe read a button at 2.87:1 mid-fade on a busy machine, and at 1.41:1 once even
    // after the fades were finished, from one that started while it scanned: during the scans no
    // colour fades at all. (A constructed style sheet: the app's Content-Security-Policy refuses
    // an inline <style>.)
    await page.evaluate(() => {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync('*, *::before, *::after { transition: none !important; }');
      (window as NoFades).noFades = sheet;
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    });
    try {
      for (const [colorScheme, size, name] of runs) {
        await page.emulateMedia({ colorScheme });
        await page.setViewportSize(size);
        // Animations that end (a fade-in) are finished; a spinner's endless one is left running.
        await page.evaluate(() =>
          document.getAnimations().forEach((a) => {
            if (a.effect?.getComputedTiming().endTime !== Infinity) a.finish();
          }),
        );
        problems.push(...(await axeProblems(page)).map((p) => `[${name}] ${p}`));
        if (size === PHONE) {
          const { scroll, client } = await sidewaysOverflow(page);
          if (scroll > client) {
            problems.push(`[${name}] the page scrolls sideways: scrollWidth ${scroll} > ${client}`);
          }
        }
      }
    } finally {
      await page.evaluate(() => {
        const sheet = (window as NoFades).noFades;
        document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
      });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize(viewport);
    }
    expect(problems, `${screen}: serious or critical accessibility/layout problems`).toEqual([]);
  });
}

/** Every screen has its own title: `<Screen> · Gatehouse`. */
export async function expectScreenTitle(page: Page, exact?: string): Promise<string> {
  if (exact) await expect(page).toHaveTitle(exact);
  else await expect(page).toHaveTitle(/^\S.* · Gatehouse$/);
  return page.title();
}
