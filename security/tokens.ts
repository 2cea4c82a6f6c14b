// Bearer secrets (API keys, widget tokens): random, shown once, stored only as SHA-256. Lookup is
// by hash, so the database index does the matching and no secret is compared byte by byte in
// code; where two secrets are compared in code, use `safeEqual`.
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBytesPooled } from './random.ts';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Unbiased random string over [0-9a-z]. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytesPooled(length * 2)) {
      if (byte < 252) out += ALPHABET[byte % 36];
      if (out.length === length) break;
    }
  }
  return out;
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const ba = Buffer.isBuffer(a) ? a : Buffer.from(a);
  const bb = Buffer.isBuffer(b) ? b : Buffer.from(b);
  // Hash first so lengths match and the comparison time does not depend on where they differ.
  return timingSafeEqual(createHash('sha256').update(ba).digest(), createHash('sha256').update(bb).digest());
}

export const API_KEY_PREFIX = 'hg_live_';
export const WIDGET_TOKEN_PREFIX = 'wst_';

export function newApiKeySecret(): string {
  return API_KEY_PREFIX + randomToken(40);
}

export function newWidgetToken(): string {
  return WIDGET_TOKEN_PREFIX + randomToken(43);
}
