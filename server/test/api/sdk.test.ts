import { sdkClient, sdkError } from '../support/sdk.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, subjects } from '../support/contract.js';
import { tokenFromMail } from '../support/mail.js';
import {
  APP_URL,
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
} from '../support/server.js';

/** The web app's client: the official SDK, auto-cancellation off. */
describe.each(DATABASES)('the official pocketbase SDK against the server on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
    await t.initialUser();
  });
  afterAll(() => t?.close());

  it('walks sign-up → verification → sign-in → invite codes → delete, as the web app does', async () => {
    const pb = sdkClient(t.url);
    const email = uniqueEmail('sdk');
    const password = strongPassword();
    const code = await t.newCode();

    const created = await pb.collection('users').create({
      email,
      password,
      passwordConfirm: password,
      inviteCode: code,
    });
    expect(created.verified).toBe(false);
    expect(pb.authStore.isValid).toBe(false);

    // Unverified sign-in: the store holds verified:false.
    const auth = await pb.collection('users').authWithPassword(email, password);
    expect(auth.token).toBe(pb.authStore.token);
    expect(pb.authStore.isValid).toBe(true);
    expect(pb.authStore.record?.email).toBe(email);
    expect(pb.authStore.record?.verified).toBe(false);

    // Unverified: the invite endpoint refuses.
    const refused = await sdkError(pb.send('/api/invite-codes', {}));
    expect(refused.status).toBe(403);

    expect(await pb.collection('users').requestVerification(email)).toBe(true);
    const mail = await t.mail.waitForMailTo(email, subjects().verify);
    const token = tokenFromMail(mail, `${APP_URL}/verify-email?token=`);
    expect(await pb.collection('users').confirmVerification(token)).toBe(true);
    // The SDK flips the stored record because the token's id and collectionId match it.
    expect(pb.authStore.record?.verified).toBe(true);

    const codes = await pb.send<{ codes: { code: string }[] }>('/api/invite-codes', {});
    expect(codes.codes).toHaveLength(5);

    const refreshed = await pb.collection('users').authRefresh();
    expect(refreshed.record.verified).toBe(true);
    expect(pb.authStore.token).toBe(refreshed.token);

    const own = await pb.collection('users').getOne(auth.record.id);
    expect(own.email).toBe(email);

    expect(await pb.collection('users').delete(auth.record.id)).toBe(true);
    // The SDK clears its store after deleting the signed-in user (needs collectionId/Name).
    expect(pb.authStore.token).toBe('');
    expect(pb.authStore.record).toBeNull();

    const gone = await sdkError(pb.collection('users').authWithPassword(email, password));
    expect(gone.status).toBe(400);
    expect(gone.response).toEqual({ data: {}, message: MSG.auth, status: 400 });
  });

  it('password reset through the SDK; the old session dies', async () => {
    const user = await t.verifiedUser();
    const pb = sdkClient(t.url);
    await pb.collection('users').authWithPassword(user.email, user.password);
    const oldToken = pb.authStore.token;

    expect(await sdkClient(t.url).collection('users').requestPasswordReset(user.email)).toBe(true);
    const mail = await t.mail.waitForMailTo(user.email, subjects().reset);
    const token = tokenFromMail(mail, `${APP_URL}/reset-password?token=`);
    const fresh = 'Quiet-Harbour-5150';
    expect(
      await sdkClient(t.url).collection('users').confirmPasswordReset(token, fresh, fresh),
    ).toBe(true);

    const dead = await sdkError(pb.collection('users').authRefresh());
    expect(dead.status).toBe(401);
    expect(pb.authStore.token).toBe(oldToken);

    const again = sdkClient(t.url);
    await again.collection('users').authWithPassword(user.email, fresh);
    expect(again.authStore.record?.id).toBe(user.id);
  });

  it('change password with update(): the other device is signed out, this one goes on', async () => {
    const user = await t.verifiedUser();
    const pb = sdkClient(t.url);
    await pb.collection('users').authWithPassword(user.email, user.password);
    const other = sdkClient(t.url);
    await other.collection('users').authWithPassword(user.email, user.password);
    // The web app reads the fresh token for this device from the answer's header.
    let fresh = '';
    pb.afterSend = (response, data) => {
      fresh = response.headers.get('x-gatehouse-token') ?? fresh;
      return data;
    };
    const next = 'Copper-Lantern-8841';
    const record = await pb
      .collection('users')
      .update(user.id, { oldPassword: user.password, password: next, passwordConfirm: next });
    expect(record).toMatchObject({ id: user.id, email: user.email });
    expect(fresh).not.toBe('');
    pb.authStore.save(fresh, pb.authStore.record);
    await pb.collection('users').authRefresh();
    expect((await sdkError(other.collection('users').authRefresh())).status).toBe(401);

    const wrong = await sdkError(
      pb
        .collection('users')
        .update(user.id, { oldPassword: 'nope-nope-1', password: next, passwordConfirm: next }),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.response.data.oldPassword.code).toBe('validation_invalid_old_password');
  });

  it('change email with requestEmailChange() and confirmEmailChange()', async () => {
    const user = await t.verifiedUser();
    const pb = sdkClient(t.url);
    await pb.collection('users').authWithPassword(user.email, user.password);
    const newEmail = uniqueEmail('sdk-moved');
    expect(await pb.collection('users').requestEmailChange(newEmail)).toBe(true);
    const mail = await t.mail.waitForMailTo(newEmail, subjects().emailChange);
    const token = tokenFromMail(mail, `${APP_URL}/confirm-email-change?token=`);
    // The SDK clears its auth store when it confirms a change of the signed-in account's email.
    expect(await pb.collection('users').confirmEmailChange(token, user.password)).toBe(true);
    expect(pb.authStore.token).toBe('');
    const again = sdkClient(t.url);
    await again.collection('users').authWithPassword(newEmail, user.password);
    expect(again.authStore.record?.email).toBe(newEmail);
  });

  it('field errors reach the SDK as ClientResponseError.response.data', async () => {
    const pb = sdkClient(t.url);
    const err = await sdkError(
      pb.collection('users').create({
        email: 'bad',
        password: 'Tidal-Lantern-9',
        passwordConfirm: 'Tidal-Lantern-9',
        inviteCode: 'whatever',
      }),
    );
    expect(err.status).toBe(400);
    expect(err.response.message).toBe(MSG.create);
    expect(err.response.data.email.code).toBe('validation_is_email');
  });

  it('pb.send("/api/invite-codes") authenticates with the stored token', async () => {
    const user = await t.verifiedUser();
    const pb = sdkClient(t.url);
    const guest = await sdkError(pb.send('/api/invite-codes', {}));
    expect(guest.status).toBe(401);
    await pb.collection('users').authWithPassword(user.email, user.password);
    const res = await pb.send<{ codes: unknown[] }>('/api/invite-codes', {});
    expect(res.codes).toHaveLength(5);
    expect(await pb.health.check()).toEqual({ code: 200, message: 'API is healthy.', data: {} });
  });
});
