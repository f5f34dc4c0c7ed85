import { newPassword, uniqueEmail, type Member } from './api';

/**
 * A server with no mail server prints each mail to its console instead ("mail printed (SMTP_URL
 * is not set)", one JSON line with the mail's link): the operator reads the link there. This signs
 * up with `code` and confirms the email through the link the server printed.
 */
export async function signUpWithPrintedMail(
  base: string,
  code: string,
  output: () => string,
): Promise<Member> {
  const email = uniqueEmail('initial');
  const password = newPassword();
  const send = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as { id: string } | undefined;
  };
  const record = await send('/api/collections/users/records', {
    email,
    password,
    passwordConfirm: password,
    inviteCode: code,
  });
  await send('/api/collections/users/request-verification', { email });
  const printed = new RegExp(`"link":"${base}/verify-email\\?token=([^"]+)"`);
  const deadline = Date.now() + 15_000;
  let token: string | undefined;
  while (!token) {
    token = printed.exec(output())?.[1];
    if (token) break;
    if (Date.now() > deadline) throw new Error(`${base} printed no verification link`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await send('/api/collections/users/confirm-verification', { token });
  return { email, password, id: record!.id };
}
