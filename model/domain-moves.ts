// Zero-downtime moves (docs/zero-downtime-moves.md): the records a customer adds while the hostname
// still serves traffic elsewhere, and the problem codes of the ownership and certificate tracks.
// Pure: imported by the API's presenters, the activities and tests alike.
import type { DnsRecord } from './dns-records.ts';
import { wildcardBase } from './wildcards.ts';

// A wildcard `*.<base>` has its records at <base> (docs/wildcards.md): the CA looks for a
// wildcard's DNS-01 answer at `_acme-challenge.<base>` (RFC 8555 §8.4), and a name under `*` would
// be a literal `*` label most DNS providers' forms refuse.

/** Where the ownership TXT record goes. */
export const ownershipRecordName = (hostname: string) => `_hostgate.${wildcardBase(hostname)}`;
/** What it must hold (the token is per domain and random). */
export const ownershipValue = (token: string) => `hostgate-verification=${token}`;
/** Where the CA looks for the DNS-01 answer; the customer delegates it to us with a CNAME. */
export const delegationName = (hostname: string) => `_acme-challenge.${wildcardBase(hostname)}`;
/** The name in our challenge zone the delegation CNAME points at (opaque: no hostname in it). */
export const delegationTarget = (label: string, zone: string) => `${label}.${zone.toLowerCase().replace(/\.$/, '')}`;

/** The records of a move: added before the hostname's own CNAME/A records are switched. */
export function moveRecords(domain: { hostname: string; ownershipToken: string; challengeLabel: string }, challengeZone: string): DnsRecord[] {
  return [
    { type: 'TXT', name: ownershipRecordName(domain.hostname), value: ownershipValue(domain.ownershipToken) },
    { type: 'CNAME', name: delegationName(domain.hostname), value: delegationTarget(domain.challengeLabel, challengeZone) },
  ];
}

/**
 * Problem codes of the two tracks (stable; documented in docs/zero-downtime-moves.md). The
 * certificate track also shows the CA's refusals with the hostname track's codes
 * (caa_forbids_ca, challenge_failed, rejected_identifier, …).
 */
export const moveProblemCodes = [
  'ownership_txt_missing', 'ownership_txt_mismatch', 'ownership_lookup_failed',
  'delegation_cname_missing', 'delegation_cname_wrong', 'delegation_lookup_failed',
  'challenge_not_published', 'ca_unavailable',
  'pending_validations_limit', 'certificate_orders_limit', 'certificates_per_domain_limit', 'failed_validations_limit',
  'domain_orders_limit', 'ca_budget_wait',
] as const;
export type MoveProblemCode = typeof moveProblemCodes[number];

/** The limit codes: a domain held back by one is not counted as "pending validation" itself. */
export const limitCodes: readonly MoveProblemCode[] = ['pending_validations_limit', 'certificate_orders_limit', 'certificates_per_domain_limit', 'failed_validations_limit', 'domain_orders_limit', 'ca_budget_wait'];
