// The DNS check: looks the customer's hostname up with a real resolver, judges the answers with
// model/dns-verification.ts and stores the outcome in `domains.verification`. A check that could
// not reach DNS is an ordinary result (problem `lookup_failed`, retryable), not an exception, so
// the workflow's own back-off decides when to look again.
//
// Every check is bounded (issue 14: a resolver answering in 5 s held every workflow-task slot):
// each query by the resolver's own timeout and tries, each check by a total budget, and the
// checks that run as LOCAL activities — which hold a workflow-task slot while they run — also by
// a semaphore. Three lanes:
// - local: a verify, the re-check before issuance, the active domain's 6-hourly re-check. At most
//   `dnsLimits.localConcurrency` at once; waiting for a permit counts against the budget
//   (`localBudgetMs`); past it the check reports `lookup_failed` (retryable).
// - probe: the periodic check of a pending_dns domain first tries the local path, with a permit
//   of its own small pool only if one is free at once and PROBE_BUDGET_MS; when the resolver is
//   slow or the pool busy, or the lookups failed (`lookup_failed`: nothing learned), it gives up
//   without storing anything (`deferred`) and the workflow runs the check on the background lane.
//   Fast DNS costs one workflow task per check, as before.
// - background: `recheckDns`, a regular activity on the DNS task queue (worker/create-worker.ts)
//   with slots of its own and `backgroundBudgetMs`.
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/index.ts';
import { domainVerificationRepository, type StoredVerification } from '../db/repositories/domain-verification.ts';
import { domainsRepository, type DomainRow } from '../db/repositories/domains.ts';
import type { Db } from '../db/pool.ts';
import type { DomainSignalPayload, DomainState } from '../contracts/domain-workflow.ts';
import { Semaphore } from '../process/semaphore.ts';
import { beforeDeadline, DEADLINE_PASSED } from './lookup-budget.ts';
import { dnsLocalLookupsInFlight, observeDnsLookup } from '../metrics/worker.ts';
import {
  evaluateDnsVerification, isRetryableProblem, normName,
  type AddressLookup, type CaaFinding, type CaaRecord, type ChainEnd, type DnsObservation, type DnsProblem,
} from '../model/dns-verification.ts';
import { delegationName, delegationTarget } from '../model/domain-moves.ts';
import { isWildcard, judgeDelegation, probeName, type DelegationLookup } from '../model/wildcards.ts';

export interface VerifyDnsInput {
  domainId: string;
  /** Move only if the row is still at this sequence number. */
  expectedSeq: number;
  /** Given by the workflow (fixed at creation) so the check need not read the row first. */
  hostname?: string | undefined;
  isApex?: boolean | undefined;
  /** A periodic check trying the local path (probe lane): `deferred` when DNS is slow or the lane busy. */
  probe?: boolean | undefined;
  /**
   * The transition the workflow asks for when DNS is right (model/domain-status.ts; the only one
   * a check makes). Absent in inputs scheduled before transitions were named: the same one.
   */
  transition?: 'dns_verified' | undefined;
}

export interface DnsCheckDeps { db: Db; config: Config; resolverFactory?: () => Resolver }

/**
 * Where a check runs: `local` inside a workflow task (short budget, shared semaphore), or
 * `background` as a regular activity on the DNS task queue (its own slots, longer budget).
 */
export type DnsLane = 'local' | 'probe' | 'background';

export interface DnsCheckResult {
  ok: boolean;
  checked_at: string;
  problem: DnsProblem | null;
  /** True when DNS could not be checked at all (nothing is known about the customer's records). */
  retryable: boolean;
  /** Probe lane only: DNS was too slow or the lane busy; nothing was stored, check on the DNS task queue. */
  deferred?: boolean;
}

/** How long a periodic check may try the local path before leaving the check to the DNS task queue. */
export const PROBE_BUDGET_MS = 1000;

/** CNAME hops followed before giving up (resolvers themselves stop around 8–16). */
export const MAX_CNAME_HOPS = 8;

