// Origin addresses, looked up by the agent and handed to HAProxy in a map (origins.map:
// destination host → address) that each request reads. IPv4 first; a host with no A record is
// looked up for AAAA (an IPv6-only origin), as HAProxy's `do-resolve(…,ipv4)` fallback also does.
//
// Why not HAProxy's `do-resolve` alone: in 2.6 a do-resolve answer lives only as long as a request
// waits on it — the resolution is freed when its last requester leaves, so `hold valid` never
// serves a later request. Measured on the Debian 2.6.12 binary: 2,000 sequential requests to one
// host → 2,000 DNS queries (and 1 query per ≈ 10 requests at 32 concurrent connections), each a
// DNS round trip inside the request, all of them serialised on the resolvers' lock (with 2
// threads ≈ 25 % of HAProxy's CPU was spent spinning on it). The agent looks each destination host
// up once per TTL instead (within HOSTGATE_EDGE_ORIGIN_DNS_REFRESH_MS and ≥ MIN_REFRESH_MS), and
// HAProxy keeps `do-resolve` only as the fallback for a host this map lacks (a destination seen
// for the first time, or one that does not resolve), so a request gets the same answer as before.
// With the agent stopped, HAProxy keeps the last addresses (and its fallback for new names).
import { Resolver } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';
import type { Logger } from '../../logging/logger.ts';
import { expectAnswer, type AdminSocket } from './admin-socket.ts';
import { writeAtomic } from './haproxy-files.ts';

/** Never look a host up more often than this, whatever its TTL says. */
const MIN_REFRESH_MS = 5_000;
/** Lookups in flight at once (boot with thousands of distinct destinations). */
const CONCURRENCY = 16;
/**
 * How long boot waits for lookups before HAProxy starts. A slow or unreachable DNS server must not
 * hold the edge back (thousands of hosts × a timeout each); hosts not looked up by then are served
 * by HAProxy's do-resolve fallback until the refresh loop has their address.
 */
const PREPARE_BUDGET_MS = 5_000;

export type Lookup =
  | { kind: 'address'; addresses: string[]; ttlMs: number }
  /** The name does not exist or has neither A nor AAAA records: HAProxy's own lookup will say so (502 page). */
  | { kind: 'none' }
  /** Timeout, SERVFAIL, refused…: not an answer about the name; keep what we had. */
  | { kind: 'failed'; code: string };

/**
 * The address to hand HAProxy after a lookup: the current one while the name still lists it (no
 * churn when a server rotates its answers), else the first; null removes the host from the map;
 * undefined keeps what the map holds (a failed lookup says nothing about the name).
 */
export function nextAddress(current: string | undefined, lookup: Lookup): string | null | undefined {
  if (lookup.kind === 'failed') return undefined;
  if (lookup.kind === 'none') return null;
  // IPv4 when the name has it (as HAProxy's fallback prefers), else IPv6.
  const v4 = lookup.addresses.filter((a) => isIPv4(a));
  const usable = v4.length > 0 ? v4 : lookup.addresses.filter((a) => isIPv6(a));
  if (usable.length === 0) return null;
  return current !== undefined && usable.includes(current) ? current : usable[0]!;
}

/** When to look again: the record's TTL, within [MIN_REFRESH_MS, maxMs]; failures retry at the floor. */
export function refreshDelayMs(lookup: Lookup, maxMs: number): number {
  const floor = Math.min(MIN_REFRESH_MS, maxMs);
  if (lookup.kind !== 'address') return floor;
  return Math.max(floor, Math.min(maxMs, lookup.ttlMs));
}

