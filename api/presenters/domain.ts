import type { Static } from 'typebox';
import type { Config } from '../../config/index.ts';
import type { CertificateFacts } from '../../db/repositories/certificate-lifecycle.ts';
import type { DomainRow } from '../../db/repositories/domains.ts';
import { replacedAt } from '../../model/certificate-lifetime.ts';
import type { DomainBandwidthRow } from '../../db/repositories/usage.ts';
import type { CertificateTrack as StoredCertificateTrack, OwnershipTrack as StoredOwnershipTrack } from '../../db/repositories/domain-moves.ts';
import { dnsRecordsFor } from '../../model/dns-records.ts';
import { delegationName, delegationTarget, moveRecords, ownershipRecordName, ownershipValue } from '../../model/domain-moves.ts';
import { isWildcard } from '../../model/wildcards.ts';
import type { CertificateTrack, Domain, DomainBandwidth, OwnershipTrack, Verification } from '../schemas/domains.ts';
import { timestamp, timestampOrNull } from './timestamps.ts';

type VerificationOut = Static<typeof Verification>;

/** Statuses in which DNS was found pointing at us (ownership is shown by that itself). */
const pointedAtUs = new Set(['pending_certificate', 'active']);

/** The ownership track (docs/zero-downtime-moves.md): the TXT check, or DNS pointing at us. */
function ownershipOf(d: DomainRow, movesOn: boolean): Static<typeof OwnershipTrack> {
  const stored = d.ownership as StoredOwnershipTrack | null;
  const record = movesOn ? { type: 'TXT' as const, name: ownershipRecordName(d.hostname), value: ownershipValue(d.ownership_token) } : null;
  const checkedAt = timestampOrNull(stored?.checked_at);
  if (stored?.status === 'verified') return { status: 'verified', method: 'dns_txt', record, checked_at: checkedAt, verified_at: timestampOrNull(stored.verified_at), problem: null };
  if (pointedAtUs.has(d.status)) return { status: 'verified', method: 'dns_target', record, checked_at: checkedAt, verified_at: null, problem: null };
  if (!movesOn) return { status: 'not_required', method: null, record: null, checked_at: null, verified_at: null, problem: null };
  return { status: 'pending', method: 'dns_txt', record, checked_at: checkedAt, verified_at: null, problem: stored?.problem ?? null };
}

/** Problems that keep any order from being placed (a CA would refuse it, or could not validate). */
const BLOCKING = new Set(['delegation_cname_missing', 'delegation_cname_wrong', 'caa_forbids_ca']);

type TrackState = Pick<Static<typeof CertificateTrack>, 'status' | 'method' | 'problem' | 'updated_at'>;

/** The certificate track: the move's (DNS-01) while DNS points elsewhere, else the lifecycle's. */
function trackOf(d: DomainRow, problem: VerificationOut['problem']): TrackState {
  const stored = d.certificate_track as StoredCertificateTrack | null;
  const held = stored && (stored.status === 'issued' || stored.status === 'deployed') ? stored : null;
  // The lifecycle's own orders: HTTP-01, or DNS-01 through the delegation for a wildcard (docs/wildcards.md).
  const ownMethod = isWildcard(d.hostname) ? 'dns-01' : 'http-01';
  if (d.status === 'active' || d.status === 'suspended') return { status: 'deployed', method: held?.method ?? ownMethod, problem: null, updated_at: timestampOrNull(held?.updated_at) };
  if (d.status === 'pending_certificate') {
    return held ? { status: held.status, method: held.method, problem: null, updated_at: timestampOrNull(held.updated_at) }
      : { status: problem && BLOCKING.has(problem.code) ? 'blocked' : 'pending_validation', method: ownMethod, problem, updated_at: null };
  }
  if (d.status === 'pending_dns' && stored) {
    // No order exists while the delegation or CAA is wrong: say so rather than "pending_validation".
    const blocked = stored.status === 'pending_validation' && stored.problem !== null && BLOCKING.has(stored.problem.code);
    return { status: blocked ? 'blocked' : stored.status, method: stored.method, problem: stored.problem, updated_at: timestampOrNull(stored.updated_at) };
  }
  return { status: 'none', method: null, problem: null, updated_at: null };
}

