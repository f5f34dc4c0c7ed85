import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

// Server layers, bottom to top: tools → db → core → http → features (accounts, invites, mail,
// sessions, audit, two-step, passkeys, providers, admin, metrics, realtime, logs, crons, settings,
// backups, oidc, batch) →
// the composition root (app.ts, server.ts, main.ts, cli.ts). A folder imports only from below it;
// a feature uses another feature only through that feature's one public module, its service.ts.
const composition = ['../app.js', '../server.js', '../main.js', '../cli.js', '../ways-in-kinds.js'];
const features = [
  '../accounts/*',
  '../invites/*',
  '../mail/*',
  '../sessions/*',
  '../audit/*',
  '../two-step/*',
  '../passkeys/*',
  '../providers/*',
  '../admin/*',
  '../metrics/*',
  '../realtime/*',
  '../logs/*',
  '../crons/*',
  '../settings/*',
  '../backups/*',
  '../oidc/*',
  '../gate/*',
  '../batch/*',
];
const webContractTypesOnly = {
  group: ['**/contract/**'],
  allowTypeImports: true,
  message: 'The web takes only types from contract/ (import type): schemas stay on the server.',
};
const serverLayer = (files, forbidden, message) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }] }],
  },
});
const serverBoundaries = [
  serverLayer(
    ['server/src/tools/**'],
    [...composition, '../db/*', '../core/*', '../http/*', ...features, '../config.js'],
    'tools/ are small, self-contained helpers: they import nothing of the app.',
  ),
  serverLayer(
    ['server/src/db/**'],
    [...composition, '../core/*', '../http/*', ...features],
    'db/ sits below the domain and the HTTP layer.',
  ),
  serverLayer(
    ['server/src/core/**'],
    [...composition, '../http/*', ...features],
    'core/ is the kernel every feature builds on: it imports no feature and no HTTP plumbing.',
  ),
  serverLayer(
    ['server/src/http/**'],
    [...composition, ...features],
    'http/ is plumbing: it imports no feature.',
  ),
  serverLayer(
    ['server/src/mail/**'],
    [...composition, ...features.filter((f) => f !== '../mail/*')],
    'mail/ knows no other feature.',
  ),
  serverLayer(
    ['server/src/sessions/**'],
    [...composition, ...features.filter((f) => f !== '../sessions/*')],
    'sessions/ builds on core/ and http/ only.',
  ),
  serverLayer(
    ['server/src/realtime/**'],
    [...composition, ...features.filter((f) => f !== '../realtime/*')],
    'realtime/ builds on core/ and http/ only: other features raise events through core/events.ts.',
  ),
  serverLayer(
    ['server/src/audit/**'],
    [...composition, ...features.filter((f) => f !== '../audit/*')],
    'audit/ builds on core/ and http/ only.',
  ),
  // Each feature offers others one public module, its `service.ts`; everything else in a feature
  // folder is its own. Two-step sign-in and passkeys build on core/ and http/, like sessions/, and
  // use accounts/' service for the password check, the notice mails and the device cookie (the
  // second step completes a password sign-in); the second step itself is core/second-step.ts, so
  // accounts/ needs neither.
  ...['two-step', 'passkeys'].map((name) =>
    serverLayer(
      [`server/src/${name}/**`],
      [...composition, ...features.filter((f) => f !== `../${name}/*`), '!../accounts/service.js'],
      `${name}/ builds on core/ and http/; from other features only accounts/service.ts.`,
    ),
  ),
  // Sign-in with a provider signs up through accounts/' sign-up (its invite checks and single-use
  // transaction) and sends accounts/' notice mails; nothing else of another feature.
  serverLayer(
    ['server/src/providers/**'],
    [...composition, ...features.filter((f) => f !== '../providers/*'), '!../accounts/service.js'],
    'providers/ builds on core/ and http/; from other features only accounts/service.ts.',
  ),
  serverLayer(
    ['server/src/invites/**'],
    [...composition, ...features.filter((f) => f !== '../invites/*'), '!../mail/service.js'],
    'invites/ does not depend on accounts/ (accounts/ uses invites/service.ts); mail only through mail/service.ts.',
  ),
  serverLayer(
    ['server/src/accounts/**'],
    [
      ...composition,
      ...features.filter((f) => f !== '../accounts/*'),
      '!../invites/service.js',
      '!../mail/service.js',
    ],
    'accounts/ uses another feature only through its public module: invites/service.ts, mail/service.ts (two-step/ and passkeys/ build on accounts/, not the other way).',
  ),
  serverLayer(
    ['server/src/admin/**'],
    [
      ...composition,
      ...features.filter((f) => f !== '../admin/*'),
      '!../accounts/service.js',
      '!../invites/service.js',
      '!../mail/service.js',
      '!../audit/service.js',
    ],
    'admin/ uses another feature only through its public module: accounts/service.ts, invites/service.ts, mail/service.ts, audit/service.ts.',
  ),
  // The request log and the scheduled jobs' API are the operators': they build on core/ (the job
  // registry is core/cron.ts, so any feature can have a job) and http/ only.
  ...['logs', 'crons'].map((name) =>
    serverLayer(
      [`server/src/${name}/**`],
      [...composition, ...features.filter((f) => f !== `../${name}/*`)],
      `${name}/ builds on core/ and http/ only.`,
    ),
  ),
  // The app's settings send their test mail through the outbox, in the members' own templates.
  serverLayer(
    ['server/src/settings/**'],
    [
      ...composition,
      ...features.filter((f) => f !== '../settings/*'),
      '!../mail/service.js',
      '!../accounts/service.js',
    ],
    'settings/ builds on core/ and http/; from other features only mail/service.ts and accounts/service.ts.',
  ),
  serverLayer(
    ['server/src/backups/**'],
    [...composition, ...features.filter((f) => f !== '../backups/*')],
    'backups/ builds on core/, http/ and db/ only.',
  ),
  // The OpenID provider serves a member's picture through accounts/' public module.
  serverLayer(
    ['server/src/oidc/**'],
    [...composition, ...features.filter((f) => f !== '../oidc/*'), '!../accounts/service.js'],
    'oidc/ builds on core/ and http/; from other features only accounts/service.ts.',
  ),
  // A batch runs the users records' actions exactly as their routes do: accounts/' service only.
  serverLayer(
    ['server/src/batch/**'],
    [...composition, ...features.filter((f) => f !== '../batch/*'), '!../accounts/service.js'],
    'batch/ builds on core/ and http/; from other features only accounts/service.ts.',
  ),
  serverLayer(
    ['server/src/gate/**'],
    [...composition, ...features.filter((f) => f !== '../gate/*')],
    'gate/ builds on core/ and http/ only.',
  ),
  serverLayer(
    ['server/src/metrics/**'],
    [...composition, ...features.filter((f) => f !== '../metrics/*'), '!../mail/service.js'],
    'metrics/ reads other features only through their public module (mail/service.ts).',
  ),
];

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'server/dist',
      // An earlier build for npm run bench -- compare (bench/README.md).
      'server/dist-baseline',
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
  ...serverBoundaries,
  // The wire contract (contract/): schemas the server runs and the web takes types from. It
  // imports nothing of either; the web imports it with `import type` only (no schema code ships).
  {
    files: ['contract/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', '**/web/**', '../*/**'],
              message: 'contract/ is the shared wire contract: it imports only typebox and itself.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [webContractTypesOnly] }],
    },
  },
  // The reader of the API's errors runs on the first screen before the SDK has loaded
  // (docs/decisions/0045): it takes the SDK's types only.
  {
    files: ['web/src/lib/api-error.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'pocketbase',
              allowTypeImports: true,
              message: 'lib/api-error.ts reads errors by shape: import type from the SDK only.',
            },
          ],
          patterns: [webContractTypesOnly],
        },
      ],
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
  // - A route imports from a feature only its `api.ts`, its `*-screen.tsx` screens and its
  //   `*-search.ts` address-bar shapes (which import nothing, so a route's `validateSearch` does not
  //   put the feature's code or the SDK into the app's first download).
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
                group: [
                  '**/features/*/*',
                  '!**/features/*/api',
                  '!**/features/*/*-screen',
                  '!**/features/*/*-search',
                ],
                message:
                  'A route imports from a feature only its api.ts, a *-screen.tsx screen or a *-search.ts address-bar shape.',
              },
            ],
          },
        ],
      },
    },
  ];
}
