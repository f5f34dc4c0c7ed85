import type { FieldError, FieldErrors } from './errors.js';

/**
 * The languages Gatehouse speaks, the web app's (web/src/lib/i18n.ts): a member's `language`, the
 * language every mail to them is written in (docs/decisions/0072).
 */
export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

export const isLanguage = (value: unknown): value is Language =>
  typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);

/**
 * PocketBase's answer to a select field's value that is not one of its values (core/field_select.go):
 * `Invalid value {{.value}}`, made a sentence as PocketBase's error envelope does.
 */
export function invalidLanguage(value: string): FieldError {
  const message = `Invalid value ${value}`;
  return {
    code: 'validation_invalid_value',
    message: /[.?!]$/.test(message) ? message : `${message}.`,
    params: { value },
  };
}

/**
 * The language a new account is made with: '' (none sent) is English; a value the app does not
 * speak is recorded in `errors` (and English returned, for a sign-up that then stops on them).
 */
export function newAccountLanguage(value: string, errors: FieldErrors): Language {
  const language = value || 'en';
  if (isLanguage(language)) return language;
  errors.language = invalidLanguage(language);
  return 'en';
}
