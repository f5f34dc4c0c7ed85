import { expect, test } from '@playwright/test';
import {
  inviteCodes,
  logIn,
  serverWithInitial,
  signUpUnverified,
  signUpVerified,
} from './support/api';
import { control, expectHomeScreen, expectLoginScreen, logInThroughUi } from './support/ui';

/**
 * Live updates over realtime, where members notice them: the profile's invite list drops a code
 * when an invitee uses it, and a tab whose session ended on another device goes to the login
 * screen by itself, without a click or a reload. Runs on the settings server (one worker).
 */

const { origin: ORIGIN, spareCode } = serverWithInitial('settings');
test.use({ baseURL: ORIGIN });

async function api(method: string, path: string, token: string) {
  const res = await fetch(`${ORIGIN}${path}`, { method, headers: { authorization: token } });
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

test('the profile’s invite list drops a code when an invitee uses it, without a reload', async ({
  page,
}) => {
  const member = await signUpVerified(ORIGIN, await spareCode(), 'live-list');
  await logInThroughUi(page, member.email, member.password);
  await control(page, 'View Profile').click();
  const list = page.getByRole('list', { name: 'Your invite codes' });
  const codes = await inviteCodes(ORIGIN, member);
  await expect(list.getByRole('listitem')).toHaveCount(codes.length);

  // Someone signs up with the first code elsewhere; this tab does nothing.
  await signUpUnverified(ORIGIN, codes[0]!, 'invitee');
  await expect(list.getByText(codes[0]!, { exact: true })).toHaveCount(0, { timeout: 10_000 });
  await expect(list.getByRole('listitem')).toHaveCount(codes.length - 1);
});

test('a tab signed out from another device goes to the login screen by itself', async ({
  page,
}) => {
  const member = await signUpVerified(ORIGIN, await spareCode(), 'signed-out-tab');
  await logInThroughUi(page, member.email, member.password);
  await expectHomeScreen(page);

  // Another device signs in and signs this one out.
  const otherToken = await logIn(ORIGIN, member);
  const sessions = await api('GET', '/api/gatehouse/sessions', otherToken);
  const thisTab = (sessions.body.items as { id: string; current: boolean }[]).find(
    (s) => !s.current,
  )!;
  expect((await api('DELETE', `/api/gatehouse/sessions/${thisTab.id}`, otherToken)).status).toBe(
    204,
  );

  // No click, no reload: the tab learns it over realtime.
  await expectLoginScreen(page);
});

test('a password changed on another device sends this tab to the login screen', async ({
  page,
}) => {
  const member = await signUpVerified(ORIGIN, await spareCode(), 'password-elsewhere');
  await logInThroughUi(page, member.email, member.password);
  await expectHomeScreen(page);

  const otherToken = await logIn(ORIGIN, member);
  const sessions = (await api('GET', '/api/gatehouse/sessions', otherToken)).body;
  expect(sessions.items).toHaveLength(2);
  const next = `${member.password}-New`;
  const res = await fetch(`${ORIGIN}/api/collections/users/records/${await memberId(otherToken)}`, {
    method: 'PATCH',
    headers: { authorization: otherToken, 'content-type': 'application/json' },
    body: JSON.stringify({ oldPassword: member.password, password: next, passwordConfirm: next }),
  });
  expect(res.status).toBe(200);
  await expectLoginScreen(page);
});

async function memberId(token: string): Promise<string> {
  const res = await fetch(`${ORIGIN}/api/collections/users/auth-refresh`, {
    method: 'POST',
    headers: { authorization: token },
  });
  return ((await res.json()) as { record: { id: string } }).record.id;
}
