import { statSync } from 'node:fs';
import { expect } from 'vitest';
import { PATHS } from './contract.js';
import type { TestServer, User } from './server.js';

/** The restore drill's steps that are the same on SQLite and PostgreSQL (system/restore*.test.ts). */

/** A file's permission bits, e.g. '600'. */
export const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8);

/**
 * After the backup: the member resets the password (which ends the token they had), signs in
 * again, and someone new joins. None of it may survive the restore.
 */
export async function changesAfterBackup(t: TestServer, member: User) {
  const newPassword = 'Harbour-Lights-2719';
  const reset = await t.post(PATHS.confirmReset, {
    token: await t.resetToken(member.email),
    password: newPassword,
    passwordConfirm: newPassword,
  });
  expect(reset.status, reset.text).toBe(204);
  expect((await t.post(PATHS.refresh, {}, member.token)).status, 'ended by the reset').toBe(401);
  const afterReset = await t.tokenFor({ email: member.email, password: newPassword });
  const newcomer = await t.verifiedUser();
  return { newPassword, afterReset, newcomer };
}

/**
 * After the restore (the server started again): the backed-up data is back (the old password
 * works, the new one and the newcomer do not), and every token from before the restore is
 * refused, including the one the reset had ended.
 */
export async function expectBackedUpData(
  t: TestServer,
  member: User,
  after: Awaited<ReturnType<typeof changesAfterBackup>>,
  tokens: Record<string, string>,
) {
  expect((await t.login(member.email, member.password)).status).toBe(200);
  expect((await t.login(member.email, after.newPassword)).status).toBe(400);
  expect((await t.login(after.newcomer.email, after.newcomer.password)).status).toBe(400);
  for (const [name, token] of Object.entries(tokens)) {
    expect((await t.post(PATHS.refresh, {}, token)).status, name).toBe(401);
  }
}
