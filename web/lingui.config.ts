import { defineConfig } from '@lingui/conf';
import { formatter } from '@lingui/format-po';

/**
 * The web app's texts, in four catalogues per language, each loaded with the screens that use it
 * (docs/decisions/0071): `first` with the first screen (sign-in, sign-up, the guest screens and
 * what every screen shares), `errors` (what the server can say) with the module that reads them
 * (lib/messages.ts), `member` with the signed-in screens, `console` with the operator's console.
 * A file belongs to one catalogue by its path: a text in a `member` file must not show on a guest
 * screen, where `first` (and `errors`) are the only ones loaded.
 */
export const FIRST = [
  'src/routes/__root.tsx',
  'src/routes/_guest.tsx',
  'src/routes/_guest/',
  'src/components/ui/',
  'src/components/app-shell.tsx',
  'src/components/error-view.tsx',
  'src/components/not-found-view.tsx',
  'src/components/pending-view.tsx',
  'src/lib/',
  'src/features/accounts/login-screen.tsx',
  'src/features/accounts/signup-screen.tsx',
  'src/features/accounts/forgot-password-screen.tsx',
  'src/features/accounts/reset-password-screen.tsx',
  'src/features/accounts/verify-email-screen.tsx',
  'src/features/accounts/code-sign-in.tsx',
  'src/features/accounts/code-input.tsx',
  'src/features/accounts/second-step.tsx',
  'src/features/accounts/current-password-field.tsx',
  'src/features/accounts/email-field.tsx',
  'src/features/accounts/new-password-fields.tsx',
  'src/features/accounts/name-rule.ts',
  // The sign-up's and the sign-in's failures are said here.
  'src/features/accounts/api.ts',
  'src/features/accounts/resend-wait.ts',
  'src/features/accounts/validation.ts',
  'src/features/providers/continue-with-providers-section.tsx',
  'src/features/providers/provider-errors.ts',
  'src/features/passkeys/passkey-sign-in-section.tsx',
  'src/features/passkeys/ceremony.ts',
];
/** The texts for what the server can say (lib/messages.ts): loaded by that module itself. */
const ERRORS = 'src/lib/messages.ts';
export const CONSOLE = [
  'src/features/admin/',
  'src/routes/_auth/admin.tsx',
  'src/routes/_auth/admin/',
];

const TESTS = ['**/*.test.ts', '**/*.test.tsx', 'src/test/'];
const catalogue = (name: string, include: string[], exclude: string[] = []) => ({
  path: `<rootDir>/src/locales/{locale}/${name}`,
  include: include.map((p) => `<rootDir>/${p}`),
  // A folder excludes what is in it (a pattern), where it includes as it is.
  exclude: [...exclude.map((p) => (p.endsWith('/') ? `${p}**` : p)), ...TESTS].map(
    (p) => `<rootDir>/${p}`,
  ),
});

export default defineConfig({
  sourceLocale: 'en',
  locales: ['en', 'de'],
  // English is the source: a text's English form is the one written in the code.
  fallbackLocales: { default: 'en' },
  // By English text, with files but no line numbers: a change elsewhere in a file leaves the
  // catalogues as they are, and two changes merge unless they add the same text.
  orderBy: 'message',
  format: formatter({ lineNumbers: false }),
  catalogs: [
    catalogue('first', FIRST, [ERRORS]),
    catalogue('errors', [ERRORS]),
    catalogue('member', ['src/'], [...FIRST, ...CONSOLE, ERRORS]),
    catalogue('console', CONSOLE),
  ],
});
