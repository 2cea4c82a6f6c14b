// Retry-After as the ACME client (seconds) and the webhook sender (milliseconds) read it.
import { describe, expect, it } from '@jest/globals';
import { retryAfterMs, retryAfterSeconds } from '../model/retry-after.ts';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP dates as milliseconds from now, never negative', () => {
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs(' 120 ', now)).toBe(120_000);
    expect(retryAfterMs(['3', '9'], now)).toBe(3000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:01 GMT', now)).toBe(1000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs('  ', now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
    expect(retryAfterMs('12345678901', now)).toBeNull();
  });

  it('as whole seconds rounds up and drops zero, past and unreadable values', () => {
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds('0', now)).toBeUndefined();
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:00 GMT', now)).toBeUndefined();
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:02 GMT', now - 500)).toBe(3);
    expect(retryAfterSeconds('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBeUndefined();
    expect(retryAfterSeconds(['7'], now)).toBeUndefined();
    expect(retryAfterSeconds(7, now)).toBeUndefined();
    expect(retryAfterSeconds('', now)).toBeUndefined();
  });
});
