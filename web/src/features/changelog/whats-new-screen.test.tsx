import { act, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { changelogOk, fakeServer, json, sampleChangelog } from '../../test/fake-server';
import { expectFocus, renderApp } from '../../test/render-app';
import { LAST_VIEWED_VERSION_KEY } from './api';

describe("What's New (/whats-new)", () => {
  it('shows the header and a spinner with Loading updates... while loading', async () => {
    fakeServer({ 'GET /changelog.json': () => new Promise<Response>(() => undefined) });
    renderApp('/whats-new');
    await expectFocus(screen.findByRole('heading', { level: 1, name: "What's New" }));
    expect(document.title).toBe("What's New · Gatehouse");
    expect(screen.getByText('Latest features and improvements')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '← Back' })).toBeInTheDocument();
    expect(screen.getByText('Loading updates...')).toBeInTheDocument();
  });

  it('shows every release as a card; the newest is highlighted and marked Latest', async () => {
    fakeServer({ 'GET /changelog.json': changelogOk() });
    renderApp('/whats-new');
    const latest = await screen.findByRole('region', { name: 'Version 1.2.0' });
    const older = screen.getByRole('region', { name: 'Version 1.1.0' });

    expect(within(latest).getByText('v1.2.0')).toBeInTheDocument();
    expect(within(latest).getByText('Latest')).toBeInTheDocument();
    expect(within(latest).getByText('November 20, 2026')).toBeInTheDocument();
    expect(within(latest).getByRole('heading', { name: 'Faster invites' })).toBeInTheDocument();
    expect(within(latest).getByText('Invite links are quicker to share.')).toBeInTheDocument();
    expect(within(latest).getByRole('heading', { name: 'New Features' })).toBeInTheDocument();
    expect(within(latest).getByText('One-tap copy of invite links')).toBeInTheDocument();
    expect(within(latest).getByRole('heading', { name: 'Improvements' })).toBeInTheDocument();
    expect(within(latest).getByText('Smaller download')).toBeInTheDocument();
    expect(within(latest).getByRole('heading', { name: 'Bug Fixes' })).toBeInTheDocument();
    expect(within(latest).getByText('The banner no longer flickers')).toBeInTheDocument();
    expect(latest.className).toContain('border-blue-700');

    expect(within(older).getByText('v1.1.0')).toBeInTheDocument();
    expect(within(older).queryByText('Latest')).not.toBeInTheDocument();
    expect(within(older).getByText('October 1, 2026')).toBeInTheDocument();
    expect(older.className).not.toContain('border-blue-700');
    // Lists only when non-empty.
    expect(within(older).queryByRole('heading', { name: 'New Features' })).toBeNull();
    expect(within(older).queryByRole('heading', { name: 'Improvements' })).toBeNull();
    expect(within(older).queryByRole('heading', { name: 'Bug Fixes' })).toBeNull();
  });

  it('stores the latest version as viewed', async () => {
    fakeServer({ 'GET /changelog.json': changelogOk() });
    renderApp('/whats-new');
    await screen.findByRole('region', { name: 'Version 1.2.0' });
    expect(window.localStorage.getItem(LAST_VIEWED_VERSION_KEY)).toBe('1.2.0');
  });

  it('shows No updates yet. Check back soon! for an empty file', async () => {
    fakeServer({ 'GET /changelog.json': changelogOk([]) });
    renderApp('/whats-new');
    expect(await screen.findByText('No updates yet. Check back soon!')).toBeInTheDocument();
    expect(window.localStorage.getItem(LAST_VIEWED_VERSION_KEY)).toBeNull();
  });

  it('shows the error card when the file fails to load (after the retries)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = fakeServer({ 'GET /changelog.json': () => new Response('', { status: 500 }) });
    renderApp('/whats-new', { fakeTimers: true });
    await screen.findByText('Loading updates...');
    await act(() => vi.advanceTimersByTimeAsync(30_000));
    const card = await screen.findByRole('alert');
    expect(within(card).getByRole('heading', { name: 'Error Loading Updates' })).toBeVisible();
    expect(
      within(card).getByText("We couldn't load the latest updates. Please try again later."),
    ).toBeVisible();
    expect(server.to('GET', '/changelog.json')).toHaveLength(4);
  });

  it('shows the error card for a malformed file, without retrying', async () => {
    const server = fakeServer({
      'GET /changelog.json': () => json(200, [{ version: '1.0.0', title: 42 }]),
    });
    renderApp('/whats-new');
    expect(await screen.findByRole('heading', { name: 'Error Loading Updates' })).toBeVisible();
    expect(server.to('GET', '/changelog.json')).toHaveLength(1);
  });

  it('shows the error card for a file that is not JSON', async () => {
    fakeServer({ 'GET /changelog.json': () => new Response('<html>', { status: 200 }) });
    renderApp('/whats-new');
    expect(await screen.findByRole('heading', { name: 'Error Loading Updates' })).toBeVisible();
  });

  it('accepts releases without the optional lists', async () => {
    const { features: _f, improvements: _i, fixes: _x, ...bare } = sampleChangelog[1]!;
    fakeServer({ 'GET /changelog.json': changelogOk([bare]) });
    renderApp('/whats-new');
    expect(await screen.findByRole('heading', { name: 'Password reset' })).toBeInTheDocument();
  });

  it('← Back goes to /home (the login screen for a visitor)', async () => {
    fakeServer({ 'GET /changelog.json': changelogOk() });
    const { user, router } = renderApp('/whats-new');
    await user.click(await screen.findByRole('button', { name: '← Back' }));
    expect(await screen.findByRole('heading', { name: 'Welcome back' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });
});