export function createDnsCheckActivities({ db, config, resolverFactory }: DnsCheckDeps) {
  const domains = domainsRepository(db);
  const verifications = domainVerificationRepository(db);
  // One resolver (one c-ares channel and its sockets) serves every check of the local and probe
  // lanes of this worker: a channel per check opened and closed sockets for each, which 5,000
  // domains waiting for DNS paid for on every turn of their backoff. c-ares runs concurrent
  // queries on a channel by itself.
  // The background lane gets a channel per check instead: c-ares shortens a try's timeout to 5x
  // the server's recent average answer time (about 1 s against a resolver that answers most
  // questions in milliseconds), so on the shared channel a slow but working resolver would never
  // be waited for, whatever the budget. A new channel starts at the configured timeout. Background
  // checks are the few that were slow or failed on the probe, so their sockets cost little.
  const newResolver = () => {
    // Each query: `tries` attempts of at most `queryTimeoutMs` (maxTimeout stops c-ares from
    // growing the timeout between tries); the check's budget bounds the whole.
    const resolver = new Resolver({ timeout: config.dnsLimits.queryTimeoutMs, tries: config.dnsLimits.tries, maxTimeout: config.dnsLimits.queryTimeoutMs });
    if (config.dns.servers.length > 0) resolver.setServers(config.dns.servers);
    return resolver;
  };
  let shared: Resolver | null = null;
  const resolverFor = resolverFactory ? { get: (_lane: DnsLane) => resolverFactory(), done: (r: Resolver, _lane: DnsLane) => r.cancel() } : {
    get: (lane: DnsLane) => (lane === 'background' ? newResolver() : (shared ??= newResolver())),
    // A background channel ends with its check: lookups still running past the budget are
    // cancelled (ECANCELLED) and its sockets closed.
    done: (r: Resolver, lane: DnsLane) => { if (lane === 'background') r.cancel(); },
  };

  const localLane = new Semaphore(config.dnsLimits.localConcurrency);
  // Probes get a pool of their own: however many periodic checks there are, they cannot take the
  // permits a verify needs.
  const probeLane = new Semaphore(Math.max(1, Math.ceil(config.dnsLimits.localConcurrency / 2)));

  async function liveDomain(domainId: string): Promise<DomainRow> {
    const domain = await domains.getById(domainId);
    if (!domain || domain.status === 'deleted') throw gone(domainId);
    return domain;
  }

  /** Looks the domain up in DNS and stores the verdict as its `verification`. */
  async function check(domain: DomainRow, lane: DnsLane): Promise<DnsCheckResult> {
    const { result, verification } = await lookUp(domain, lane);
    if (!await verifications.save(domain.id, verification)) throw gone(domain.id);
    return result;
  }

  /**
   * Looks the domain up in DNS within the lane's budget: the verdict, and what to store as its
   * `verification`. Past the budget (or without a local permit in time) nothing is known:
   * `lookup_failed`, retryable — the lookups still in flight finish in the background, bounded by
   * the resolver's timeout × tries, and their answers are dropped.
   */
  async function lookUp(domain: Pick<DomainRow, 'hostname' | 'is_apex'> & { challenge_label?: string }, lane: DnsLane): Promise<{ result: DnsCheckResult; verification: StoredVerification; answered: boolean }> {
    // A wildcard (docs/wildcards.md): a fresh random name under it must reach us, and its
    // `_acme-challenge.<base>` must be delegated to the challenge zone (DNS-01 is its only way to
    // a certificate). Judged as the wildcard itself, so the messages name `*.<base>`.
    const wildcard = isWildcard(domain.hostname);
    const zone = config.moves.challengeZone;
    const delegation = wildcard && zone && domain.challenge_label
      ? { name: delegationName(domain.hostname), expected: delegationTarget(domain.challenge_label, zone) } : null;
    const started = Date.now();
    const budget = lane === 'local' ? config.dnsLimits.localBudgetMs : lane === 'probe' ? Math.min(PROBE_BUDGET_MS, config.dnsLimits.localBudgetMs) : config.dnsLimits.backgroundBudgetMs;
    const deadline = started + budget;
    const inWorkflowTask = lane !== 'background';
    const release = lane === 'local' ? await localLane.acquire(deadline - Date.now()) : lane === 'probe' ? await probeLane.acquire(0) : () => undefined;
    const resolver = resolverFor.get(lane);
    let outcome: 'answered' | 'budget_exceeded' | 'no_permit' = 'answered';
    try {
      let observed: DnsObservation & { delegation?: DelegationLookup };
      if (!release) {
        outcome = 'no_permit';
        observed = nothingKnown(domain.hostname);
      } else {
        // The permit goes back when the lookups end, not when the check stops waiting for them:
        // lookups abandoned at the budget still count, so at most `localConcurrency` are ever in
        // flight on this lane.
        if (inWorkflowTask) dnsLocalLookupsInFlight.inc({ lane });
        const lookups = observeWithDelegation(resolver, wildcard ? probeName(domain.hostname, randomBytes(5).toString('hex')) : domain.hostname, delegation?.name ?? null).finally(() => {
          release();
          if (inWorkflowTask) dnsLocalLookupsInFlight.dec({ lane });
        });
        const answer = await beforeDeadline(lookups, deadline);
        if (answer === DEADLINE_PASSED) outcome = 'budget_exceeded';
        observed = answer === DEADLINE_PASSED ? nothingKnown(domain.hostname) : answer;
      }
      const checkedAt = new Date().toISOString();
      const verdict = evaluateDnsVerification({
        hostname: domain.hostname,
        isApex: domain.is_apex,
        edge: { cnameTarget: config.cnameTarget, ipv4: config.edgeIpv4, ipv6: config.edgeIpv6 },
        caaIdentities: config.acme.caaIdentities,
        observed,
      });
      if (delegation) {
        verdict.expected.push({ type: 'CNAME', name: delegation.name, value: delegation.expected });
        const lookup: DelegationLookup = observed.delegation ?? { status: 'error' };
        if (lookup.status === 'found') verdict.found.push({ type: 'CNAME', name: delegation.name, value: lookup.target });
        const problem = verdict.ok ? judgeDelegation(delegation.name, delegation.expected, lookup) : null;
        if (problem) { verdict.ok = false; verdict.problem = problem; }
      } else if (wildcard) {
        // A wildcard without the challenge zone (configuration removed after it was created): no
        // certificate can be obtained for it.
        const problem = { code: 'delegation_cname_missing' as const, message: `${domain.hostname} is a wildcard, whose certificate needs the challenge zone, which this service no longer has (HOSTGATE_CHALLENGE_ZONE)` };
        if (verdict.ok) { verdict.ok = false; verdict.problem = problem; }
      }
      return {
        result: { ok: verdict.ok, checked_at: checkedAt, problem: verdict.problem, retryable: isRetryableProblem(verdict.problem) },
        verification: { checked_at: checkedAt, expected: verdict.expected, found: verdict.found, problem: verdict.problem },
        answered: outcome === 'answered',
      };
    } finally {
      resolverFor.done(resolver, lane);
      observeDnsLookup(lane, outcome, (Date.now() - started) / 1000);
    }
  }

  /** The domain moved to `pending_dns` → `pending_certificate` when DNS is right (see verifyDns). */
  async function verifyIn(lane: DnsLane, { domainId, expectedSeq, hostname, isApex, transition = 'dns_verified' }: VerifyDnsInput, onMove?: DomainSignalPayload): Promise<DnsCheckResult & { state: DomainState; hostname: string; moved: boolean; outboxId?: number | null }> {
    // The workflow knows the hostname and whether it is an apex (both fixed at creation): then
    // the check costs one statement — the move when DNS is right, else storing what was found.
    // (A wildcard's check needs its row: the delegation label.)
    const known = hostname !== undefined && isApex !== undefined && !isWildcard(hostname) ? { hostname, is_apex: isApex } : null;
    const domain = known ? null : await liveDomain(domainId);
    const subject = known ?? domain!;
    if (domain && (domain.status !== 'pending_dns' || domain.status_seq !== expectedSeq)) {
      // Moved on already — by the DNS checker, whose verify woke the workflow: nothing to look up
      // (a second lookup on slow DNS could fail and overwrite the verdict that moved it).
      const stored = domain.verification as Partial<StoredVerification> | null;
      const problem = (stored?.problem ?? null) as DnsProblem | null;
      return { ok: stored?.checked_at !== undefined && problem === null, checked_at: stored?.checked_at ?? new Date().toISOString(), problem, retryable: false, state: { status: domain.status, seq: domain.status_seq }, hostname: domain.hostname, moved: false };
    }
    const { result, verification, answered } = await lookUp(subject, lane);
    if (lane === 'probe' && (!answered || result.problem?.code === 'lookup_failed')) {
      // Nothing learned and nothing stored: the workflow checks again on the DNS task queue. Lookups
      // that failed by themselves inside the budget learned nothing either: c-ares times a try out
      // after ~5x the server's recent average answer time (about 1 s against a fast resolver, not
      // HOSTGATE_DNS_QUERY_TIMEOUT_MS), so on slow DNS that often comes before the probe's budget.
      return { ...result, deferred: true, state: domain ? { status: domain.status, seq: domain.status_seq } : { status: 'pending_dns', seq: expectedSeq }, hostname: subject.hostname, moved: false };
    }
    if (result.ok && (!domain || (domain.status === 'pending_dns' && domain.status_seq === expectedSeq))) {
      // The verdict and the move in one statement.
      const moved = await domains.transition(domainId, transition, 'DNS verified', { expectedSeq, verification: { ...verification }, ...(onMove ? { signal: onMove } : {}) });
      if (!moved.domain || moved.domain.status === 'deleted') throw gone(domainId);
      const state = { status: moved.domain.status, seq: moved.domain.status_seq };
      if (moved.changed) return { ...result, state, hostname: subject.hostname, moved: true, ...(onMove ? { outboxId: moved.outboxId } : {}) };
      // Someone moved it first: keep what was found, report where it is now.
      if (!await verifications.save(domainId, verification)) throw gone(domainId);
      return { ...result, state, hostname: subject.hostname, moved: false };
    }
    // Not right yet, or the domain moved on already: store what was found, nothing more.
    const saved = await verifications.saveReturningState(domainId, verification);
    if (saved === 'gone') throw gone(domainId);
    // (A check older than the stored one is not written; where the row stands is read then.)
    const row = saved ?? domain ?? await liveDomain(domainId);
    return { ...result, state: { status: row.status, seq: row.status_seq }, hostname: subject.hostname, moved: false };
  }

  /** What the workflow sees of a check: `moved` and `outboxId` are the checker's business only (not in histories). */
  const forWorkflow = <T extends { moved: boolean; outboxId?: number | null }>({ moved: _moved, outboxId: _outboxId, ...rest }: T): Omit<T, 'moved' | 'outboxId'> => rest;

  return {
    /** Checks the domain's DNS now (local lane) and stores what was found as its `verification`. */
    async checkDns({ domainId }: { domainId: string }): Promise<DnsCheckResult> {
      return check(await liveDomain(domainId), 'local');
    },

    /**
     * A DNS check that, when DNS is right, also moves the domain from `pending_dns` to
     * `pending_certificate` (if the row is still at `expectedSeq`): one step instead of a check
     * then a separate move, which is what a verify burst spends its time on. Local lane.
     */
    async verifyDns(input: VerifyDnsInput): Promise<DnsCheckResult & { state: DomainState; hostname: string }> {
      return forWorkflow(await verifyIn(input.probe ? 'probe' : 'local', input));
    },

    /**
     * The periodic check of a pending_dns domain, as a regular activity on the DNS task queue:
     * the same check and move as `verifyDns`, with the background budget. It never issues: the
     * workflow goes on to the certificate itself when this moved the domain.
     */
    async recheckDns(input: VerifyDnsInput): Promise<DnsCheckResult & { state: DomainState }> {
      const { hostname: _hostname, ...rest } = forWorkflow(await verifyIn('background', { ...input, probe: false }));
      return rest;
    },

    /**
     * The DNS checker's check (worker/dns-checker.ts; not an activity any workflow calls): the same
     * check and move as `recheckDns` (background budget; when DNS is right the domain moves to
     * `pending_certificate`, and the workflow is woken to go on to the certificate). 'gone' when
     * the domain is deleted. `moved`: this check made the move (false when DNS is right but
     * someone moved the row first — the workflow's own verify check, in a burst — so the checker
     * does not wake a workflow that already went on). The move queues the workflow's `verify` in
     * the outbox in its own statement (`outboxId`: that row, or the verify already waiting there):
     * a checker that dies after the commit loses nothing, the outbox dispatcher delivers it.
     */
    async checkScheduled(domain: { domainId: string; hostname: string; isApex: boolean; seq: number }): Promise<(DnsCheckResult & { state: DomainState; moved: boolean; outboxId?: number | null }) | 'gone'> {
      try {
        const { hostname: _hostname, ...rest } = await verifyIn('background', { domainId: domain.domainId, expectedSeq: domain.seq, hostname: domain.hostname, isApex: domain.isApex }, { signal: 'verify' });
        return rest;
      } catch (error) {
        if (error instanceof ApplicationFailure && error.type === 'DomainNotFound') return 'gone';
        throw error;
      }
    },
  };
}

