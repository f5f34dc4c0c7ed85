import { expect, test, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';
import {
  inviteCodes,
  newPassword,
  serverWithInitial,
  signUpVerified,
  uniqueEmail,
} from './support/api';
import { checkScreen } from './support/checks';
import { control, logInThroughUi } from './support/ui';

/**
 * A name and a face, through the browser against the real server: a member sets both on Settings
 * at 360 px (the photo goes through the browser's file chooser, is re-encoded by the server and
 * comes back as a protected thumb with a file token), sees them in the header's Menu and on
 * Profile, and removes the photo; and the profile's "Joined with Your Codes" gains a row, without
 * a reload, when someone signs up with one of the member's codes in another browser, giving a
 * name on the sign-up form. Runs on the settings server with members of its own.
 */

const { origin: ORIGIN, spareCode } = serverWithInitial('settings');
test.use({ baseURL: ORIGIN });

const PHONE = { width: 360, height: 740 };

/** A real photo-sized PNG, made here. */
function photo(): Promise<Buffer> {
  return sharp({
    create: { width: 640, height: 480, channels: 3, background: { r: 30, g: 110, b: 160 } },
  })
    .png()
    .toBuffer();
}

/** Whether an <img> finished loading a real picture (the server served it). */
async function loaded(img: Locator): Promise<boolean> {
  return img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0);
}

async function openSettingsFromMenu(page: Page): Promise<void> {
  await control(page, 'Menu').click();
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Settings' })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused();
}

test('a member sets a name and a photo at 360 px; the Menu and Profile show them; the photo can be removed', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize(PHONE);
  const member = await signUpVerified(ORIGIN, await spareCode(), 'face');
  await logInThroughUi(page, member.email, member.password);
  await openSettingsFromMenu(page);

  const card = page.getByRole('region', { name: 'Profile' });
  await expect(card.getByRole('img', { name: 'No photo: your initials' })).toBeVisible();
  await card.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
  const chooser = page.waitForEvent('filechooser');
  await card.getByRole('button', { name: 'Choose Photo' }).click();
  await (
    await chooser
  ).setFiles({ name: 'Holiday.PNG', mimeType: 'image/png', buffer: await photo() });
  const preview = card.getByRole('img', { name: 'The photo you chose (not saved yet)' });
  await expect(preview).toBeVisible();
  await expect(card.getByText('Chosen: Holiday.PNG. Save Profile to use it.')).toBeVisible();
  await checkScreen(page, 'Settings, Profile with a photo chosen', { every: true });

  await card.getByRole('button', { name: 'Save Profile' }).click();
  await expect(card.getByText('Your profile has been saved.')).toBeVisible();
  const saved = card.getByRole('img', { name: 'Your photo' });
  await expect(saved).toHaveAttribute(
    'src',
    new RegExp(`^/api/files/users/${member.id}/holiday\\w+\\.png\\?thumb=200x200&token=`),
  );
  await expect.poll(() => loaded(saved)).toBe(true);
  await checkScreen(page, 'Settings, Profile saved', { every: true });

  // The header's Menu: the photo on its button, the name beside the email inside.
  const menuButton = control(page, 'Menu');
  await expect.poll(() => loaded(menuButton.locator('img'))).toBe(true);
  await menuButton.click();
  const header = page.locator('header');
  await expect(header.getByText('Ada Lovelace', { exact: true })).toBeVisible();
  await expect(header.getByText(member.email, { exact: true })).toBeVisible();
  await expect.poll(() => loaded(header.locator('[id] img'))).toBe(true);
  await checkScreen(page, 'the Menu with a name and photo', { every: true });
  await page.keyboard.press('Escape');

  // Profile: the photo and the name.
  await page.goto('/profile');
  const account = page.getByRole('region', { name: 'Account' });
  await expect(account.getByText('Ada Lovelace', { exact: true })).toBeVisible();
  await expect.poll(() => loaded(account.locator('img'))).toBe(true);
  await checkScreen(page, 'Profile with a name and photo');

  // Remove Photo, by keyboard: the initials again, everywhere.
  await openSettingsFromMenu(page);
  await card.getByRole('button', { name: 'Remove Photo' }).focus();
  await page.keyboard.press('Enter');
  await expect(card.getByRole('button', { name: 'Choose Photo' })).toBeFocused();
  await card.getByRole('button', { name: 'Save Profile' }).focus();
  await page.keyboard.press('Enter');
  await expect(card.getByText('Your profile has been saved.')).toBeVisible();
  await expect(card.getByRole('img', { name: 'No photo: your initials' })).toHaveText('AL');
  await expect(menuButton.locator('img')).toHaveCount(0);
});

test('Joined with Your Codes gains a row, without a reload, when someone signs up elsewhere with a name', async ({
  page,
  browser,
}) => {
  test.setTimeout(90_000);
  const member = await signUpVerified(ORIGIN, await spareCode(), 'inviter');
  await logInThroughUi(page, member.email, member.password);
  await control(page, 'View Profile').click();
  const joined = page.getByRole('heading', { level: 3, name: 'Joined with Your Codes' });
  await expect(joined).toBeVisible();
  await expect(
    page.getByText('Nobody has joined with your codes yet. When someone does, they show here.'),
  ).toBeVisible();
  const [code] = await inviteCodes(ORIGIN, member);
  if (!code) throw new Error('The member has no invite code');

  // Someone signs up with the code in another browser, giving a name on the form.
  const elsewhere = await browser.newContext({ baseURL: ORIGIN });
  try {
    const other = await elsewhere.newPage();
    await other.goto(`/signup?code=${encodeURIComponent(code)}`);
    await other.getByLabel('Email', { exact: true }).fill(uniqueEmail('joiner'));
    const password = newPassword();
    await other.getByLabel('Password', { exact: true }).fill(password);
    await other.getByLabel('Confirm Password', { exact: true }).fill(password);
    await other.getByLabel('Name', { exact: true }).fill('Grace Hopper');
    await other.getByRole('button', { name: 'Sign Up' }).click();
    await expect(
      other.getByRole('heading', { name: 'Account created successfully' }),
    ).toBeVisible();
  } finally {
    await elsewhere.close();
  }

  // This tab did nothing: the code leaves the open list, and the row comes in.
  const list = page.getByRole('list', { name: 'Joined with Your Codes' });
  const row = list.getByRole('listitem');
  await expect(row).toHaveCount(1, { timeout: 10_000 });
  await expect(row).toContainText('Grace Hopper');
  await expect(row).toContainText(code);
  await expect(row.getByText('GH', { exact: true })).toBeVisible();
  await expect(
    page.getByRole('list', { name: 'Your invite codes' }).getByText(code, { exact: true }),
  ).toHaveCount(0);
  await checkScreen(page, 'Profile, Joined with Your Codes', { every: true });
});
