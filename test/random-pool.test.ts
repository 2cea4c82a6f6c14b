// The pooled random source (security/random.ts) behind ids, tokens and the idempotent answers'
// IVs: every byte is handed out once, callers own their buffers, and the ids it feeds keep their
// format and the bit layout they had over `crypto.randomBytes` (newId's BigInt was replaced).
import { describe, expect, it } from '@jest/globals';
import { createDecipheriv } from 'node:crypto';
import { hasPrefix, newId } from '../db/ids.ts';
import { randomBytesPooled } from '../security/random.ts';
import { SecretBox } from '../security/secret-box.ts';
import { randomToken } from '../security/tokens.ts';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

describe('randomBytesPooled', () => {
  it('hands out the length asked for, never the same bytes twice, across many pool refills', () => {
    const seen = new Set<string>();
    let total = 0;
    // 16-byte draws over ~40 refills of the 4 KiB pool, sizes that do not divide it included.
    for (let i = 0; i < 10_000; i++) {
      const n = i % 3 === 0 ? 16 : i % 3 === 1 ? 12 : 10;
      const b = randomBytesPooled(n);
      expect(b.length).toBe(n);
      total += n;
      if (n === 16) {
        const hex = b.toString('hex');
        expect(seen.has(hex)).toBe(false);
        seen.add(hex);
      }
    }
    expect(total).toBeGreaterThan(4096 * 30);
  });

  it('gives each caller a buffer of its own: changing one does not change the next', () => {
    const a = randomBytesPooled(32);
    const copy = Buffer.from(a);
    a.fill(0);
    const b = randomBytesPooled(32);
    expect(b.equals(Buffer.alloc(32))).toBe(false);
    expect(b.equals(copy)).toBe(false);
  });

  it('is not all zeros where the pool was handed out before (the pool is refilled, not reused)', () => {
    // Drain well past one pool; zeroed bytes leaking back out would show as long zero runs.
    let zeros = 0;
    let bytes = 0;
    for (let i = 0; i < 2_000; i++) {
      const b = randomBytesPooled(24);
      bytes += b.length;
      for (const x of b) if (x === 0) zeros++;
    }
    // Uniform bytes: 1/256 are zero (≈ 188 of 48,000); a leak of zeroed pool would be thousands.
    expect(zeros).toBeLessThan(bytes / 256 * 2);
  });

  it('serves large and empty requests and refuses what is not a byte count', () => {
    expect(randomBytesPooled(0).length).toBe(0);
    const big = randomBytesPooled(10_000);
    expect(big.length).toBe(10_000);
    expect(new Set(big).size).toBeGreaterThan(200);
    expect(() => randomBytesPooled(-1)).toThrow(RangeError);
    expect(() => randomBytesPooled(1.5)).toThrow(RangeError);
  });
});

describe('what it feeds', () => {
  it('newId: prefix, 10 time digits, 16 random digits; distinct; the time part as before', () => {
    const ids = new Set<string>();
    const now = Date.UTC(2026, 10, 29, 4, 0, 0);
    for (let i = 0; i < 5_000; i++) ids.add(newId('domain', now));
    expect(ids.size).toBe(5_000);
    for (const id of ids) expect(hasPrefix(id, 'domain')).toBe(true);
    let t = now;
    let time = '';
    for (let i = 0; i < 10; i++) { time = CROCKFORD[t % 32] + time; t = Math.floor(t / 32); }
    for (const id of ids) expect(id.slice(4, 14)).toBe(time);
    // Every random digit position takes many values (a stuck 5-bit group would show here).
    for (let pos = 14; pos < 30; pos++) expect(new Set([...ids].map((id) => id[pos])).size).toBeGreaterThan(25);
  });

  it('randomToken keeps its alphabet and length', () => {
    for (let i = 0; i < 200; i++) expect(randomToken(40)).toMatch(/^[0-9a-z]{40}$/);
  });

  it('SecretBox: a fresh IV per seal, and what it seals opens', () => {
    const box = new SecretBox([{ id: 'k1', key: Buffer.alloc(32, 7) }]);
    const ivs = new Set<string>();
    for (let i = 0; i < 1_000; i++) {
      const sealed = box.seal(`answer ${i}`, 'org:1/key');
      ivs.add(sealed.ciphertext.subarray(0, 12).toString('hex'));
      if (i % 100 === 0) expect(box.open(sealed, 'org:1/key').toString()).toBe(`answer ${i}`);
    }
    expect(ivs.size).toBe(1_000);
    // And a wrong context does not open (the AAD still binds the row).
    const sealed = box.seal('x', 'org:1/a');
    const d = createDecipheriv('aes-256-gcm', Buffer.alloc(32, 7), sealed.ciphertext.subarray(0, 12));
    d.setAAD(Buffer.from('org:1/b'));
    d.setAuthTag(sealed.ciphertext.subarray(12, 28));
    d.update(sealed.ciphertext.subarray(28));
    expect(() => d.final()).toThrow();
  });
});