/** The observation, and for a wildcard its delegation CNAME's lookup (in parallel). */
async function observeWithDelegation(resolver: Resolver, name: string, delegation: string | null): Promise<DnsObservation & { delegation?: DelegationLookup }> {
  if (delegation === null) return observe(resolver, name);
  const [observed, lookup] = await Promise.all([observe(resolver, name), lookUpDelegation(resolver, delegation)]);
  return { ...observed, delegation: lookup };
}

async function lookUpDelegation(resolver: Resolver, name: string): Promise<DelegationLookup> {
  try {
    const targets = await resolver.resolveCname(name);
    return targets[0] === undefined ? { status: 'missing' } : { status: 'found', target: normName(targets[0]) };
  } catch (error) {
    return statusOf(error) === 'error' ? { status: 'error' } : { status: 'missing' };
  }
}

/** What a check that learned nothing observed: every lookup failed (→ `lookup_failed`). */
function nothingKnown(hostname: string): DnsObservation {
  return { cnameChain: [], chainEnd: 'error', a: { status: 'error', values: [] }, aaaa: { status: 'error', values: [] }, caa: { status: 'error', name: normName(hostname) } };
}

function gone(domainId: string): ApplicationFailure {
  // Permanent: a check for a row that does not exist (or was deleted) can never make progress.
  return ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
}

