import { i18n } from '@lingui/core';
import { msg } from '@lingui/core/macro';
import { fieldErrorsOf, messageOf, type RefusedField } from './api-error';
import { loadCatalogue } from './i18n';

// The catalogue's texts in the member's language, loading as this module does: they are there long
// before the first answer from the server that needs one.
void loadCatalogue('errors');

/**
 * The message catalogue: what the server can say, in the words a member or operator reads
 * (docs/product.md, "Words"). The server speaks PocketBase's wire format, so its words are
 * PocketBase's (`Value must be unique.`, `Missing or invalid auth record password.`); screens show
 * these texts instead, asked through `serverText` and `fieldText` below, never the server's words
 * directly.
 *
 * Every text has an id: a translation adds one table with the same ids (docs/decisions/0068).
 * `{min}`-style places are filled from the error's parameters; `{detail}` is the server's own
 * sentence, kept only where it was written for people and carries what only the server knows (the
 * name of the setting's environment variable, the address an app must use).
 *
 * `lib/messages.test.ts` reads the server's source: a new error code or message without a text here
 * fails it.
 */
export const MESSAGES = {
  // What a field's error says, by code (`data.<field>.code` of a 400).
  'field.required': msg({ id: 'field.required', message: 'Please fill this in.' }),
  'field.email': msg({
    id: 'field.email',
    message: 'Enter a valid email address, such as name@example.com.',
  }),
  'field.tooShort': msg({ id: 'field.tooShort', message: 'Use at least {min} characters.' }),
  'field.tooLong': msg({ id: 'field.tooLong', message: 'Use at most {max} characters.' }),
  'field.tooLongPlain': msg({ id: 'field.tooLongPlain', message: 'This is too long.' }),
  'field.lengthRange': msg({
    id: 'field.lengthRange',
    message: 'Use between {min} and {max} characters.',
  }),
  'field.passwordsDiffer': msg({
    id: 'field.passwordsDiffer',
    message: "The passwords don't match.",
  }),
  'field.mismatch': msg({ id: 'field.mismatch', message: "This doesn't match." }),
  'field.emailTaken': msg({
    id: 'field.emailTaken',
    message: 'This email address is already in use.',
  }),
  'field.taken': msg({ id: 'field.taken', message: 'This is already taken. Choose another.' }),
  'field.badLink': msg({
    id: 'field.badLink',
    message: 'This link is invalid or has expired. Ask for a new one.',
  }),
  'field.badInviteCode': msg({
    id: 'field.badInviteCode',
    message: 'Invalid or already used invite code.',
  }),
  'field.wrongPassword': msg({ id: 'field.wrongPassword', message: "That password isn't right." }),
  'field.wrongCurrentPassword': msg({
    id: 'field.wrongCurrentPassword',
    message: "Your current password isn't right.",
  }),
  'field.wrongCode': msg({
    id: 'field.wrongCode',
    message: "That code isn't right or has expired.",
  }),
  'field.signInExpired': msg({
    id: 'field.signInExpired',
    message: 'This sign-in took too long. Please start again.',
  }),
  'field.passkeyRefused': msg({
    id: 'field.passkeyRefused',
    message: "The passkey couldn't be checked. Please try again.",
  }),
  'field.numberRange': msg({
    id: 'field.numberRange',
    message: 'Enter a whole number from {min} to {max}.',
  }),
  'field.numberAtLeast': msg({ id: 'field.numberAtLeast', message: 'Enter {min} or more.' }),
  'field.positiveNumber': msg({
    id: 'field.positiveNumber',
    message: 'Enter a number greater than 0.',
  }),
  'field.numberAtMost': msg({ id: 'field.numberAtMost', message: 'Enter {max} or less.' }),
  'field.passwordTooCommon': msg({
    id: 'field.passwordTooCommon',
    message: 'This password is too common. Choose one that is harder to guess.',
  }),
  'field.notVerified': msg({ id: 'field.notVerified', message: 'Verify your email first.' }),
  'field.alreadyMember': msg({
    id: 'field.alreadyMember',
    message: 'This address is already a member.',
  }),
  'field.backupExists': msg({
    id: 'field.backupExists',
    message: 'A backup with this name already exists. Choose another name.',
  }),
  'field.backupName': msg({
    id: 'field.backupName',
    message: 'Use a name ending in .zip, made of letters, digits, dots, dashes and underscores.',
  }),
  'field.fileTooLarge': msg({ id: 'field.fileTooLarge', message: 'This file is too large.' }),
  'field.fileType': msg({ id: 'field.fileType', message: "This kind of file can't be used here." }),
  'field.fileUnreadable': msg({
    id: 'field.fileUnreadable',
    message: "This file couldn't be read. Choose it again.",
  }),
  'field.notABackup': msg({
    id: 'field.notABackup',
    message: 'This file is not a Gatehouse backup, or it is damaged.',
  }),
  'field.choose': msg({ id: 'field.choose', message: 'Choose one of the options offered.' }),
  'field.sameEmail': msg({ id: 'field.sameEmail', message: 'This is already your email address.' }),
  'field.schedule': msg({
    id: 'field.schedule',
    message: 'Enter a schedule such as 0 3 * * * (minute, hour, day, month, weekday).',
  }),
  'field.url': msg({
    id: 'field.url',
    message: 'Enter a full web address, such as https://example.com.',
  }),
  'field.host': msg({
    id: 'field.host',
    message: 'Enter a server name or IP address, such as smtp.example.com.',
  }),
  'field.format': msg({ id: 'field.format', message: "This isn't in a form that can be used." }),
  'field.provider': msg({
    id: 'field.provider',
    message: "This way of signing in isn't turned on.",
  }),
  'field.oneProof': msg({ id: 'field.oneProof', message: 'Give one proof at a time.' }),
  'field.wrongCollection': msg({
    id: 'field.wrongCollection',
    message: 'Members are the only accounts here.',
  }),
  'field.detail': msg({ id: 'field.detail', message: '{detail}' }),

  // What the whole answer says (`message`), by the server's message.
  'error.checkFields': msg({ id: 'error.checkFields', message: 'Please check the fields below.' }),
  'error.tryAgain': msg({
    id: 'error.tryAgain',
    message: 'Something went wrong. Please try again.',
  }),
  'error.signInAgain': msg({ id: 'error.signInAgain', message: 'Please sign in again.' }),
  'error.notAllowed': msg({ id: 'error.notAllowed', message: "You don't have access to this." }),
  'error.notFound': msg({
    id: 'error.notFound',
    message: "This doesn't exist, or it was removed.",
  }),
  'error.tooLarge': msg({ id: 'error.tooLarge', message: 'This is too large to send.' }),
  'error.tooMany': msg({
    id: 'error.tooMany',
    message: 'Too many attempts. Please wait a moment and try again.',
  }),
  'error.unavailable': msg({
    id: 'error.unavailable',
    message: 'The service is busy. Please try again in a moment.',
  }),
  'error.signInFailed': msg({
    id: 'error.signInFailed',
    message: "Signing in didn't work. Please try again.",
  }),
  'error.secondStep': msg({
    id: 'error.secondStep',
    message: 'Enter the code from your authenticator app to finish signing in.',
  }),
  'error.sessionChanged': msg({
    id: 'error.sessionChanged',
    message: 'Your session changed on another device. Please sign in again.',
  }),
  'error.codeWrong': msg({
    id: 'error.codeWrong',
    message: "That code isn't right or has expired.",
  }),
  'error.codeSpent': msg({
    id: 'error.codeSpent',
    message: 'Too many attempts with this code. Ask for a new one.',
  }),
  'error.settingsNotSaved': msg({
    id: 'error.settingsNotSaved',
    message: "The settings couldn't be saved. Please check the fields below.",
  }),
  'error.accountNotCreated': msg({
    id: 'error.accountNotCreated',
    message: "The account couldn't be created. Please check the fields below.",
  }),
  'error.backupNotCreated': msg({
    id: 'error.backupNotCreated',
    message: "The backup couldn't be made. Please try again.",
  }),
  'error.backupNotRestored': msg({
    id: 'error.backupNotRestored',
    message: "The backup couldn't be restored.",
  }),
  'error.backupMissing': msg({
    id: 'error.backupMissing',
    message: 'This backup no longer exists.',
  }),
  'error.backupInUse': msg({
    id: 'error.backupInUse',
    message: "This backup is in use right now and can't be deleted.",
  }),
  'error.backupBusy': msg({
    id: 'error.backupBusy',
    message: 'Another backup or restore is under way. Please try again when it has finished.',
  }),
  'error.testEmailFailed': msg({
    id: 'error.testEmailFailed',
    message: "The test email couldn't be sent. Check the mail settings.",
  }),
  'error.filter': msg({ id: 'error.filter', message: 'This filter could not be read.' }),
  'error.appMissing': msg({ id: 'error.appMissing', message: 'This app no longer exists.' }),
  'error.jobMissing': msg({ id: 'error.jobMissing', message: 'This job no longer exists.' }),
  'error.live': msg({ id: 'error.live', message: 'Live updates stopped. Reload the page.' }),
  'error.operatorsOnly': msg({ id: 'error.operatorsOnly', message: 'Only operators can do this.' }),
  'error.collectionsFixed': msg({
    id: 'error.collectionsFixed',
    message: "Members' fields are set by Gatehouse and can't be changed here.",
  }),

  // The server's own sentences, already written for people: the same words, with an id.
  'server.confirm': msg({ id: 'server.confirm', message: "Confirm it's you to continue." }),
  'server.inviteUnlimited': msg({
    id: 'server.inviteUnlimited',
    message: 'Only the initial user can generate unlimited invite codes.',
  }),
  'server.initialUserOperators': msg({
    id: 'server.initialUserOperators',
    message: 'Only the initial user can make or remove operators.',
  }),
  'server.viewingAs': msg({
    id: 'server.viewingAs',
    message: 'Only the member can do this: it cannot be done while viewing as them.',
  }),
  'server.setUpAppFirst': msg({
    id: 'server.setUpAppFirst',
    message: 'Set up the authenticator app first.',
  }),
  'server.appNotSaved': msg({
    id: 'server.appNotSaved',
    message: 'The app could not be saved: check the fields.',
  }),
  'server.initialNotDeleted': msg({
    id: 'server.initialNotDeleted',
    message: 'The initial user cannot be deleted.',
  }),
  'server.initialIsOperator': msg({
    id: 'server.initialIsOperator',
    message: 'The initial user is always an operator.',
  }),
  'server.initialTwoStep': msg({
    id: 'server.initialTwoStep',
    message: "The initial user's two-step sign-in can only be reset from the command line.",
  }),
  'server.alreadyVerified': msg({
    id: 'server.alreadyVerified',
    message: "The member's email is already verified.",
  }),
  'server.providerUnreachable': msg({
    id: 'server.providerUnreachable',
    message: 'The sign-in provider could not be reached. Please try again later.',
  }),
  'server.providerSlow': msg({
    id: 'server.providerSlow',
    message: 'The sign-in provider did not answer in time. Please try again.',
  }),
  'server.disabled': msg({ id: 'server.disabled', message: 'This account has been disabled.' }),
  'server.alreadyMember': msg({
    id: 'server.alreadyMember',
    message: 'This address is already a member.',
  }),
  'server.notAGate': msg({
    id: 'server.notAGate',
    message: 'This address is not one of the apps Gatehouse protects.',
  }),
  'server.inviteUsed': msg({
    id: 'server.inviteUsed',
    message: 'This invite code has already been used.',
  }),
  'server.nothingToReset': msg({
    id: 'server.nothingToReset',
    message: 'This member has neither two-step sign-in nor a passkey.',
  }),
  'server.otherMember': msg({
    id: 'server.otherMember',
    message: 'This sign-in was started by another member. Go back to the app and try again.',
  }),
  'server.twoStepOn': msg({ id: 'server.twoStepOn', message: 'Two-step sign-in is already on.' }),
  'server.twoStepOff': msg({ id: 'server.twoStepOff', message: 'Two-step sign-in is not on.' }),
  'server.unknownStatus': msg({
    id: 'server.unknownStatus',
    message: 'Choose verified, unverified or disabled.',
  }),
  'server.verifyFirst': msg({ id: 'server.verifyFirst', message: 'Verify your email first.' }),
  'server.notOwnTwoStep': msg({
    id: 'server.notOwnTwoStep',
    message:
      'You cannot reset your own two-step sign-in: turn it off or remove passkeys in Settings.',
  }),
  'server.viewDisabled': msg({
    id: 'server.viewDisabled',
    message: 'You cannot view as a disabled member: enable them first.',
  }),
  'server.viewOperator': msg({
    id: 'server.viewOperator',
    message: 'You cannot view as an operator: only as a member.',
  }),
  'server.viewInitial': msg({
    id: 'server.viewInitial',
    message: 'You cannot view as the initial user.',
  }),
  'server.viewSelf': msg({ id: 'server.viewSelf', message: 'You cannot view as yourself.' }),
} as const;

