import { describe, expect, it } from 'vitest';
import { shouldRetry } from './query-client';

/** The SDK's error as the query sees it: its HTTP status (0 when nothing answered). */
const failed = (status: number) => Object.assign(new Error('failed'), { status, response: {} });

describe('which failed reads are tried again', () => {
  it('an answer about the request (4xx) is shown at once, never retried', () => {
    for (const status of [400, 401, 403, 404, 429]) {
      expect(shouldRetry(0, failed(status)), String(status)).toBe(false);
    }
  });

  it('a network failure or a server error is tried again, three times at most', () => {
    for (const status of [0, 500, 502, 503]) {
      expect(shouldRetry(0, failed(status)), String(status)).toBe(true);
      expect(shouldRetry(3, failed(status)), String(status)).toBe(false);
    }
    expect(shouldRetry(1, new TypeError('Failed to fetch'))).toBe(true);
  });
});
