import { useState } from 'react';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TitledCard } from './card';
import { PageSections } from './page-sections';

/** The observer the browser would run, driven by the test: `show(id)` brings a section in view. */
function fakeIntersections() {
  let notify: ((entries: { target: Element; isIntersecting: boolean }[]) => void) | null = null;
  const observed: Element[] = [];
  vi.stubGlobal(
    'IntersectionObserver',
    class {
      constructor(callback: typeof notify) {
        notify = callback;
      }
      observe(el: Element) {
        observed.push(el);
      }
      disconnect() {}
    },
  );
  return {
    show: (id: string, inView = true) =>
      act(() => {
        const target = observed.find((el) => el.id === id);
        if (target) notify?.([{ target, isIntersecting: inView }]);
      }),
  };
}

function Page({ withApps = false }: { withApps?: boolean }) {
  const [apps, setApps] = useState(withApps);
  return (
    <PageSections>
      <TitledCard title="Profile">
        <button type="button" onClick={() => setApps(true)}>
          Connect an app
        </button>
      </TitledCard>
      <TitledCard title="Two-Step Sign-In">
        <p>Off.</p>
      </TitledCard>
      {apps ? (
        <TitledCard title="Connected Apps">
          <p>Team Wiki</p>
        </TitledCard>
      ) : null}
      <p>Not a section.</p>
    </PageSections>
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('PageSections', () => {
  it('lists each section by its heading, each a named region with an id the link points to', async () => {
    fakeIntersections();
    render(<Page />);
    const nav = await screen.findByRole('navigation', { name: 'On this page' });
    const links = within(nav).getAllByRole('link');
    expect(links.map((l) => l.textContent)).toEqual(['Profile', 'Two-Step Sign-In']);
    expect(links.map((l) => l.getAttribute('href'))).toEqual(['#profile', '#two-step-sign-in']);
    expect(screen.getByRole('region', { name: 'Two-Step Sign-In' })).toHaveAttribute(
      'id',
      'two-step-sign-in',
    );
  });

  it('a section that appears later gets its link, in page order', async () => {
    fakeIntersections();
    const user = userEvent.setup();
    render(<Page />);
    await user.click(screen.getByRole('button', { name: 'Connect an app' }));
    const nav = screen.getByRole('navigation', { name: 'On this page' });
    await waitFor(() =>
      expect(
        within(nav)
          .getAllByRole('link')
          .map((l) => l.textContent),
      ).toEqual(['Profile', 'Two-Step Sign-In', 'Connected Apps']),
    );
  });

  it('a link moves focus to its section heading, by keyboard, and marks it current', async () => {
    fakeIntersections();
    const user = userEvent.setup();
    render(<Page withApps />);
    const nav = await screen.findByRole('navigation', { name: 'On this page' });
    const link = within(nav).getByRole('link', { name: 'Connected Apps' });
    link.focus();
    await user.keyboard('{Enter}');
    const heading = screen.getByRole('heading', { name: 'Connected Apps' });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(link).toHaveAttribute('aria-current', 'true');
    expect(within(nav).getByRole('link', { name: 'Profile' })).not.toHaveAttribute('aria-current');
  });

  it('marks the first section in view as the current one while scrolling', async () => {
    const view = fakeIntersections();
    render(<Page withApps />);
    const nav = await screen.findByRole('navigation', { name: 'On this page' });
    const current = () => within(nav).queryByRole('link', { current: true })?.textContent;
    expect(current()).toBeUndefined();
    view.show('two-step-sign-in');
    view.show('connected-apps');
    expect(current()).toBe('Two-Step Sign-In');
    view.show('two-step-sign-in', false);
    expect(current()).toBe('Connected Apps');
  });

  it('no list for a page of one section', async () => {
    fakeIntersections();
    render(
      <PageSections>
        <TitledCard title="Profile">
          <p>Alice</p>
        </TitledCard>
      </PageSections>,
    );
    await screen.findByRole('region', { name: 'Profile' });
    expect(screen.queryByRole('navigation')).toBeNull();
  });
});
