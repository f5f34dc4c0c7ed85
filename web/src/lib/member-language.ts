import type { Language } from './i18n';
import { isViewAsSession } from './session';

/**
 * Tells the server the language a signed-in member chose in the Menu: their record's `language`,
 * the language of the mail they get (docs/decisions/0072). Quietly: the screens already speak it,
 * and a failure here changes nothing of that (the next choice sends it again). An operator viewing
 * as a member changes only what this browser shows, never the member's mail.
 */
export async function saveMemberLanguage(userId: string, language: Language): Promise<void> {
  if (isViewAsSession()) return;
  try {
    const { pb } = await import('./pb');
    await pb.collection('users').update(userId, { language });
  } catch (err) {
    console.error('Failed to save the language of your mail', err);
  }
}