/** Everything the model needs: the CNAME chain, the addresses at its end, the relevant CAA set. */
export async function observe(resolver: Resolver, hostname: string): Promise<DnsObservation> {
  const name = normName(hostname);
  const { chain, end } = await followCnames(resolver, name);
  const last = chain.at(-1) ?? name;
  const skipAddresses = end === 'nxdomain' || end === 'error' || end === 'loop' || end === 'too_long';
  const [a, aaaa, caa] = await Promise.all([
    skipAddresses ? notLooked(end) : addresses(resolver, last, 4),
    skipAddresses ? notLooked(end) : addresses(resolver, last, 6),
    // DNS not answering already decides the outcome; asking again would only double the wait.
    end === 'error' ? { status: 'error', name } as const : relevantCaa(resolver, name, end === 'end' || end === 'nxdomain' ? last : name),
  ]);
  return { cnameChain: chain, chainEnd: end, a, aaaa, caa };
}

/** Follows CNAMEs one hop at a time (a resolver's A answer does not always include the chain). */
export async function followCnames(resolver: Resolver, name: string): Promise<{ chain: string[]; end: ChainEnd }> {
  const chain: string[] = [];
  const seen = new Set([name]);
  let current = name;
  for (;;) {
    let targets: string[];
    try {
      targets = await resolver.resolveCname(current);
    } catch (error) {
      const status = statusOf(error);
      return { chain, end: status === 'nodata' ? 'end' : status === 'nxdomain' ? 'nxdomain' : 'error' };
    }
    const next = targets[0] === undefined ? undefined : normName(targets[0]);
    if (next === undefined) return { chain, end: 'end' };
    chain.push(next);
    if (seen.has(next)) return { chain, end: 'loop' };
    seen.add(next);
    if (chain.length >= MAX_CNAME_HOPS) return { chain, end: 'too_long' };
    current = next;
  }
}

