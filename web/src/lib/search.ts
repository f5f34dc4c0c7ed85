/** A search param read as a string (never a number: invite codes and tokens may be all digits). */
export function stringParam(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A search param that must be one of `values`, else undefined. */
export function oneOfParam<T extends string>(values: readonly T[], value: unknown): T | undefined {
  const text = stringParam(value);
  return values.find((v) => v === text);
}

/** A trimmed, non-empty search param, else undefined. */
export function textParam(value: unknown): string | undefined {
  return stringParam(value)?.trim() || undefined;
}

/** A page number from the address bar: a whole number above 1 (as a string), else undefined. */
export function pageParam(value: unknown): string | undefined {
  const text = stringParam(value);
  return text && /^\d{1,6}$/.test(text) && Number(text) > 1 ? String(Number(text)) : undefined;
}

/** Search params without the empty ones (so the address bar shows only what is set). */
export function withoutEmpty<T extends object>(search: T): T {
  return Object.fromEntries(
    Object.entries(search).filter(([, v]) => v !== undefined && v !== ''),
  ) as T;
}
