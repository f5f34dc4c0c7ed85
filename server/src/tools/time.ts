/** PocketBase's date format: UTC, `YYYY-MM-DD HH:MM:SS.mmmZ`. Sorts correctly as text. */
export function formatDate(date: Date): string {
  return date.toISOString().replace('T', ' ');
}

export function nowString(): string {
  return formatDate(new Date());
}

/** The date `ms` milliseconds from now (negative for the past), in the stored format. */
export function fromNow(ms: number): string {
  return formatDate(new Date(Date.now() + ms));
}
