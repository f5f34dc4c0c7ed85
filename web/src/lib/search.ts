/** A search param read as a string (never a number: invite codes and tokens may be all digits). */
export function stringParam(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}
