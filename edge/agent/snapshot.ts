// Snapshot reader: database rows → what this edge should serve. Keys are opened with the
// SecretBox in memory only (they reach disk only as HAProxy's 0600 key files); every row is
// validated, and a broken one becomes a reported problem instead of an entry.
import type { ServingRow } from '../../db/repositories/edge.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { Problem } from '../../model/problem.ts';
import { checkCertificate, checkDestination, checkHostname } from './validate.ts';
import { certificateKeyContext } from '../../acme/keys.ts';
import { hstsHeader, redirectTarget } from '../../model/domain-settings.ts';

/** What one hostname should look like at the edge. */
export interface DesiredHost {
  hostname: string;
  domainId: string;
  /** `suspended`: a 503 page (its certificate still served so the page arrives over TLS). */
  mode: 'serve' | 'suspended';
  destinationHost: string;
  destinationPort: number;
  certificate: { id: string; pem: string; serial: string } | null;
  /** The redirect the edge answers with instead of proxying (redirectValue), null: none. */
  redirect: string | null;
  /** Lowest TLS version accepted for this hostname (a crt-list option). */
  minTls: '1.2' | '1.3';
  /** Strict-Transport-Security value for this hostname, null: none of its own. */
  hsts: string | null;
}

/**
 * A redirect as the route carries it: `status|1 or 0 (keep path and query)|target`. The target
 * never holds `|` or spaces (model/domain-settings.ts, redirectTarget).
 */
export function redirectValue(r: { to: string; status: number; preserve_path: boolean }): string {
  return `${r.status}|${r.preserve_path ? 1 : 0}|${redirectTarget(r.to, r.preserve_path)}`;
}

/** The per-hostname settings of a serving row. */
function settingsOf(r: ServingRow): Pick<DesiredHost, 'redirect' | 'minTls' | 'hsts'> {
  return {
    redirect: r.redirect ? redirectValue(r.redirect) : null,
    minTls: r.tls_min_version === '1.3' ? '1.3' : '1.2',
    hsts: r.hsts ? hstsHeader(r.hsts) : null,
  };
}

export interface DomainProblem extends Problem { domain_id: string; hostname: string }

export interface Desired {
  hosts: Map<string, DesiredHost>;
  problems: DomainProblem[];
  /** Domains the rows were about (a targeted read): hosts of these not in `hosts` are removed. */
  domainIds: Set<string>;
}

/** AAD the certificate activities sealed each key with (one owner: acme/keys.ts). */
export { certificateKeyContext };

/**
 * Validated certificates by id. A certificate row never changes once stored, so its check (key
 * decryption, X.509 parse, key match: ~1 ms each) is done once per process, not on every
 * reconcile of 10,000 hostnames.
 */
export class CertificateCache {
  readonly #byId = new Map<string, { hostname: string; result: ReturnType<typeof checkCertificate> }>();
  /** The cached check of a certificate, else `compute`'s (none without one: a digest row). */
  get(id: string, hostname: string, compute: (() => ReturnType<typeof checkCertificate>) | null): ReturnType<typeof checkCertificate> | undefined {
    const hit = this.#byId.get(id);
    if (hit && hit.hostname === hostname && (!hit.result.ok || hit.result.value.notAfter.getTime() > Date.now())) return hit.result;
    if (!compute) return undefined;
    const result = compute();
    this.#byId.set(id, { hostname, result });
    return result;
  }
  /** Whether the check of this certificate for this hostname is cached (and not expired). */
  has(id: string, hostname: string): boolean {
    return this.get(id, hostname, null) !== undefined;
  }
  /** Drops entries of certificates no longer referenced. */
  retain(ids: Set<string>): void {
    for (const id of this.#byId.keys()) if (!ids.has(id)) this.#byId.delete(id);
  }
}

export function buildDesired(rows: readonly ServingRow[], secretBox: SecretBox, cache: CertificateCache, domainIds: Iterable<string> = []): Desired {
  const desired: Desired = { hosts: new Map(), problems: [], domainIds: new Set(domainIds) };
  for (const r of rows) {
    desired.domainIds.add(r.domain_id);
    const report = (p: Problem) => desired.problems.push({ domain_id: r.domain_id, hostname: r.hostname.slice(0, 253), ...p });
    const badName = checkHostname(r.hostname) ?? checkDestination(r.destination_host, r.destination_port);
    if (badName) { report(badName); continue; }
    let certificate: DesiredHost['certificate'] = null;
    if (r.certificate_id) {
      const id = r.certificate_id;
      // A digest row (no PEM, full-reconcile.ts) only reads the cache: the reconcile
      // fetches full rows for the certificates the cache does not hold.
      const sealed = r.chain_pem && r.private_key_enc && r.key_id ? { chain: r.chain_pem, enc: r.private_key_enc, keyId: r.key_id } : null;
      const result = cache.get(id, r.hostname, sealed && (() => {
        let keyPem: string;
        try {
          keyPem = secretBox.open({ keyId: sealed.keyId, ciphertext: sealed.enc }, certificateKeyContext(id)).toString('utf8');
        } catch (error) {
          return { ok: false, problem: { code: 'key_undecryptable', message: `the key of certificate ${id} cannot be opened: ${(error as Error).message}` } };
        }
        return checkCertificate(r.hostname, sealed.chain, keyPem);
      }));
      if (result?.ok) certificate = { id, pem: result.value.pem, serial: result.value.serial };
      else if (result) report(result.problem);
    }
    if (r.status === 'suspended') {
      desired.hosts.set(r.hostname, { hostname: r.hostname, domainId: r.domain_id, mode: 'suspended', destinationHost: r.destination_host.toLowerCase(), destinationPort: r.destination_port, certificate, ...settingsOf(r) });
      continue;
    }
    // active, or pending_certificate with its certificate stored (deploying): served only with a
    // valid certificate. An active domain without one is a problem worth showing.
    if (!certificate) {
      if (r.status === 'active' && !r.certificate_id) report({ code: 'certificate_missing', message: `${r.hostname} is active but has no stored certificate with its key` });
      continue;
    }
    desired.hosts.set(r.hostname, { hostname: r.hostname, domainId: r.domain_id, mode: 'serve', destinationHost: r.destination_host.toLowerCase(), destinationPort: r.destination_port, certificate, ...settingsOf(r) });
  }
  return desired;
}