export type MessageId = keyof typeof MESSAGES;

/** A text of the catalogue, its `{name}` places filled from `params`. */
export function say(id: MessageId, params: Record<string, unknown> = {}): string {
  const { id: key, message } = MESSAGES[id];
  return i18n._(key, params, { message });
}

/** A field error's text by code; an object picks by field name (`_` for any other field). */
type FieldRule = MessageId | { _: MessageId; [field: string]: MessageId };

/** Every field error code the server sends, PocketBase's and ours. */
export const FIELD_CODES: Record<string, FieldRule> = {
  // PocketBase's required rule also refuses a 0: a setting's count, time or size must be above it.
  validation_required: {
    maxRequests: 'field.positiveNumber',
    timeout: 'field.positiveNumber',
    maxBodySize: 'field.positiveNumber',
    _: 'field.required',
  },
  validation_is_email: 'field.email',
  validation_invalid_email: 'field.email',
  validation_min_text_constraint: 'field.tooShort',
  validation_max_text_constraint: 'field.tooLong',
  validation_length_out_of_range: 'field.lengthRange',
  validation_length_too_long: 'field.tooLongPlain',
  validation_values_mismatch: { passwordConfirm: 'field.passwordsDiffer', _: 'field.mismatch' },
  validation_not_unique: {
    email: 'field.emailTaken',
    newEmail: 'field.emailTaken',
    _: 'field.taken',
  },
  validation_invalid_token: 'field.badLink',
  validation_invalid_token_claims: 'field.badLink',
  validation_invalid_invite_code: 'field.badInviteCode',
  validation_invalid_password: 'field.wrongPassword',
  validation_invalid_old_password: 'field.wrongCurrentPassword',
  validation_invalid_code: 'field.wrongCode',
  validation_invalid_mfa_id: 'field.signInExpired',
  validation_invalid_passkey: 'field.passkeyRefused',
  validation_number_out_of_range: 'field.numberRange',
  validation_min_greater_equal_than_required: 'field.numberAtLeast',
  validation_max_less_equal_than_required: 'field.numberAtMost',
  validation_password_too_common: 'field.passwordTooCommon',
  validation_account_not_verified: 'field.notVerified',
  validation_already_member: 'field.alreadyMember',
  validation_backup_name_exists: 'field.backupExists',
  validation_match_invalid: 'field.backupName',
  validation_invalid_file_name: 'field.backupName',
  validation_file_size_limit: 'field.fileTooLarge',
  validation_invalid_mime_type: 'field.fileType',
  validation_invalid_file: 'field.fileUnreadable',
  validation_invalid_backup: 'field.notABackup',
  validation_in_invalid: 'field.choose',
  validation_not_in_invalid: { newEmail: 'field.sameEmail', _: 'field.choose' },
  validation_invalid_cron: 'field.schedule',
  validation_is_url: 'field.url',
  validation_is_host: 'field.host',
  validation_invalid_format: 'field.format',
  validation_invalid_provider: 'field.provider',
  validation_one_proof: 'field.oneProof',
  validation_invalid_auth_collection: 'field.wrongCollection',
  // Operator-facing sentences only the server can make: which address, which variable, how many.
  validation_invalid_url: 'field.detail',
  validation_invalid_redirect_url: 'field.detail',
  validation_invalid_value: 'field.detail',
  validation_invalid_fields: 'field.detail',
  validation_too_many: 'field.detail',
  validation_locked_by_env: 'field.detail',
  // A list's filter in the console: where the filter goes wrong (`Unexpected character "%" at 7.`).
  validation_invalid_filter: 'field.detail',
  validation_invalid_sort: 'field.detail',
};

