// Public identifiers: a type prefix (so a mixed-up id is obvious in logs and support tickets)
// and 26 chars in Crockford base32: 48 bits of milliseconds then 80 random bits. The time prefix
// keeps B-tree inserts local; ordering never relies on it (lists sort on created_at, id).
import { randomBytesPooled } from '../security/random.ts';

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
  // 80 random bits as 16 base32 digits, most significant first: two 40-bit halves, each exact
  // in a double (a BigInt over the 80 bits cost a create as much as the bytes themselves).
  const bytes = randomBytesPooled(10);
  let rand = '';
  for (let half = 0; half < 10; half += 5) {
    let v = bytes[half]! * 2 ** 32 + bytes.readUInt32BE(half + 1);
    let digits = '';
    for (let i = 0; i < 8; i++) {
      digits = CROCKFORD[v % 32] + digits;
      v = Math.floor(v / 32);
    }
    rand += digits;
  }
  return `${idPrefixes[kind]}_${time}${rand}`;
}

export function hasPrefix(id: string, kind: IdKind): boolean {
  return id.startsWith(`${idPrefixes[kind]}_`) && /^[a-z]+_[0-9a-z]{26}$/.test(id);
}
