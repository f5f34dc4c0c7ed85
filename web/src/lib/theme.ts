import type { MessageDescriptor } from '@lingui/core';
import { msg } from '@lingui/core/macro';
/**
 * The member's theme: System (follow the device), Light or Dark, remembered in this browser. The
 * page's first script (web/index.html) reads the same key and sets `dark` on <html> before the
 * first paint, follows the device while on System, and applies a new choice when told.
 */
export type Theme = 'system' | 'light' | 'dark';

export const THEME_KEY = 'gatehouse.theme';
/** The event the page's first script listens to, to apply a new choice at once. */
const THEME_EVENT = 'gatehouse:theme';

export const THEMES: ReadonlyArray<{ value: Theme; label: MessageDescriptor }> = [
  { value: 'system', label: msg`System` },
  { value: 'light', label: msg`Light` },
  { value: 'dark', label: msg`Dark` },
];

export function readTheme(): Theme {
  try {
    const stored = window.localStorage.getItem(THEME_KEY);
    return stored === 'light' || stored === 'dark' ? stored : 'system';
  } catch {
    return 'system';
  }
}

export function storeTheme(theme: Theme): void {
  try {
    if (theme === 'system') window.localStorage.removeItem(THEME_KEY);
    else window.localStorage.setItem(THEME_KEY, theme);
  } catch {
    // Storage blocked: the choice holds for this page only.
  }
  window.dispatchEvent(new Event(THEME_EVENT));
}