/** Every `message` the server sends for a whole request, by its words. */
export const SERVER_MESSAGES: Record<string, MessageId> = {
  // PocketBase's defaults by status (http/envelope.ts) and the errors' own.
  'Something went wrong while processing your request.': 'error.tryAgain',
  'Missing or invalid authentication.': 'error.signInAgain',
  'The request requires valid record authorization token.': 'error.signInAgain',
  'You are not allowed to perform this request.': 'error.notAllowed',
  "The requested resource wasn't found.": 'error.notFound',
  'Not found': 'error.notFound',
  Forbidden: 'error.notAllowed',
  'Request entity too large.': 'error.tooLarge',
  'Unsupported Content-Type.': 'error.tryAgain',
  'Too Many Requests.': 'error.tooMany',
  'The service is temporarily unavailable. Please try again shortly.': 'error.unavailable',
  'Service unavailable': 'error.unavailable',
  'Please complete the second authentication step.': 'error.secondStep',
  'An error occurred while loading the submitted data.': 'error.tryAgain',
  'An error occurred while validating the submitted data.': 'error.checkFields',
  'An error occurred while saving the new settings.': 'error.settingsNotSaved',
  'Failed to authenticate.': 'error.signInFailed',
  'Failed to create record.': 'error.accountNotCreated',
  'Failed to create backup.': 'error.backupNotCreated',
  'Failed to restore the backup.': 'error.backupNotRestored',
  'Failed to send the test email.': 'error.testEmailFailed',
  'Invalid filter format.': 'error.filter',
  'Invalid or already deleted backup file.': 'error.backupMissing',
  'Missing or invalid backup file.': 'error.backupMissing',
  'The backup is currently being used and cannot be deleted.': 'error.backupInUse',
  'Try again later - another backup/restore process has already been started': 'error.backupBusy',
  'Try again later - another backup/restore process has already been started.': 'error.backupBusy',
  'Invalid or expired OTP.': 'error.codeWrong',
  'Too many attempts, please try again later with a new OTP.': 'error.codeSpent',
  'Invalid realtime client.': 'error.live',
  'Missing or invalid client id.': 'error.appMissing',
  'Missing or invalid cron job.': 'error.jobMissing',
  'Only superusers can perform this action.': 'error.operatorsOnly',
  'Insufficient permissions to access the resource.': 'error.notAllowed',
  'The authorized record is not allowed to perform this action.': 'error.notAllowed',
  "The current and the previous request authorization don't match.": 'error.sessionChanged',
  "Gatehouse's collections are fixed: users is the only one, and the server defines its fields and rules.":
    'error.collectionsFixed',
  // The batch API's (no screen sends batches; a program using the API reads these).
  'Batch requests are not allowed.': 'error.notAllowed',
  'Failed to read the submitted batch data.': 'error.tryAgain',
  'Invalid batch request data.': 'error.tryAgain',
  'Batch transaction failed.': 'error.tryAgain',
  'Batch request failed.': 'error.tryAgain',
  'Missing collection context.': 'error.notFound',
  // Ours, already in product language.
  "Confirm it's you to continue.": 'server.confirm',
  'Only the initial user can generate unlimited invite codes.': 'server.inviteUnlimited',
  'Only the initial user can make or remove operators.': 'server.initialUserOperators',
  'Only the member can do this: it cannot be done while viewing as them.': 'server.viewingAs',
  'Set up the authenticator app first.': 'server.setUpAppFirst',
  'The app could not be saved: check the fields.': 'server.appNotSaved',
  'The initial user cannot be deleted.': 'server.initialNotDeleted',
  'The initial user is always an operator.': 'server.initialIsOperator',
  "The initial user's two-step sign-in can only be reset from the command line.":
    'server.initialTwoStep',
  "The member's email is already verified.": 'server.alreadyVerified',
  'The sign-in provider could not be reached. Please try again later.':
    'server.providerUnreachable',
  'The sign-in provider did not answer in time. Please try again.': 'server.providerSlow',
  'This account has been disabled.': 'server.disabled',
  'This address is already a member.': 'server.alreadyMember',
  'This address is not one of the apps Gatehouse protects.': 'server.notAGate',
  'This invite code has already been used.': 'server.inviteUsed',
  'This member has neither two-step sign-in nor a passkey.': 'server.nothingToReset',
  'This sign-in was started by another member. Go back to the app and try again.':
    'server.otherMember',
  'Two-step sign-in is already on.': 'server.twoStepOn',
  'Two-step sign-in is not on.': 'server.twoStepOff',
  'Unknown status: use verified, unverified or disabled.': 'server.unknownStatus',
  'Verify your email first.': 'server.verifyFirst',
  'You cannot reset your own two-step sign-in: turn it off or remove passkeys in Settings.':
    'server.notOwnTwoStep',
  'You cannot view as a disabled member: enable them first.': 'server.viewDisabled',
  'You cannot view as an operator: only as a member.': 'server.viewOperator',
  'You cannot view as the initial user.': 'server.viewInitial',
  'You cannot view as yourself.': 'server.viewSelf',
};

