import { signUpWithProvider } from '../accounts/service.js';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  ACCOUNT_DISABLED,
  ForbiddenError,
  type FieldErrors,
  ValidationError,
  VERIFY_EMAIL_FIRST,
} from '../core/errors.js';
import { assertFresh } from '../core/reauth.js';
import { type Auth, findUserByEmail, findUserById } from '../core/users.js';
import { isUniqueViolation } from '../db/connect.js';
import type { User } from '../db/schema.js';
import { LOADING_FAILED } from '../http/envelope.js';
import type { ProviderClients, ProviderUser } from './clients.js';
import { findIdentity, identitiesOf, linkIdentity } from './identities.js';
import { PROVIDER_LIMITS } from './limits.js';

/** Where every provider sends the member back (the SDK's `redirectURL`). */
export const REDIRECT_PATH = '/api/oauth2-redirect';

export interface ProviderSignInInput {
  provider: string;
  code: string;
  codeVerifier: string;
  redirectURL: string;
  createData?: Record<string, unknown>;
}

export interface ProviderSignInResult {
  user: User;
  providerUser: ProviderUser;
  /** A new account was made (PocketBase's meta.isNew). */
  isNew: boolean;
  /** The identity was connected to the signed-in member: their session goes on, none is opened. */
  connected: boolean;
  /**
   * The signed-in member signed in again with a provider already theirs: their session goes on,
   * confirmed afresh ("Confirm it's you" for members whose way in is a provider).
   */
  reauthenticated: boolean;
}

const AUTH_FAILED = 'Failed to authenticate.';

/**
 * auth-with-oauth2: the code is exchanged (PKCE) and the provider's user read; then
 * - an identity already linked signs its member in (through the sign-in gate, core/sign-in.ts:
 *   disabled 403, two-step 401 + mfaId); with that member's own token, it confirms their session
 *   afresh instead ("Confirm it's you");
 * - with a member's fresh token and a verified address, a new identity is connected to that member
 *   (their session goes on);
 * - a new identity whose email has an account is linked to it only when the provider says the
 *   email is verified and the account is verified too (PocketBase's CVE-2024-38351: an account
 *   someone else made with that email must not be taken over, nor take over the identity);
 * - otherwise it is a sign-up: only with a valid invite code in createData.inviteCode, through
 *   accounts/'s sign-up with its checks, messages and single-use transaction.
 * Rules in docs/decisions/0036.
 */
export async function signInWithProvider(
  ctx: AppContext,
  clients: ProviderClients,
  input: ProviderSignInInput,
  client: Client,
  auth: Auth | undefined,
): Promise<ProviderSignInResult> {
  await ctx.limiter.check(PROVIDER_LIMITS.signIn, client.network);
  const errors: FieldErrors = {};
  const provider = clients.find(input.provider);
  if (input.provider === '') {
    errors.provider = { code: 'validation_required', message: 'Cannot be blank.' };
  } else if (!provider) {
    errors.provider = {
      code: 'validation_invalid_provider',
      message: `Provider with name ${input.provider.slice(0, 100)} is missing or is not enabled.`,
    };
  }
  if (input.code === '') errors.code = { code: 'validation_required', message: 'Cannot be blank.' };
  if (!errors.provider && input.redirectURL !== `${ctx.config.appUrl}${REDIRECT_PATH}`) {
    errors.redirectURL = {
      code: 'validation_invalid_redirect_url',
      message: `Must be ${ctx.config.appUrl}${REDIRECT_PATH}.`,
    };
  }
  if (Object.keys(errors).length > 0 || !provider)
    throw new ValidationError(LOADING_FAILED, errors);
  const createData = input.createData ?? {};
  const inviteCode = createData.inviteCode ?? '';
  const emailVisibility = createData.emailVisibility;
  const language = createData.language ?? '';
  if (
    typeof inviteCode !== 'string' ||
    typeof language !== 'string' ||
    (emailVisibility !== undefined && typeof emailVisibility !== 'boolean') ||
    input.code.length > 2048 ||
    input.codeVerifier.length > 256
  ) {
    throw new ValidationError(LOADING_FAILED);
  }

  const providerUser = await clients.exchange(provider, input);
  const identity = {
    provider: provider.name,
    displayName: provider.displayName,
    providerId: providerUser.id,
  };
  const fail = async (reason: string, userId: string | null, error: Error): Promise<never> => {
    await recordEvent(ctx.db, {
      type: 'sign_in',
      userId,
      client,
      outcome: 'failure',
      detail: { method: 'oauth2', provider: provider.name, reason },
    });
    throw error;
  };
  const done = (user: User, extra: Partial<ProviderSignInResult> = {}): ProviderSignInResult => ({
    user,
    providerUser,
    isNew: false,
    connected: false,
    reauthenticated: false,
    ...extra,
  });

  const linked = await findIdentity(ctx.db, provider.name, providerUser.id);
  if (linked) {
    const user = await findUserById(ctx, linked.user_id);
    if (!user) throw new ValidationError(AUTH_FAILED);
    if (auth) {
      if (auth.user.id === user.id) {
        return done(user, { connected: true, reauthenticated: true });
      }
      return fail(
        'identity_of_another_member',
        auth.user.id,
        new ValidationError(
          `This ${provider.displayName} account is already connected to another member.`,
        ),
      );
    }
    return done(user);
  }

  const link = async (user: User, how: 'email' | 'connect') => {
    try {
      await ctx.db
        .transaction()
        .execute((trx) => linkIdentity(ctx, trx, user, identity, client, how));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const mine = (await identitiesOf(ctx.db, user.id)).find((i) => i.provider === provider.name);
      return fail(
        'already_connected',
        user.id,
        new ValidationError(
          mine
            ? `The account is already connected to another ${provider.displayName} account. Disconnect it first.`
            : `This ${provider.displayName} account is already connected to another member.`,
        ),
      );
    }
    ctx.mailQueued();
  };

  // Connecting a provider while signed in (Settings): the member's own session goes on. A new way
  // in needs a fresh session and a verified address (docs/decisions/0046).
  if (auth) {
    assertFresh(ctx, auth);
    if (auth.user.verified !== 1) throw new ForbiddenError(VERIFY_EMAIL_FIRST);
    await link(auth.user, 'connect');
    return done(auth.user, { connected: true });
  }

  const existing = providerUser.email ? await findUserByEmail(ctx, providerUser.email) : undefined;
  if (existing && providerUser.emailVerified) {
    if (existing.verified !== 1) {
      // Whoever made that account has not shown they own the email: never link to it.
      return fail(
        'account_not_verified',
        existing.id,
        new ValidationError(AUTH_FAILED, {
          email: {
            code: 'validation_account_not_verified',
            message:
              'An account with this email exists but is not verified yet. Sign in with its password (or reset it) first.',
          },
        }),
      );
    }
    if (existing.disabled === 1) {
      return fail('disabled', existing.id, new ForbiddenError(ACCOUNT_DISABLED));
    }
    await link(existing, 'email');
    return done(existing);
  }

  // A new member (an email the provider has not verified never reaches an existing account: it
  // meets sign-up's answers, which need a valid code and are bounded per code).
  const user = await signUpWithProvider(
    ctx,
    {
      email: providerUser.email,
      emailVerified: providerUser.emailVerified,
      inviteCode,
      emailVisibility,
      language,
      provider: provider.name,
      link: (trx, created) => linkIdentity(ctx, trx, created, identity, client, 'sign_up'),
    },
    client,
  );
  return done(user, { isNew: true });
}
