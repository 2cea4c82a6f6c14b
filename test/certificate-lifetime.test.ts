// model/certificate-lifetime.ts: usable and renewal relative to lifetime, the brake's window,
// expiry notices — the pure rules the workflow and the activities share.
import { describe, expect, it } from '@jest/globals';
import {
  belowLifetimeFloor, dueExpiryNotices, dueOnArrival, expiryNoticeTimes, nextOrderAllowedAt, renewalFailureIsSerious, renewsAt, stillUsable,
} from '../model/certificate-lifetime.ts';

const S = 1000;
const DAY = 86_400 * S;
const cert = (lifetime: number, notBefore = 0) => ({ notBefore, notAfter: notBefore + lifetime });

describe('certificate lifetime', () => {
  it('renews at two thirds of any lifetime, 60 s to 397 days', () => {
    for (const lifetime of [60 * S, 6 * DAY, 90 * DAY, 397 * DAY]) {
      const c = cert(lifetime, 1_000_000);
      expect(renewsAt(c)).toBe(1_000_000 + Math.floor(lifetime * 2 / 3));
      expect(stillUsable(c, renewsAt(c) - 1)).toBe(true);
      expect(stillUsable(c, renewsAt(c))).toBe(false);
    }
  });

  it('takes an earlier renewal window from ACME Renewal Information, never a later one', () => {
    const c = cert(90 * DAY);
    expect(renewsAt(c, 30 * DAY)).toBe(30 * DAY);
    expect(renewsAt(c, 80 * DAY)).toBe(60 * DAY);
  });

  it('a 6-day certificate is usable for 4 days (an absolute 24 h margin would keep it 5)', () => {
    const c = cert(6 * DAY);
    expect(stillUsable(c, 3.9 * DAY)).toBe(true);
    expect(stillUsable(c, 4.1 * DAY)).toBe(false);
  });

  it('flags a certificate due on arrival and one below the floor', () => {
    expect(dueOnArrival(cert(60 * S), 1 * S)).toBe(false);
    expect(dueOnArrival(cert(60 * S), 45 * S)).toBe(true);
    expect(belowLifetimeFloor(cert(60 * S), 3600 * S)).toBe(true);
    expect(belowLifetimeFloor(cert(6 * DAY), 3600 * S)).toBe(false);
  });

  it('a failing renewal is serious once a third of the life or less is left', () => {
    expect(renewalFailureIsSerious(cert(90 * DAY), 59 * DAY)).toBe(false);
    expect(renewalFailureIsSerious(cert(90 * DAY), 60 * DAY)).toBe(true);
  });

  it('expiry notices at 14 and 3 days, only after renewal was due', () => {
    expect(expiryNoticeTimes(cert(90 * DAY)).map((n) => n.days)).toEqual([14, 3]);
    expect(expiryNoticeTimes(cert(6 * DAY))).toEqual([]);
    expect(dueExpiryNotices(cert(90 * DAY), 70 * DAY)).toEqual([]);
    expect(dueExpiryNotices(cert(90 * DAY), 77 * DAY)).toEqual([14]);
    expect(dueExpiryNotices(cert(90 * DAY), 88 * DAY)).toEqual([14, 3]);
    expect(dueExpiryNotices(cert(90 * DAY), 91 * DAY)).toEqual([]);
  });

  it('the brake admits `limit` orders per window and says when the window frees', () => {
    const H = 3600 * S;
    expect(nextOrderAllowedAt([], 10 * H, 5, H)).toBe(10 * H);
    const placed = [1, 2, 3, 4, 5].map((m) => 10 * H - H + m * 60 * S);
    expect(nextOrderAllowedAt(placed, 10 * H, 5, H)).toBe(placed[0]! + H);
    expect(nextOrderAllowedAt(placed.slice(1), 10 * H, 5, H)).toBe(10 * H);
    // Orders older than the window do not count.
    expect(nextOrderAllowedAt([1, 2, 3, 4, 5], 10 * H, 5, H)).toBe(10 * H);
  });
});
