import {
  emailChangeMail,
  passwordResetMail,
  securityNotice,
  signInCodeMail,
  verificationMail,
} from '../accounts/service.js';
import { recordEvent } from '../core/audit.js';
import type { AppContext } from '../core/context.js';
import type { Language } from '../core/language.js';
import { fieldError, type FieldErrors, ValidationError } from '../core/errors.js';
import { inTransaction } from '../core/transaction.js';
import { USERS_COLLECTION_ID, USERS_COLLECTION_NAME } from '../core/tokens.js';
import { enqueueMail, type MailContent } from '../mail/service.js';
import { EMAIL_MAX_LENGTH, isEmail } from '../tools/email.js';
import type { SettingsActor } from './update.js';

/**
 * POST /api/settings/test/email (the SDK's `pb.settings.testEmail()`): one mail of the template
 * asked for, as a member would get it, with a link that leads nowhere (a placeholder token), to
 * the address given. It goes through the outbox, so it arrives (or fails) as real mail does, with
 * the SMTP settings in force: that is what it tests. The operator's security log says they sent it,
 * to whom and of which template. It is written in the operator's language, who reads it
 * (docs/decisions/0072).
 */

/** PocketBase's message when the form is refused. */
export const TEST_EMAIL_FAILED = 'Failed to send the test email.';

/** PocketBase's template names. */
const TEMPLATES = ['verification', 'password-reset', 'email-change', 'otp', 'login-alert'] as const;
type Template = (typeof TEMPLATES)[number];

/**
 * Names of the collection whose mails are asked for. Gatehouse has one auth collection, and its
 * operators are members of it, so PocketBase's `_superusers` names the same mails.
 */
const COLLECTIONS = ['', USERS_COLLECTION_NAME, USERS_COLLECTION_ID, '_superusers'];

/** A token-shaped placeholder: the test mail's links show where a real one goes, and open nothing. */
const TEST_TOKEN = 'TEST_TOKEN';
/** The sign-in code mail's placeholder code (PocketBase's test mail shows a made-up one too). */
const TEST_CODE = '12345678';

export async function sendTestEmail(
  ctx: AppContext,
  input: { email: string; template: string; collection: string },
  by: SettingsActor & { language: Language },
): Promise<void> {
  const errors: FieldErrors = {};
  if (!COLLECTIONS.includes(input.collection)) {
    errors.collection = {
      code: 'validation_invalid_auth_collection',
      message: 'Must be a valid auth collection id or name.',
    };
  }
  if (!input.email) errors.email = fieldError.required();
  else if (input.email.length > EMAIL_MAX_LENGTH || !isEmail(input.email)) {
    errors.email = fieldError.isEmail();
  }
  if (!input.template) errors.template = fieldError.required();
  else if (!(TEMPLATES as readonly string[]).includes(input.template)) {
    errors.template = { code: 'validation_in_invalid', message: 'Must be a valid value.' };
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(TEST_EMAIL_FAILED, errors);

  const mail = testMail(ctx, by.language, input.template as Template, input.email);
  await inTransaction(ctx, async (work) => {
    await enqueueMail(work.trx, { ...mail, to: input.email, userId: null, kind: 'testEmail' });
    await recordEvent(work.trx, {
      type: 'admin_test_mail',
      userId: by.userId,
      client: by.client,
      detail: { actor: by.userId, to: input.email, template: input.template },
    });
    work.mailQueued();
  });
}

function testMail(
  ctx: AppContext,
  language: Language,
  template: Template,
  email: string,
): MailContent {
  const { appName, appUrl } = ctx.settings;
  switch (template) {
    case 'verification':
      return verificationMail(language, appName, appUrl, TEST_TOKEN);
    case 'password-reset':
      return passwordResetMail(language, appName, appUrl, TEST_TOKEN);
    case 'email-change':
      return emailChangeMail(language, appName, appUrl, TEST_TOKEN, email);
    case 'otp':
      return signInCodeMail(language, appName, TEST_CODE, 3);
    case 'login-alert': {
      const notice = {
        en: {
          subject: `New sign-in to your ${appName} account`,
          what: `This is a test of the new sign-in notice: your ${appName} account was signed in to.`,
          outro: 'Nothing to do: an operator sent this test.',
        },
        de: {
          subject: `Neue Anmeldung bei Ihrem Konto bei ${appName}`,
          what: `Dies ist ein Test des Hinweises auf neue Anmeldungen: Jemand hat sich bei Ihrem Konto bei ${appName} angemeldet.`,
          outro: 'Nichts zu tun: Ein Betreiber hat diesen Test gesendet.',
        },
      }[language];
      return securityNotice(language, appName, appUrl, notice, {
        at: new Date(),
        ip: 'TEST_IP',
        userAgent: 'TEST_USER_AGENT',
      });
    }
  }
}
