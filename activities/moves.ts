// Zero-downtime moves (issue 17, docs/zero-downtime-moves.md): while a domain waits in
// `pending_dns` — its hostname still serving traffic elsewhere — each DNS check of the workflow is
// followed by one step of the two other tracks:
//   ownership: the TXT record `_hostgate.<hostname>` holds the domain's token;
//   certificate: with ownership proved and `_acme-challenge.<hostname>` delegated to our challenge
//   zone (CNAME), a certificate by DNS-01 (certificates/dns01.ts), which the edge then deploys.
// Every outcome is stored on its track (status + problem), never thrown: the hostname track
// (status, verification) is not touched. The abuse limits are checked before each order.
import { Resolver } from 'node:dns/promises';
import { Context } from '@temporalio/activity';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import { acmeAccountsRepository } from '../db/repositories/acme-accounts.ts';
import { caBudgetRepository } from '../db/repositories/ca-budget.ts';
import { certificateLifecycleRepository } from '../db/repositories/certificate-lifecycle.ts';
import { certificatesRepository } from '../db/repositories/certificates.ts';
import { challengeZoneRepository } from '../db/repositories/challenge-zone.ts';
import { dnsScheduleRepository } from '../db/repositories/dns-schedule.ts';
import { domainMovesRepository, type CertificateTrack, type OwnershipTrack } from '../db/repositories/domain-moves.ts';
import { domainsRepository, type DomainRow } from '../db/repositories/domains.ts';
import type { Logger } from '../logging/logger.ts';
import type { Problem } from '../model/problem.ts';
import { createAcmeClients } from '../acme/client.ts';
import { judgeCaa, normName } from '../model/dns-verification.ts';
import { delegationName, delegationTarget, limitCodes, ownershipRecordName, ownershipValue } from '../model/domain-moves.ts';
import { normalizeHostname } from '../model/hostname.ts';
import { wildcardBase } from '../model/wildcards.ts';
import { budgetProblem } from '../model/ca-budget.ts';
import { brakeProblem, stillUsable } from '../model/certificate-lifetime.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { createDns01Issuer } from './certificates/dns01.ts';
import { createCaCalls } from './certificates/failures.ts';
import { CA_PAUSE_MS } from './certificates/placement.ts';
import { relevantCaa } from './dns-check.ts';

export interface MoveActivityDeps { db: Db; config: Config; logger: Logger; secretBox: SecretBox }

/** What one step found (small: it goes into the workflow's history). */
export interface MoveStepResult {
  enabled: boolean;
  ownership: OwnershipTrack['status'] | null;
  certificate: CertificateTrack['status'] | null;
  problem: string | null;
}

/** One DNS-01 attempt waits on the CA at most this long (below the local activity's timeout). */
export const DNS01_WAIT_BUDGET_MS = 30_000;
/** How long a step holds the domain's order lease at most (the wait budget and the steps around it). */
export const MOVE_ORDER_LEASE_MS = 90_000;

/** The running activity's cancellation (a local activity past its time), if called as one. */
function activitySignal(): AbortSignal | undefined {
  try { return Context.current().cancellationSignal; } catch { return undefined; }
}

function lookupStatus(error: unknown): 'missing' | 'error' {
  const code = (error as { code?: string } | null)?.code;
  return code === 'ENOTFOUND' || code === 'ENODATA' ? 'missing' : 'error';
}

