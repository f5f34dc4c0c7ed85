import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The web app's message catalogues (web/src/locales/<language>/*.po), read as the journeys need
 * them: a screen's German words looked up by their English, and every English text that must not
 * be left on a German screen.
 */

const LOCALES = path.resolve(import.meta.dirname, '..', '..', 'web', 'src', 'locales');

/** `"a" "b"` (a .po string, possibly over several lines) → `ab`. */
function poString(lines: string[]): string {
  return lines.map((line) => JSON.parse(line.slice(line.indexOf('"'))) as string).join('');
}

/** English → German, for every text of every catalogue. */
function readGerman(): Map<string, string> {
  const german = new Map<string, string>();
  for (const file of readdirSync(path.join(LOCALES, 'de'))) {
    if (!file.endsWith('.po')) continue;
    const text = readFileSync(path.join(LOCALES, 'de', file), 'utf8');
    for (const entry of text.split(/\n\s*\n/)) {
      const lines = entry.split('\n').filter((line) => line.trim() && !line.startsWith('#'));
      const strAt = lines.findIndex((line) => line.startsWith('msgstr'));
      const idAt = lines.findIndex((line) => line.startsWith('msgid'));
      if (idAt < 0 || strAt < 0) continue;
      const id = poString(lines.slice(idAt, strAt));
      const str = poString(lines.slice(strAt));
      if (id) german.set(id, str);
    }
  }
  return german;
}

const GERMAN = readGerman();

/**
 * The German for an English text of the catalogues (fails the test when there is none), with its
 * `{placeholders}` filled in from `values`.
 */
export function de(english: string, values: Record<string, string> = {}): string {
  const german = GERMAN.get(english);
  if (!german) throw new Error(`No German in the catalogues for "${english}"`);
  return german.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * What of each English text would give it away on a German screen: the whole text when it has no
 * placeholders (compared with each text on the page), else its literal parts of 12 characters or
 * more (looked for anywhere). Texts that read the same in both languages ("Passkeys", "Name") are
 * left out.
 */
export function englishGiveaways(): { whole: string[]; parts: string[] } {
  const whole = new Set<string>();
  const parts = new Set<string>();
  const germanTexts = [...GERMAN.values()].join('\n');
  for (const [english, german] of GERMAN) {
    if (english === german || english.length < 3) continue;
    const literal = english.split(/\{[^}]*\}|<\/?\d+\/?>/);
    if (literal.length === 1) {
      if (!germanTexts.includes(english)) whole.add(english.replace(/\s+/g, ' ').trim());
    } else {
      for (const part of literal) {
        const text = part.replace(/\s+/g, ' ').trim();
        if (text.length >= 12 && !germanTexts.includes(text)) parts.add(text);
      }
    }
  }
  return { whole: [...whole], parts: [...parts] };
}
