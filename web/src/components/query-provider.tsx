import { use, type ReactNode } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { QueriesContext } from '../lib/queries';

/** The app's query client, once made, for the hooks below (see `QueryScope`). */
export default function QueryProvider({ children }: { children: ReactNode }) {
  const queries = use(QueriesContext);
  if (!queries) throw new Error('QueryScope outside the app');
  return <QueryClientProvider client={use(queries())}>{children}</QueryClientProvider>;
}
