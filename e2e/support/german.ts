import { expect, test, type Page } from '@playwright/test';
import { englishGiveaways } from './catalogue';
import { checkScreen } from './checks';

/**
 * What a German screen is checked for: `lang="de"`, nothing left loading, no English text of the
 * catalogues, no text cut at 360 px, and the checks of every screen (axe in light and dark).
 */

const GIVEAWAYS = englishGiveaways();

/** The catalogues' English texts on the page, outside parts marked as English (`lang="en"`). */
async function englishLeft(page: Page): Promise<string[]> {
  return page.evaluate(({ whole, parts }) => {
    const texts: string[] = [document.title.replace(/ · .*$/, '')];
    const english = (el: Element | null) => el?.closest('[lang]')?.getAttribute('lang') === 'en';
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || english(parent) || parent.closest('script,style,noscript')) continue;
      const text = node.textContent?.replace(/\s+/g, ' ').trim();
      if (text) texts.push(text);
    }
    for (const el of document.body.querySelectorAll('[aria-label],[placeholder],[title],[alt]')) {
      if (english(el)) continue;
      for (const name of ['aria-label', 'placeholder', 'title', 'alt']) {
        const value = el.getAttribute(name)?.trim();
        if (value) texts.push(value);
      }
    }
    const all = texts.join('\n');
    const found = new Set<string>();
    for (const text of texts) if (whole.includes(text)) found.add(text);
    for (const part of parts) if (all.includes(part)) found.add(part);
    return [...found];
  }, GIVEAWAYS);
}

/** Texts that do not fit their box at 360 px (cut, or hidden behind an ellipsis). */
async function cutTexts(page: Page): Promise<string[]> {
  await page.setViewportSize({ width: 360, height: 740 });
  const cut = await page.evaluate(() =>
    [...document.body.querySelectorAll('*')]
      .filter((el) => {
        if (!(el instanceof HTMLElement) || el.offsetParent === null) return false;
        // Text for screen readers only (clipped away on purpose) is not cut, only hidden.
        const clipped = (e: Element) => {
          const s = getComputedStyle(e);
          return (
            (s.clip !== 'auto' && s.clip !== '') || (s.clipPath !== 'none' && s.clipPath !== '')
          );
        };
        for (let e: Element | null = el; e; e = e.parentElement) if (clipped(e)) return false;
        if (![...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim()))
          return false;
        const style = getComputedStyle(el);
        const clips = style.overflowX !== 'visible' || style.textOverflow === 'ellipsis';
        return clips && el.scrollWidth > el.clientWidth + 1;
      })
      .map((el) => el.textContent?.trim() ?? ''),
  );
  await page.setViewportSize({ width: 1280, height: 800 });
  return cut;
}

export async function expectGerman(page: Page, screen: string): Promise<void> {
  await test.step(`German: ${screen}`, async () => {
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await expect(page.getByText(/(wird|werden) geladen/i)).toHaveCount(0);
    expect(await englishLeft(page), `${screen}: English left on the German screen`).toEqual([]);
    expect(await cutTexts(page), `${screen}: texts cut at 360 px`).toEqual([]);
    await checkScreen(page, `${screen} (German)`);
  });
}
