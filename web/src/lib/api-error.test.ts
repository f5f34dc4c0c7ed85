import { ClientResponseError } from 'pocketbase';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeServer, json, pbError } from '../test/fake-server';
import {
  fieldCodeOf,
  fieldErrorsOf,
  fieldMessageOf,
  isAbort,
  isNotConfirmed,
  messageOf,
  mfaIdOf,
  needsConfirmation,
  NOT_CONFIRMED_MESSAGE,
  statusOf,
} from './api-error';
import { pb } from './pb';
import { setConfirmer } from './reauth';

/**
 * The errors are the SDK's own: the real client asks a fake server at the HTTP boundary
 * (test/fake-server.ts) and the module reads what it throws.
 */
async function failureOf(answer: () => Response): Promise<unknown> {
  fakeServer({ 'POST /api/try': answer });
  try {
    await pb.send('/api/try', { method: 'POST' });
  } catch (err) {
    return err;
  }
  throw new Error('The request did not fail');
}

describe('lib/api-error', () => {
  let stopConfirming = () => {};
  afterEach(() => stopConfirming());

  it('reads the status, the message and the refused fields of the server’s envelope', async () => {
    const err = await failureOf(() =>
      pbError(400, 'Failed to create record.', {
        email: { code: 'validation_invalid_email', message: 'Must be a valid email address.' },
        password: { code: 'validation_min_text_constraint', message: '' },
      }),
    );
    expect(statusOf(err)).toBe(400);
    expect(messageOf(err)).toBe('Failed to create record.');
    expect(fieldErrorsOf(err)).toEqual({
      email: { code: 'validation_invalid_email', message: 'Must be a valid email address.' },
      password: { code: 'validation_min_text_constraint', message: undefined },
    });
    expect(fieldMessageOf(err, 'email')).toBe('Must be a valid email address.');
    expect(fieldCodeOf(err, 'password')).toBe('validation_min_text_constraint');
    expect(fieldMessageOf(err, 'password')).toBeUndefined();
    expect(fieldCodeOf(err, 'inviteCode')).toBeUndefined();
    expect(isAbort(err)).toBe(false);
  });

  it('gives no message where the server gave none, and no fields outside a failure', async () => {
    const err = await failureOf(() => json(500, {}));
    expect(statusOf(err)).toBe(500);
    expect(messageOf(err)).toBeUndefined();
    expect(fieldErrorsOf(err)).toEqual({});

    expect(statusOf(null)).toBeUndefined();
    expect(messageOf(undefined)).toBeUndefined();
    expect(fieldErrorsOf('text')).toEqual({});
    // Not the SDK's: a thrown Error speaks for itself; a status of its own is still read.
    expect(messageOf(new Error('No clipboard'))).toBe('No clipboard');
    expect(statusOf(Object.assign(new Error('options'), { status: 429 }))).toBe(429);
    expect(fieldErrorsOf(Object.assign(new Error('x'), { status: 400 }))).toEqual({});
  });

  it('reads the mfaId of a first step that asks for the second step', async () => {
    const err = await failureOf(() =>
      json(401, { data: {}, message: 'Failed to authenticate.', status: 401, mfaId: 'mfa1' }),
    );
    expect(mfaIdOf(err)).toBe('mfa1');
    expect(mfaIdOf(await failureOf(() => pbError(401, 'The request requires a token.')))).toBe(
      undefined,
    );
    expect(mfaIdOf(await failureOf(() => json(400, { mfaId: 'mfa1' })))).toBeUndefined();
  });

  it('tells a request that got no answer from one that was ended here', async () => {
    const offline = await failureOf(() => {
      throw new TypeError('Failed to fetch');
    });
    expect(statusOf(offline)).toBe(0);
    expect(isAbort(offline)).toBe(false);
    expect(messageOf(offline)).toBeUndefined();

    const ended = await failureOf(() => {
      throw new DOMException('The operation was aborted.', 'AbortError');
    });
    expect(isAbort(ended)).toBe(true);
    expect(isAbort(new DOMException('Prompt ended', 'AbortError'))).toBe(true);
    expect(isAbort(new DOMException('Closed', 'NotAllowedError'))).toBe(false);
  });

  it('knows the server’s "Confirm it’s you" and a member’s Cancel of it', async () => {
    const asked = await failureOf(() => pbError(403, "Confirm it's you to continue."));
    expect(needsConfirmation(asked)).toBe(true);
    expect(isNotConfirmed(asked)).toBe(false);
    expect(needsConfirmation(await failureOf(() => pbError(403, 'Not allowed.')))).toBe(false);

    // The member cancels the dialog: lib/pb.ts ends the action with the quiet note.
    stopConfirming = setConfirmer(() => Promise.resolve(false));
    const cancelled = await failureOf(() => pbError(403, "Confirm it's you to continue."));
    expect(isNotConfirmed(cancelled)).toBe(true);
    expect(needsConfirmation(cancelled)).toBe(false);
    expect(messageOf(cancelled)).toBe(NOT_CONFIRMED_MESSAGE);
    expect(isAbort(cancelled)).toBe(true);
    expect(isNotConfirmed(new ClientResponseError({ status: 403, response: {} }))).toBe(false);
  });
});
