// Public identifiers: a type prefix (so a mixed-up id is obvious in logs and support tickets)
// and 26 chars in Crockford base32: 48 bits of milliseconds then 80 random bits. The time prefix
// keeps B-tree inserts local; ordering never relies on it (lists sort on created_at, id).
import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

export const idPrefixes = {
  organization: 'org',
  apiKey: 'key',
  destination: 'dst',
  domain: 'dom',
  certificate: 'crt',
  webhookEndpoint: 'whe',
  webhookDelivery: 'whd',
  webhookAttempt: 'wha',
  event: 'evt',
  widgetSession: 'wss',
} as const;

export type IdKind = keyof typeof idPrefixes;

export function newId(kind: IdKind, now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let rand = '';
  for (let i = 0; i < 16; i++) {
    rand = CROCKFORD[Number(bits & 31n)] + rand;
    bits >>= 5n;
  }
  return `${idPrefixes[kind]}_${time}${rand}`;
}

export function hasPrefix(id: string, kind: IdKind): boolean {
  return id.startsWith(`${idPrefixes[kind]}_`) && /^[a-z]+_[0-9a-z]{26}$/.test(id);
}
