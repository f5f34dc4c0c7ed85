import { createRequire } from 'node:module';

/**
 * Loads a CommonJS dependency at its first use instead of at start. The clients for PostgreSQL,
 * Redis and SMTP, the QR encoder and the common-password list cost about half a second to load
 * together, and most servers need few of them, or only later (docs/decisions/0041).
 * Node caches the module, so later calls cost a map lookup.
 */
export const lazyRequire = createRequire(import.meta.url) as <T>(id: string) => T;
