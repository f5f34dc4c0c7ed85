import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'server/dist',
      'web/dist',
      'data',
      'web/src/routeTree.gen.ts',
      'test-results',
      'playwright-report',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  // ---------------------------------------------------------------------------------------------
  // Web app: import boundaries. Shared code (lib/, components/) → features → routes, never sideways.
  // - lib/ and components/ import no feature and no route.
  // - A feature imports no route, and from another feature only its public surface: `api.ts`
  //   (fetchers, queryOptions, hooks) and its `*-section.tsx` parts (a block of a screen that a
  //   screen of another feature shows, e.g. the invite codes on the profile).
  // - A route imports from a feature only its `api.ts` and its `*-screen.tsx` screens.
  // Everything else in a feature folder is its own. Patterns match the import as written: features
  // import each other as `../<name>/<file>` (a feature name starts with a letter, `..` does not).
  // Dynamic `import()` is not checked by the rule.
  // ---------------------------------------------------------------------------------------------
  ...webBoundaries(),
);

function webBoundaries() {
  const noRoutes = {
    group: ['**/routes/**', '**/routeTree.gen', '**/router'],
    message: 'Routes sit above features and shared code: import them from nowhere below.',
  };
  return [
    {
      files: ['web/src/lib/**', 'web/src/components/**'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              noRoutes,
              {
                group: ['**/features/**'],
                message: 'Shared code (lib/, components/) imports no feature.',
              },
            ],
          },
        ],
      },
    },
    {
      files: ['web/src/features/**'],
      ignores: ['web/src/**/*.test.tsx'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              noRoutes,
              {
                group: ['../[a-z]*/*', '!../[a-z]*/api', '!../[a-z]*/*-section'],
                message: 'From another feature, import only its api.ts or a *-section.tsx part.',
              },
            ],
          },
        ],
      },
    },
    {
      files: ['web/src/routes/**'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              {
                group: ['**/features/*/*', '!**/features/*/api', '!**/features/*/*-screen'],
                message: 'A route imports from a feature only its api.ts or a *-screen.tsx screen.',
              },
            ],
          },
        ],
      },
    },
  ];
}