/** The map file's content: one `host address` line per host, sorted. */
export function originMapContent(addresses: Map<string, string>): string {
  const lines = [...addresses.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([h, ip]) => `${h} ${ip}`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

export function createOriginAddresses(deps: {
  admin: AdminSocket;
  mapFile: string;
  /** ip:port DNS servers; empty: the system's (/etc/resolv.conf), as HAProxy's resolvers section. */
  resolvers: string[];
  maxRefreshMs: number;
  logger: Logger;
  lookup?: (host: string) => Promise<Lookup>;
  prepareBudgetMs?: number;
}) {
  const resolver = new Resolver({ timeout: 1000, tries: 2 });
  if (deps.resolvers.length > 0) resolver.setServers(deps.resolvers);
  const lookup = deps.lookup ?? (async (host: string): Promise<Lookup> => {
    const answer = (records: { address: string; ttl: number }[]): Lookup => ({ kind: 'address', addresses: records.map((r) => r.address), ttlMs: Math.min(...records.map((r) => r.ttl)) * 1000 });
    const failure = (error: unknown): Lookup => {
      const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      return code === 'ENOTFOUND' || code === 'ENODATA' ? { kind: 'none' } : { kind: 'failed', code };
    };
    try {
      return answer(await resolver.resolve4(host, { ttl: true }));
    } catch (error) {
      // The name exists without an A record (ENODATA): an IPv6-only origin, perhaps. A name that
      // does not exist (ENOTFOUND) has no AAAA either.
      if ((error as NodeJS.ErrnoException).code !== 'ENODATA') return failure(error);
    }
    try {
      return answer(await resolver.resolve6(host, { ttl: true }));
    } catch (error) {
      return failure(error);
    }
  });
  /** What HAProxy's map holds (or its file, before HAProxy runs). */
  let inMap = new Map<string, string>();
  /** The destination hosts of the served routes, each with the time it is due for a lookup. */
  const due = new Map<string, number>();
  const failing = new Set<string>();
  let chain: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = chain.then(fn, fn);
    chain = next.catch(() => undefined);
    return next;
  };

  /**
   * Looks up `hosts`, CONCURRENCY at a time: host → the address to hold (null: none, undefined:
   * keep). With a `deadline`, returns by then: hosts not looked up are left out (still due).
   */
  async function lookUp(hosts: string[], deadline = Number.POSITIVE_INFINITY): Promise<Map<string, string | null | undefined>> {
    const result = new Map<string, string | null | undefined>();
    let next = 0;
    let timer: NodeJS.Timeout | undefined;
    const workers = Promise.all(Array.from({ length: Math.min(CONCURRENCY, hosts.length) }, async () => {
      while (next < hosts.length && Date.now() < deadline) {
        const host = hosts[next++]!;
        const answer = await lookup(host);
        // Logged when a host starts failing, not at every retry (a DNS outage × thousands of hosts).
        if (answer.kind === 'failed' && !failing.has(host)) deps.logger.warn({ host, code: answer.code }, 'edge: origin address lookup failed; keeping the last address, retrying');
        if (answer.kind === 'failed') failing.add(host);
        else failing.delete(host);
        if (Date.now() > deadline) return; // answered too late for this pass: the refresh asks again
        result.set(host, nextAddress(inMap.get(host), answer));
        due.set(host, Date.now() + refreshDelayMs(answer, deps.maxRefreshMs));
      }
    }));
    if (Number.isFinite(deadline)) {
      await Promise.race([workers, new Promise((r) => { timer = setTimeout(r, Math.max(0, deadline - Date.now())); })]);
      clearTimeout(timer);
    } else {
      await workers;
    }
    return new Map(result);
  }

  /** The map content for the wanted hosts after `found` (hosts not looked up keep their address). */
  function merged(found: Map<string, string | null | undefined>): Map<string, string> {
    const out = new Map<string, string>();
    for (const host of due.keys()) {
      const f = found.get(host);
      const ip = f === undefined ? inMap.get(host) : f;
      if (ip) out.set(host, ip);
    }
    return out;
  }

  /** Brings HAProxy's map (runtime API) and the file to `target`. */
  async function apply(target: Map<string, string>, runtime: boolean): Promise<void> {
    let changed = false;
    const ok = /^\s*$/;
    for (const [host, ip] of target) {
      const have = inMap.get(host);
      if (have === ip) continue;
      changed = true;
      if (runtime) {
        const verb = have === undefined ? 'add' : 'set';
        expectAnswer(`${verb} map`, await deps.admin.worker(`${verb} map ${deps.mapFile} ${host} ${ip}`), ok);
      }
      inMap.set(host, ip);
    }
    for (const host of [...inMap.keys()]) {
      if (target.has(host)) continue;
      changed = true;
      if (runtime) expectAnswer('del map', await deps.admin.worker(`del map ${deps.mapFile} ${host}`), /^\s*$|not found/i);
      inMap.delete(host);
    }
    if (changed || !runtime) await writeAtomic(deps.mapFile, originMapContent(inMap));
  }

  const setWanted = (hosts: Iterable<string>) => {
    const wanted = new Set(hosts);
    for (const h of [...due.keys()]) if (!wanted.has(h)) { due.delete(h); failing.delete(h); }
    const fresh = [...wanted].filter((h) => !due.has(h));
    for (const h of fresh) due.set(h, 0);
    return fresh;
  };

  return {
    /** Before HAProxy starts: look every host up and write the file it loads. */
    prepare: (hosts: Iterable<string>) => exclusive(async () => {
      setWanted(hosts);
      const found = await lookUp([...due.keys()], Date.now() + (deps.prepareBudgetMs ?? PREPARE_BUDGET_MS));
      if (found.size < due.size) deps.logger.warn({ looked_up: found.size, hosts: due.size }, 'edge: origin lookups still running at start; HAProxy resolves the others until they finish');
      inMap = merged(found);
      await apply(inMap, false);
    }),
    /** After HAProxy runs (started or adopted): take its map as it is, then bring it up to date. */
    adopt: () => exclusive(async () => {
      const answer = await deps.admin.worker(`show map ${deps.mapFile}`);
      if (/^Unknown map/m.test(answer)) throw new Error(`HAProxy does not know the origin map: ${answer.trim().slice(0, 200)}`);
      const prepared = inMap;
      inMap = new Map();
      for (const line of answer.split('\n')) {
        const m = /^0x[0-9a-f]+ (\S+) (\S+)$/.exec(line.trim());
        if (m) inMap.set(m[1]!, m[2]!);
      }
      const target = new Map<string, string>();
      for (const host of due.keys()) {
        const ip = prepared.get(host) ?? inMap.get(host);
        if (ip) target.set(host, ip);
      }
      await apply(target, true);
    }),
    /** The served routes changed: look up destinations seen for the first time, drop unused ones. */
    track: (hosts: Iterable<string>) => exclusive(async () => {
      const fresh = setWanted(hosts);
      await apply(merged(await lookUp(fresh)), true);
    }),
    /** Looks up every host whose TTL ran out; changed addresses go to HAProxy. */
    refresh: () => exclusive(async () => {
      const now = Date.now();
      const expired = [...due.entries()].filter(([, at]) => at <= now).map(([h]) => h);
      if (expired.length === 0) return;
      await apply(merged(await lookUp(expired)), true);
    }),
    addresses: () => new Map(inMap),
  };
}
export type OriginAddresses = ReturnType<typeof createOriginAddresses>;