export function createMoveActivities({ db, config, logger, secretBox }: MoveActivityDeps) {
  const { challengeZone, challengeDnsServer, limits } = config.moves;
  const domains = domainsRepository(db);
  const moves = domainMovesRepository(db);
  const certificates = certificatesRepository(db);
  const zone = challengeZoneRepository(db);
  const lifecycle = certificateLifecycleRepository(db);
  const schedule = dnsScheduleRepository(db);

  const resolver = new Resolver({ timeout: config.dnsLimits.queryTimeoutMs, tries: config.dnsLimits.tries, maxTimeout: config.dnsLimits.queryTimeoutMs });
  if (config.dns.servers.length > 0) resolver.setServers(config.dns.servers);
  const ourServer = new Resolver({ timeout: 1_000, tries: 2, maxTimeout: 1_000 });
  ourServer.setServers([challengeDnsServer]);

  // ACME clients of its own, one per configured CA (the same accounts: looked up by directory URL
  // in Postgres), each with a DNS-01 issuer; the order goes to the first CA the hostname's CAA
  // allows, not paused, with budget left (issue 22; activities/certificates/placement.ts is the
  // HTTP-01 path's twin of this choice).
  const accounts = acmeAccountsRepository(db);
  const budget = caBudgetRepository(db);
  const dns01 = challengeZone ? config.acme.directories.map((dir) => {
    const calls = createCaCalls({ directoryUrl: dir.directoryUrl, logger, accountForgotten: () => clients.accountForgotten() });
    const clients = createAcmeClients({ directoryUrl: dir.directoryUrl, caBundlePath: dir.caBundlePath, email: config.acme.email, eab: dir.eab, accounts, secretBox, logger, ca: calls.ca });
    return {
      dir,
      issue: createDns01Issuer({
        client: clients.get, zone, challengeZone, ourServer, certificates, secretBox, logger, waitBudgetMs: DNS01_WAIT_BUDGET_MS,
        accountForgotten: () => clients.accountForgotten(), caName: dir.name,
      }),
    };
  }) : null;

  async function checkOwnership(d: DomainRow): Promise<OwnershipTrack> {
    const now = new Date().toISOString();
    const name = ownershipRecordName(d.hostname);
    const expected = ownershipValue(d.ownership_token);
    let found: string[];
    try {
      found = (await resolver.resolveTxt(name)).map((parts) => parts.join(''));
    } catch (error) {
      if (lookupStatus(error) === 'error') {
        return { status: 'pending', checked_at: now, verified_at: null, found: null, problem: { code: 'ownership_lookup_failed', message: `The TXT records of ${name} could not be looked up (its DNS servers did not answer); we will try again` } };
      }
      found = [];
    }
    if (found.includes(expected)) return { status: 'verified', checked_at: now, verified_at: now, found, problem: null };
    const problem: Problem = found.length === 0
      ? { code: 'ownership_txt_missing', message: `No TXT record found at ${name}. Add: ${name} TXT "${expected}"` }
      : { code: 'ownership_txt_mismatch', message: `The TXT record at ${name} holds ${found.map((v) => `"${v}"`).join(', ')}, not "${expected}"` };
    return { status: 'pending', checked_at: now, verified_at: null, found, problem };
  }

  /** The delegation CNAME: null when right, else the problem. */
  async function checkDelegation(d: DomainRow): Promise<Problem | null> {
    const name = delegationName(d.hostname);
    const expected = delegationTarget(d.challenge_label, challengeZone!);
    let targets: string[];
    try {
      targets = await resolver.resolveCname(name);
    } catch (error) {
      if (lookupStatus(error) === 'error') return { code: 'delegation_lookup_failed', message: `${name} could not be looked up (its DNS servers did not answer); we will try again` };
      targets = [];
    }
    const target = targets[0] === undefined ? undefined : normName(targets[0]);
    if (target === expected) return null;
    return target === undefined
      ? { code: 'delegation_cname_missing', message: `No CNAME record found at ${name}. Add: ${name} CNAME ${expected}` }
      : { code: 'delegation_cname_wrong', message: `${name} is a CNAME to ${target}, not to ${expected}` };
  }

  /** The first abuse limit this order would cross, as the problem to show. */
  function limitProblem(counts: Awaited<ReturnType<typeof moves.counts>>, registeredDomain: string, entering: boolean): Problem | null {
    if (entering && counts.pendingValidations >= limits.pendingValidations) {
      return { code: 'pending_validations_limit', message: `Your organization already has ${counts.pendingValidations} domains in certificate pre-validation (limit ${limits.pendingValidations}); this one starts when one of them finishes or is deleted` };
    }
    if (counts.failedHour >= limits.failedValidationsPerHour) {
      return { code: 'failed_validations_limit', message: `The certificate authority refused ${counts.failedHour} validations of this hostname in the last hour (limit ${limits.failedValidationsPerHour}); fix the problem above, we try again within the hour` };
    }
    if (counts.orders3h >= limits.ordersPer3h) {
      return { code: 'certificate_orders_limit', message: `Your organization placed ${counts.orders3h} certificate orders in the last 3 hours (limit ${limits.ordersPer3h}); we try again later` };
    }
    if (counts.certsWeek >= limits.certsPerDomainWeek) {
      return { code: 'certificates_per_domain_limit', message: `${counts.certsWeek} certificates were issued for ${registeredDomain} in the last 7 days (limit ${limits.certsPerDomainWeek}); we try again later` };
    }
    return null;
  }

  /**
   * The hourly cap on failed validations, with the CA's last refusal kept in its message: the
   * refusal's own problem is replaced on the track, and "fix the problem above" needs it.
   */
  function withLastRefusal(limit: Problem, previous: Problem | null): Problem {
    if (previous?.code === limit.code) return previous;
    if (!previous || limitCodes.includes(previous.code as never)) return limit;
    return { code: limit.code, message: limit.message.replace('fix the problem above', `fix what the certificate authority said last (${previous.code}: ${previous.message})`) };
  }

  return {
    /**
     * One step of a pending_dns domain's move: checks ownership, then (once proved) the
     * delegation, CAA and the limits, then orders the certificate by DNS-01. Idempotent: a domain
     * whose certificate is issued (and still usable) costs one read.
     */
    async advanceMove({ domainId }: { domainId: string }): Promise<MoveStepResult> {
      if (!challengeZone || !dns01) return { enabled: false, ownership: null, certificate: null, problem: null };
      const d = await domains.getById(domainId);
      if (!d || d.status !== 'pending_dns') return { enabled: true, ownership: null, certificate: null, problem: null };
      // The customer's own certificate is in place: no managed order (it is served ahead anyway).
      const current = await certificates.latestLive(domainId);
      if (current?.source === 'custom' && !current.withdrawn) return { enabled: true, ownership: null, certificate: null, problem: null };
      let ownership = d.ownership as OwnershipTrack | null;
      if (ownership?.status !== 'verified') {
        ownership = await checkOwnership(d);
        await moves.setOwnership(domainId, ownership);
        if (ownership.status !== 'verified') return { enabled: true, ownership: ownership.status, certificate: null, problem: ownership.problem?.code ?? null };
      }

      const track = d.certificate_track as CertificateTrack | null;
      if (track && (track.status === 'issued' || track.status === 'deployed') && track.certificate_id) {
        const cert = await certificates.latestLive(domainId);
        if (cert && cert.id === track.certificate_id && stillUsable({ notBefore: Date.parse(cert.not_before), notAfter: Date.parse(cert.not_after) }, Date.now())) {
          return { enabled: true, ownership: 'verified', certificate: track.status, problem: null };
        }
      }
      const entering = !track || track.status !== 'pending_validation' || limitCodes.includes(track.problem?.code as never);
      const pending = (problem: Problem | null): CertificateTrack => ({ status: 'pending_validation', method: 'dns-01', certificate_id: null, updated_at: new Date().toISOString(), problem });
      const hold = async (problem: Problem): Promise<MoveStepResult> => {
        await moves.setCertificateTrack(domainId, pending(problem));
        return { enabled: true, ownership: 'verified', certificate: 'pending_validation', problem: problem.code };
      };

      const parsed = normalizeHostname(d.hostname, { serviceDomain: '', allowWildcard: true });
      const registeredDomain = parsed.ok ? parsed.registrableDomain : d.hostname;
      const counts = await moves.counts({ organizationId: d.organization_id, domainId, hostname: d.hostname, registeredDomain });
      if (entering && counts.pendingValidations >= limits.pendingValidations) return hold(limitProblem(counts, registeredDomain, true)!);
      const delegation = await checkDelegation(d);
      if (delegation) return hold(delegation);
      // A wildcard's CAA set is looked up from its base (RFC 8659 §3), and judged with issuewild.
      const caaFinding = await relevantCaa(resolver, normName(wildcardBase(d.hostname)));
      // Any configured CA's identity will do here; the CA chosen below is one the records name.
      const caa = judgeCaa(d.hostname, caaFinding, config.acme.caaIdentities);
      if (caa) return hold(caa.code === 'lookup_failed' ? { code: 'caa_lookup_failed', message: caa.message } : caa);
      const limit = limitProblem(counts, registeredDomain, false);
      if (limit) return hold(limit.code === 'failed_validations_limit' ? withLastRefusal(limit, track?.problem ?? null) : limit);

      // One order at a time per domain: the DNS checker's step and a verify's step in the workflow
      // can meet here (worker/dns-checker.ts); the one that finds the lease taken leaves it.
      if (!await schedule.takeMoveOrder(domainId, MOVE_ORDER_LEASE_MS)) return { enabled: true, ownership: 'verified', certificate: track?.status ?? 'pending_validation', problem: null };
      try {
        // The per-domain brake holds whatever asks for the order (model/certificate-lifetime.ts).
        const brake = await lifecycle.admitOrder(domainId, 'dns-01', config.certificates.ordersPerHour, 60 * 60_000);
        if (!brake.admitted) return hold(brakeProblem(config.certificates.ordersPerHour, brake.retryAt));
        const paused = await budget.paused();
        const allowed = dns01.filter((c) => judgeCaa(d.hostname, caaFinding, c.dir.caaIdentities) === null);
        const unpaused = allowed.filter((c) => !paused.has(c.dir.directoryUrl));
        let chosen: (typeof dns01)[number] | null = null;
        let wait: { retryAt: number; ahead: number; budget: (typeof dns01)[number]['dir']['budget'] } | null = null;
        for (const c of unpaused.length ? unpaused : allowed) {
          const admission = await budget.admit(c.dir.directoryUrl, domainId, c.dir.budget);
          if (admission.admitted) { chosen = c; break; }
          if (!wait || admission.retryAt < wait.retryAt) wait = { retryAt: admission.retryAt, ahead: admission.ahead, budget: c.dir.budget };
        }
        if (!chosen) {
          // No CA saw an order: the brake's place is taken back.
          await lifecycle.releaseOrder(brake.placementId);
          return hold(wait ? budgetProblem(wait.budget, wait.ahead, wait.retryAt) : { code: 'caa_forbids_ca', message: `The CAA records of ${d.hostname} allow none of our certificate authorities to issue for it` });
        }
        await moves.setCertificateTrack(domainId, pending(null));
        const attempt = await moves.recordAttempt({ organizationId: d.organization_id, domainId, hostname: d.hostname, registeredDomain, method: 'dns-01' });
        const signal = activitySignal();
        const outcome = await chosen.issue({ domainId, hostname: d.hostname, challengeLabel: d.challenge_label, signal });
        // The CA could not finish (outage, rate limit): with another CA configured, every worker
        // leaves this one alone for a while and the next step goes to the next.
        if (!outcome.ok && !outcome.refused && outcome.code === 'ca_unavailable' && dns01.length > 1) {
          await budget.pause(chosen.dir.directoryUrl, Date.now() + CA_PAUSE_MS, outcome.message);
        }
        if (!outcome.ok && signal?.aborted) {
          // Given up by the workflow, whose retry may be running (or done) already: its track is not
          // ours to write. The order still counts (the CA saw it).
          await moves.finishAttempt(attempt, 'abandoned');
          signal.throwIfAborted();
        }
        if (!outcome.ok) {
          await moves.finishAttempt(attempt, outcome.refused ? 'failed' : 'abandoned');
          return hold({ code: outcome.code, message: outcome.message });
        }
        await moves.finishAttempt(attempt, 'issued');
        await lifecycle.recordStored(outcome.certificateId, config.certificates.minLifetimeSeconds * 1000);
        const status = await moves.markIssued(domainId, outcome.certificateId);
        return { enabled: true, ownership: 'verified', certificate: status, problem: null };
      } finally {
        await schedule.releaseMoveOrder(domainId);
      }
    },

    /**
     * The workflow's view of `preissuedCertificate` (pending_certificate reached by a check that
     * did not issue, e.g. the periodic one on the DNS task queue): the certificate to wait for
     * the edge to serve instead of ordering another one; null when the domain holds none.
     */
    async heldCertificate({ domainId }: { domainId: string }): Promise<{ id: string; notBefore: number; notAfter: number } | null> {
      const held = await this.preissuedCertificate(domainId);
      return held ? { id: held.certificateId, notBefore: Date.parse(held.notBefore), notAfter: Date.parse(held.notAfter) } : null;
    },

    /**
     * A certificate obtained before DNS pointed at us, still usable: what the DNS check that
     * moves the domain to pending_certificate uses instead of ordering another one.
     */
    async preissuedCertificate(domainId: string): Promise<{ certificateId: string; serial: string; notBefore: string; notAfter: string } | null> {
      const d = await domains.getById(domainId);
      const track = d?.certificate_track as CertificateTrack | null | undefined;
      if (!track?.certificate_id || (track.status !== 'issued' && track.status !== 'deployed')) return null;
      const cert = await certificates.latestLive(domainId);
      if (!cert || cert.id !== track.certificate_id || !stillUsable({ notBefore: Date.parse(cert.not_before), notAfter: Date.parse(cert.not_after) }, Date.now())) return null;
      const full = await certificates.byId(cert.id);
      return { certificateId: full.id, serial: full.serial, notBefore: full.not_before, notAfter: full.not_after };
    },
  };
}
