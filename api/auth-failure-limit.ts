// A per-client-address budget of FAILED authentications (docs/api-decisions.md, "Limits"). An
// unknown API key or widget token costs a Postgres lookup, and the per-key buckets only start
// after a key is known: without this, a flood of random keys from one client is a flood of
// queries. Only failures that cost a lookup take from the budget (a malformed or missing
// credential is refused without one); once it is spent, every request from that address that
// would need a lookup answers 429 before it — a valid key included, since it cannot be known valid
// without the lookup — until the bucket refills.
//
// The address is `request.ip`: the socket peer, or with HOSTGATE_TRUSTED_PROXIES the client named
// in X-Forwarded-For by a trusted proxy. Without that setting every client behind one proxy shares
// one budget. Buckets live in process memory (each API instance keeps its own).
//
// The check does not reserve a token: concurrent lookups from one address can overshoot the
// budget by the requests already in flight (bounded by connections and the database pool), which
// is better than valid keys behind a shared address being refused while lookups are in flight.
import { authFailures } from '../metrics/http.ts';
import { ApiError } from './errors.ts';
import { TokenBuckets } from './rate-limit.ts';

export interface AuthFailureLimitOptions {
  perSecond: number;
  burst: number;
  /** Called once when an address starts being refused (again), for the operator's log. */
  onSpent?: (client: string) => void;
}

/** Addresses remembered as "being refused" at most; past it the memory starts over (a repeated warning, no more). */
const MAX_SPENT_REMEMBERED = 10_000;

export class AuthFailureLimit {
  readonly #buckets: TokenBuckets;
  readonly #onSpent: ((client: string) => void) | undefined;
  // Addresses whose latest check was refused: one warning per episode, not one per request.
  readonly #spent = new Set<string>();

  constructor(options: AuthFailureLimitOptions) {
    this.#buckets = new TokenBuckets(options.perSecond, options.burst);
    this.#onSpent = options.onSpent;
  }

  /** Before a credential lookup: 429 rate_limited when this address has no failures left. */
  refuseIfExhausted(ip: string): void {
    const client = clientKey(ip);
    const decision = this.#buckets.check(client);
    if (decision.allowed) {
      if (this.#spent.size > 0) this.#spent.delete(client);
      return;
    }
    authFailures.inc({ outcome: 'refused' });
    if (!this.#spent.has(client)) {
      if (this.#spent.size >= MAX_SPENT_REMEMBERED) this.#spent.clear();
      this.#spent.add(client);
      this.#onSpent?.(client);
    }
    throw new ApiError('rate_limited', `too many failed authentications from this address; retry after ${decision.retryAfterSeconds} s (check the credential this client sends)`, { headers: { 'retry-after': String(decision.retryAfterSeconds) } });
  }

  /** After a lookup that found no valid credential. */
  recordFailure(ip: string): void {
    authFailures.inc({ outcome: 'failed' });
    this.#buckets.take(clientKey(ip));
  }
}

/**
 * The bucket of an address. IPv6 clients usually get a whole /64 and could take a fresh address
 * per request, so IPv6 addresses share their /64's bucket; IPv4-mapped IPv6 counts as IPv4.
 */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.split('%')[0]!.split('::') as [string, string?];
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
