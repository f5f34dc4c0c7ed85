/** "2026-08-14 07:16:55.123Z" (the server's UTC format) → a Date, or null when it is not one. */
export function serverDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const date = new Date(value.trim().replace(' ', 'T'));
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A server date and time in the member's own time zone: "Nov 23, 2026, 10:15 AM". */
export function formatDateTime(value: string | null | undefined): string {
  const date = serverDate(value);
  if (!date) return value || 'Unknown';
  return date.toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });
}