/** The track with the newest certificate's facts (null fields while there is none). */
function certificateOf(d: DomainRow, problem: VerificationOut['problem'], facts: CertificateFacts | null): Static<typeof CertificateTrack> {
  const track = trackOf(d, problem);
  const live = facts && d.status !== 'deleted' ? facts : null;
  return {
    ...track,
    // Your own certificate is not validated by us: no method.
    ...(live?.source === 'custom' ? { method: null } : {}),
    not_before: live ? timestamp(new Date(live.notBefore).toISOString()) : null,
    not_after: live ? timestamp(new Date(live.notAfter).toISOString()) : null,
    serial: live?.serial ?? null,
    issuer: live?.issuer ?? null,
    source: live?.source ?? null,
    // A custom certificate: when a managed one replaces it if DNS points here (docs/custom-certificates.md).
    renews_at: live ? timestamp(new Date(replacedAt(live)).toISOString()) : null,
  };
}

/** `facts`: the domain's newest certificate (certificateLifecycleRepository.latestFacts); none if absent. */
export function presentDomain(d: DomainRow, config: Config, facts: CertificateFacts | null = null): Static<typeof Domain> {
  const expected = dnsRecordsFor({ hostname: d.hostname, isApex: d.is_apex }, { cnameTarget: config.cnameTarget, ipv4: config.edgeIpv4, ipv6: config.edgeIpv6 });
  const stored = (d.verification ?? {}) as Partial<VerificationOut>;
  const zone = config.moves.challengeZone;
  return {
    id: d.id,
    hostname: d.hostname,
    destination_id: d.destination_id,
    status: d.status,
    // The hostname's own records first; with moves on, the ownership TXT and the delegation CNAME
    // a customer adds first when the hostname still serves traffic elsewhere.
    dns_records: zone ? [...expected, ...moveRecords({ hostname: d.hostname, ownershipToken: d.ownership_token, challengeLabel: d.challenge_label }, zone)] : expected,
    verification: {
      checked_at: timestampOrNull(stored.checked_at),
      // A wildcard's DNS check also needs its delegation CNAME (docs/wildcards.md).
      expected: zone && isWildcard(d.hostname) ? [...expected, { type: 'CNAME', name: delegationName(d.hostname), value: delegationTarget(d.challenge_label, zone) }] : expected,
      found: stored.found ?? null,
      problem: stored.problem ?? null,
      verify_requested_at: timestampOrNull(d.verify_requested_at),
      // decisions.md: a broken active domain is "flagged in verification" (set by the re-check).
      dns_broken: stored.dns_broken === true,
    },
    ownership: ownershipOf(d, zone !== undefined),
    certificate: certificateOf(d, stored.problem ?? null, facts),
    external_customer_id: d.external_customer_id,
    metadata: d.metadata,
    redirect: d.redirect,
    tls: { min_version: d.tls_min_version, hsts: d.hsts },
    created_at: timestamp(d.created_at),
    updated_at: timestamp(d.updated_at),
  };
}

/**
 * The domain's bytes this period. Every domain's organization has a usage row (the domain
 * triggers made it); should it be missing, the figures are zero for the calendar month.
 */
export function presentBandwidth(b: DomainBandwidthRow | null, now = new Date()): Static<typeof DomainBandwidth> {
  if (!b) {
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    return { period_start: start.toISOString(), period_end: end.toISOString(), bytes_in: 0, bytes_out: 0, bytes: 0 };
  }
  return { period_start: timestamp(b.period_start), period_end: timestamp(b.period_end), bytes_in: b.bytes_in, bytes_out: b.bytes_out, bytes: b.bytes_in + b.bytes_out };
}
