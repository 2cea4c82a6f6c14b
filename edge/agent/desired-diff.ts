// Desired-state diff: what HAProxy serves (read back from `show map` / `show ssl crt-list`, or
// tracked after each change) against what it should serve, as per-host changes. Pure functions.
import type { DesiredHost } from './snapshot.ts';

/**
 * A host's route as stored in the HAProxy map: `dsthost|dstport|domain id|mode|certificate id`.
 * The certificate id is there so that reading the map back tells which certificate a host
 * serves (its crt-list entry only names a file), e.g. when an agent restarts beside a running
 * HAProxy. The route is written after the certificate: a crash in between leaves the old id,
 * and the next pass sends the certificate again.
 */
export function routeValue(h: DesiredHost): string {
  const base = [h.destinationHost, h.destinationPort, h.domainId, h.mode, h.certificate?.id ?? '-'];
  // Per-hostname settings (issue 23) extend the route to nine fields: redirect status, keep
  // path (1/0), redirect target, HSTS value; a host without any keeps the five-field route.
  if (!h.redirect && !h.hsts) return base.join('|');
  return [...base, h.redirect ?? '-|-|-', h.hsts ?? '-'].join('|');
}

/** What HAProxy serves for a desired host once it is applied or loaded from the files. */
export const servedFor = (h: DesiredHost): ServedHost => ({ route: routeValue(h), inCrtList: h.certificate !== null, tls13: h.minTls === '1.3' });

/** The crt-list options of a host: HTTP/2 and 1.1, and TLS 1.3 only where the domain asks. */
export function crtOptions(tls13: boolean): string {
  return tls13 ? '[alpn h2,http/1.1 ssl-min-ver TLSv1.3]' : '[alpn h2,http/1.1]';
}

/** Whether crt-list options (as read back) ask for TLS 1.3 at least. */
export function optionsTls13(options: string | undefined): boolean {
  return /ssl-min-ver TLSv1\.3/.test(options ?? '');
}

export interface ServedHost {
  /** The map value, null when the host has no route. */
  route: string | null;
  /** Whether the host's certificate is in the crt-list. */
  inCrtList: boolean;
  /** Whether its crt-list entry has `ssl-min-ver TLSv1.3` (absent: no). */
  tls13?: boolean;
}

export function parseRoute(value: string): { destinationHost: string; domainId: string; mode: string; certificateId: string | null } | null {
  const parts = value.split('|');
  if (parts.length !== 5 && parts.length !== 9) return null;
  return { destinationHost: parts[0]!, domainId: parts[2]!, mode: parts[3]!, certificateId: parts[4] === '-' ? null : parts[4]! };
}

/** The destination hosts the served routes point at (what the origin map must hold addresses for). */
export function destinationHosts(served: Map<string, ServedHost>): Set<string> {
  const hosts = new Set<string>();
  for (const v of served.values()) {
    const host = v.route ? parseRoute(v.route)?.destinationHost : undefined;
    if (host) hosts.add(host);
  }
  return hosts;
}

export interface HostChange {
  hostname: string;
  /** Send this certificate (new, or replacing the one served), then make sure it is listed. */
  putCertificate?: { id: string; pem: string; listed: boolean };
  /** Take the certificate off (crt-list entry and stored certificate). */
  dropCertificate?: boolean;
  /** The crt-list entry's TLS 1.3 option (a listed entry whose option differs is listed again). */
  tls13?: boolean;
  /** The entry is listed with the other option: take it off the crt-list and add it back. */
  relist?: boolean;
  /** Set the route to this value; null removes it. Undefined: leave it. */
  route?: string | null;
  /** For reporting: the domain and certificate this host serves after the change (null: none). */
  domainId: string;
  certificateId: string | null;
}

/**
 * Changes that turn `served` into `desired` for the hosts in scope: every desired host, and every
 * served host `inScope` says is ours to judge (all of them for a full reconcile, the hosts of the
 * notified domains for a targeted one).
 */
export function diff(
  desired: Map<string, DesiredHost>, served: Map<string, ServedHost>, inScope: (hostname: string, route: string | null) => boolean,
  /** The served hosts that may be in scope (a targeted pass: its domains' hosts); absent: all. */
  candidates?: Iterable<string>,
): HostChange[] {
  const changes: HostChange[] = [];
  for (const want of desired.values()) {
    const have = served.get(want.hostname);
    const value = routeValue(want);
    const haveCert = have?.route ? parseRoute(have.route)?.certificateId ?? null : null;
    const change: HostChange = { hostname: want.hostname, domainId: want.domainId, certificateId: want.certificate?.id ?? null };
    const tls13 = want.minTls === '1.3';
    if (want.certificate) {
      change.tls13 = tls13;
      if (!have?.inCrtList || haveCert !== want.certificate.id) change.putCertificate = { id: want.certificate.id, pem: want.certificate.pem, listed: have?.inCrtList ?? false };
      if (have?.inCrtList && (have.tls13 ?? false) !== tls13) change.relist = true;
    } else if (have?.inCrtList) {
      change.dropCertificate = true;
    }
    if (have?.route !== value) change.route = value;
    if (change.putCertificate || change.dropCertificate || change.relist || change.route !== undefined) changes.push(change);
  }
  for (const hostname of candidates ?? served.keys()) {
    const have = served.get(hostname);
    if (!have || desired.has(hostname) || !inScope(hostname, have.route)) continue;
    changes.push({
      hostname,
      domainId: (have.route && parseRoute(have.route)?.domainId) || '',
      certificateId: null,
      ...(have.route !== null ? { route: null } : {}),
      ...(have.inCrtList ? { dropCertificate: true } : {}),
    });
  }
  return changes;
}
