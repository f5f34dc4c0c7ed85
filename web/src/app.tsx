import { Fragment, type ReactNode } from 'react';
import { I18nProvider, useLingui } from '@lingui/react';
import { RouterProvider } from '@tanstack/react-router';
import { ReauthHost } from './features/reauth/reauth-host';
import { i18n } from './lib/i18n';
import { QueriesContext } from './lib/queries';
import type { createAppRouter } from './router';

export function App({ router }: { router: ReturnType<typeof createAppRouter> }) {
  return (
    <I18nProvider i18n={i18n}>
      <QueriesContext value={router.options.context.queries}>
        <InLanguage>
          <RouterProvider router={router} />
          {/* "Confirm it's you", for any request the server refuses for it (lib/reauth.ts). */}
          <ReauthHost auth={router.options.context.auth} />
        </InLanguage>
      </QueriesContext>
    </I18nProvider>
  );
}

/**
 * Renders the screens anew when the language changes: every text, including those read outside a
 * component's render (a form's checks, the message catalogue), is then read in the new language.
 * The router and the query cache live outside, so the place and its data stay.
 */
function InLanguage({ children }: { children: ReactNode }) {
  const { i18n: current } = useLingui();
  return <Fragment key={current.locale}>{children}</Fragment>;
}