/** The text for one refused field (`field` is its name), or undefined when it has no code. */
export function refusedFieldText(field: string, problem: RefusedField): string | undefined {
  const rule = problem.code ? FIELD_CODES[problem.code] : undefined;
  // A code the catalogue does not know yet: the server's words rather than nothing.
  if (!rule) return problem.message;
  const params: Record<string, unknown> = { ...problem.params, detail: problem.message ?? '' };
  const id = typeof rule === 'object' ? (rule[field] ?? rule._) : rule;
  // A length rule whose limits the server did not give reads without them.
  const missing = PLACES[id]?.some((name) => params[name] === undefined || params[name] === null);
  return missing ? (problem.message ?? say('field.tooLongPlain')) : say(id, params);
}

/** The parameters a text's places need (a text without one would read "Use at least  characters"). */
const PLACES: Partial<Record<MessageId, string[]>> = {
  'field.tooShort': ['min'],
  'field.tooLong': ['max'],
  'field.lengthRange': ['min', 'max'],
  'field.numberRange': ['min', 'max'],
  'field.numberAtLeast': ['min'],
  'field.numberAtMost': ['max'],
};

/** What the server said of the whole request, in product language; undefined when it said nothing. */
export function serverText(err: unknown): string | undefined {
  const said = messageOf(err);
  if (said === undefined) return undefined;
  const id = SERVER_MESSAGES[said];
  return id ? say(id) : said;
}

/** The text for one refused field of `err`, if the server refused it. */
export function fieldText(err: unknown, field: string, section?: string): string | undefined {
  const problem = fieldErrorsOf(err, section)[field];
  return problem && refusedFieldText(field, problem);
}

/** The texts for every refused field of `err` (of `section`, for a form in parts). */
export function fieldTexts(err: unknown, section?: string): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [field, problem] of Object.entries(fieldErrorsOf(err, section))) {
    const text = refusedFieldText(field, problem);
    if (text) texts[field] = text;
  }
  return texts;
}
