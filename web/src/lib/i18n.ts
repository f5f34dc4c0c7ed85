import { i18n, type Messages } from '@lingui/core';
import { messages as englishFirst } from '../locales/en/first.po';

/**
 * The app's two languages and their catalogues (docs/decisions/0071). Each language has four,
 * loaded with the screens that use them: `first` before the first screen renders, `errors` with
 * lib/messages.ts, `member` by the signed-in screens' routes, `console` by the console's.
 * English's `first` is in the first download; everything else comes when it is needed.
 */
export const LANGUAGES = { en: 'English', de: 'Deutsch' } as const;
export type Language = keyof typeof LANGUAGES;
export type Catalogue = 'first' | 'errors' | 'member' | 'console';

type Loader = () => Promise<{ messages: Messages }>;
const CATALOGUES: Record<Language, Record<Catalogue, Loader>> = {
  en: {
    first: () => Promise.resolve({ messages: englishFirst }),
    errors: () => import('../locales/en/errors.po'),
    member: () => import('../locales/en/member.po'),
    console: () => import('../locales/en/console.po'),
  },
  de: {
    first: () => import('../locales/de/first.po'),
    errors: () => import('../locales/de/errors.po'),
    member: () => import('../locales/de/member.po'),
    console: () => import('../locales/de/console.po'),
  },
};

/** Where this device keeps the language a member chose (none: the browser's languages decide). */
const STORAGE_KEY = 'gatehouse.language';

/** The regions' formats for dates and numbers that go with each language. */
const INTL_LOCALES: Record<Language, string> = { en: 'en-US', de: 'de-DE' };

const loaded = new Set<string>();
/** The catalogues the screens shown so far needed: a change of language loads each of them. */
const wanted = new Set<Catalogue>(['first']);

export const isLanguage = (value: unknown): value is Language =>
  typeof value === 'string' && Object.hasOwn(LANGUAGES, value);

/** The language this device chose, else the first of the browser's languages the app speaks. */
export function preferredLanguage(): Language {
  const chosen = localStorage.getItem(STORAGE_KEY);
  if (isLanguage(chosen)) return chosen;
  const asked = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of asked) {
    const base = tag?.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return 'en';
}

/** Loads a catalogue unless it is there (then there is nothing to wait for). */
function ensure(language: Language, catalogue: Catalogue): Promise<void> | undefined {
  const key = `${language}/${catalogue}`;
  if (loaded.has(key)) return undefined;
  return CATALOGUES[language][catalogue]().then(({ messages }) => {
    i18n.load(language, messages);
    loaded.add(key);
  });
}

async function activate(language: Language): Promise<void> {
  await Promise.all([...wanted].map((catalogue) => ensure(language, catalogue)));
  i18n.activate(language);
  document.documentElement.lang = language;
}

/** Loads the first screen's texts in the preferred language; the app renders after it. */
export function startI18n(): Promise<void> {
  return activate(preferredLanguage());
}

/**
 * Loads a catalogue in the current language (a route's `beforeLoad` asks for its own). Nothing to
 * wait for once it is there: a route then goes on at once, without a pending step.
 */
export function loadCatalogue(catalogue: Catalogue): Promise<void> | undefined {
  wanted.add(catalogue);
  return ensure(currentLanguage(), catalogue);
}

export function currentLanguage(): Language {
  return isLanguage(i18n.locale) ? i18n.locale : 'en';
}

/** Switches the app's language and remembers the choice on this device. */
export async function chooseLanguage(language: Language): Promise<void> {
  localStorage.setItem(STORAGE_KEY, language);
  await activate(language);
}

/** The `Intl` locale for dates and numbers in the current language ("en-US", "de-DE"). */
export function intlLocale(): string {
  return INTL_LOCALES[currentLanguage()];
}

/** A number as the current language writes it: "1,234" in English, "1.234" in German. */
export function formatNumber(n: number, options?: Intl.NumberFormatOptions): string {
  return n.toLocaleString(intlLocale(), options);
}

export { i18n };
