import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { createAuth } from './lib/auth';
import { startI18n } from './lib/i18n';
import { lazyQueries } from './lib/queries';
import { createAppRouter } from './router';
import './styles.css';

const auth = createAuth();
// Confirm a stored session as early as possible; the root route waits for it.
void auth.ready();
const router = createAppRouter({ auth, queries: lazyQueries() });

const root = document.getElementById('root');
if (!root) throw new Error('Missing #root element');
// The first screen's texts in the member's language (English's are in this download already).
void startI18n().then(() =>
  createRoot(root).render(
    <StrictMode>
      <App router={router} />
    </StrictMode>,
  ),
);
