import { pb } from '../../lib/pb';

/** Deletes the account. The caller then ends the session (the SDK may already have). */
export async function deleteAccount(userId: string): Promise<void> {
  await pb.collection('users').delete(userId);
}

/** "2026-08-14 07:16:55.123Z" (the server's UTC format) → "August 14, 2026". */
export function formatCreated(created: string | undefined): string {
  if (!created) return 'Unknown';
  const date = new Date(created.trim().replace(' ', 'T'));
  if (Number.isNaN(date.getTime())) return created;
  return date.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' });
}
