import { t } from '@lingui/core/macro';
import Bowser from 'bowser';

/**
 * A browser's User-Agent header in words: "Firefox on Linux". The parsing is bowser's (see
 * docs/decisions/0025-user-agents-in-words.md); only the screens that show devices import this.
 */
export function describeUserAgent(userAgent: string | null | undefined): string {
  const ua = userAgent?.trim() ?? '';
  if (!ua) return t`Unknown browser`;
  const { browser, os } = Bowser.parse(ua);
  const name = browser.name?.trim();
  const system = os.name?.trim();
  if (name && system) return `${name} on ${system}`;
  if (name) return name;
  if (system) return t`A browser on ${system}`;
  return t`Unknown browser`;
}