async function addresses(resolver: Resolver, name: string, family: 4 | 6): Promise<AddressLookup> {
  try {
    const values = family === 4 ? await resolver.resolve4(name) : await resolver.resolve6(name);
    return values.length > 0 ? { status: 'found', values } : { status: 'nodata', values: [] };
  } catch (error) {
    return { status: statusOf(error), values: [] };
  }
}

function notLooked(end: ChainEnd): AddressLookup {
  return { status: end === 'nxdomain' ? 'nxdomain' : end === 'error' ? 'error' : 'nodata', values: [] };
}

/**
 * RFC 8659 §3: the CAA set of the hostname, else of its parent, and so on up to (not including)
 * the TLD; the first non-empty one is relevant. At the hostname, its CNAME chain is followed (the
 * set at the chain's last name, `hostnameAlias`, counts for that level); parents are asked
 * directly, where a recursive resolver follows any CNAME itself. NXDOMAIN/NODATA mean "empty here, go up"; no answer is an
 * error, since a CA would refuse to issue without one.
 */
export async function relevantCaa(resolver: Resolver, hostname: string, hostnameAlias: string = hostname): Promise<CaaFinding> {
  const labels = hostname.split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const level = labels.slice(i).join('.');
    let answers: object[];
    try {
      answers = await resolver.resolveCaa(i === 0 ? hostnameAlias : level);
    } catch (error) {
      if (statusOf(error) === 'error') return { status: 'error', name: level };
      continue;
    }
    const records = answers.map(toCaaRecord).filter((r): r is CaaRecord => r !== null);
    if (records.length > 0) return { status: 'found', name: level, records };
  }
  return { status: 'none' };
}

function toCaaRecord(answer: object): CaaRecord | null {
  // node:dns gives { critical, <tag>: value } (the tag is the remaining key).
  const fields = answer as Record<string, unknown>;
  const tag = Object.keys(fields).find((k) => k !== 'critical' && k !== 'type');
  if (!tag) return null;
  return { flags: Number(fields.critical ?? 0), tag, value: String(fields[tag] ?? '') };
}

function statusOf(error: unknown): 'nxdomain' | 'nodata' | 'error' {
  const code = (error as { code?: string } | null)?.code;
  if (code === 'ENOTFOUND') return 'nxdomain';
  if (code === 'ENODATA') return 'nodata';
  return 'error';
}
