import { createMemoryHistory } from '@tanstack/react-router';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expect, vi } from 'vitest';
import { App } from '../app';
import { createAuth, type Auth } from '../lib/auth';
import { lazyQueries } from '../lib/queries';
import { createQueryClient } from '../lib/query-client';
import { createAppRouter } from '../router';

/** Renders the whole app through the real router, at `path`, in a memory history. */
export function renderApp(path: string, options: { auth?: Auth; fakeTimers?: boolean } = {}) {
  const history = createMemoryHistory({ initialEntries: [path] });
  // No retries in tests, unless a test turns them on, so failures show at once.
  const queryClient = createQueryClient({ queries: { retry: false } });
  const auth = options.auth ?? createAuth();
  const router = createAppRouter({ auth, queries: lazyQueries(() => queryClient), history });
  const user = userEvent.setup(
    options.fakeTimers ? { advanceTimers: (ms) => vi.advanceTimersByTime(ms) } : {},
  );
  const view = render(<App router={router} />);
  return { ...view, router, history, queryClient, user };
}

/** Finds a message and checks that it sits in a live region of the given kind. */
export async function findAnnounced(text: string, role: 'alert' | 'status' = 'alert') {
  const el = await screen.findByText(text);
  expect(el.closest(`[role="${role}"]`)).not.toBeNull();
  return el;
}

/**
 * Waits until the element has the focus. Screens, steps and dialogs move the focus in an effect
 * React runs just after they appear; on a busy machine that is a moment after a `findBy` sees them.
 */
export async function expectFocus<T extends Element | undefined>(
  element: T | Promise<T>,
): Promise<T> {
  const el = await element;
  await waitFor(() => expect(el).toHaveFocus());
  return el;
}
