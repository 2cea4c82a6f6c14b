// Applying host changes: HAProxy's runtime API first, then the agent's record, the certificate
// files and the crt-list and map files. Called inside the agent's one-change-at-a-time chain only.
import type { Deployment } from '../../db/repositories/edge.ts';
import type { Logger } from '../../logging/logger.ts';
import type { HostChange, ServedHost } from './desired-diff.ts';
import type { Reading } from './full-pass.ts';
import { removeCertificate, writeCertificate, type StatePaths } from './haproxy-files.ts';
import type { HaproxyRuntime } from './haproxy-runtime.ts';
import type { ListFiles } from './list-files.ts';
import type { OriginAddresses } from './origin-addresses.ts';
import type { ServedRecord } from './served-record.ts';

export interface ApplyOutcome { deployed: Deployment[]; removed: string[]; failed: number }
export type ApplyChanges = (changes: HostChange[], corrected?: string[]) => Promise<ApplyOutcome>;

export function createChangeApply(deps: {
  record: ServedRecord; runtime: HaproxyRuntime; paths: StatePaths; lists: ListFiles; origins: OriginAddresses; logger: Logger;
  /** The full passes reading now: each change's host is marked in them (full-pass.ts, Reading). */
  readings: Set<Reading>;
  /** HAProxy refused a change (possibly half applied): its view is in doubt. */
  onRefused: () => void;
}): ApplyChanges {
  const { record, runtime, paths, lists, origins, logger, readings } = deps;
  /**
   * Applies changes host by host; one host's failure is logged and does not stop the others.
   * `corrected`: hosts whose tracked state a full pass just set to HAProxy's (their file lines too).
   */
  return async (changes, corrected = []) => {
    const deployed: Deployment[] = [];
    const removed: string[] = [];
    const touched: string[] = [...corrected];
    let failed = 0;
    for (const change of changes) {
      const before = record.hosts.get(change.hostname);
      try {
        await runtime.apply(change, before?.route != null);
      } catch (error) {
        failed++;
        deps.onRefused();
        logger.error({ err: error, host: change.hostname }, 'edge: HAProxy refused a change; the next reconcile retries');
        // Possibly half applied: a full pass reading meanwhile cannot trust its view of this host.
        for (const r of readings) r.hosts.add(change.hostname);
        continue;
      }
      // Marked once applied: a full pass reading since then (or during) leaves this host alone.
      for (const r of readings) r.hosts.add(change.hostname);
      const after: ServedHost = {
        route: change.route !== undefined ? change.route : before?.route ?? null,
        inCrtList: change.putCertificate ? true : change.dropCertificate ? false : before?.inCrtList ?? false,
        tls13: change.tls13 ?? before?.tls13 ?? false,
      };
      record.set(change.hostname, after);
      touched.push(change.hostname);
      if (change.putCertificate) await writeCertificate(paths, change.hostname, change.putCertificate.pem);
      if (change.dropCertificate) await removeCertificate(paths, change.hostname);
      if (change.domainId) record.link(change.domainId, change.hostname);
      if (change.certificateId && change.domainId) deployed.push({ domainId: change.domainId, certificateId: change.certificateId });
      else if (change.route === null && change.domainId) removed.push(change.domainId);
    }
    if (touched.length > 0) {
      await lists.update(record.hosts, touched);
      // Not awaited: a new destination's first lookup must not delay its route (HAProxy's
      // do-resolve answers for it until the origin map has its address).
      origins.track(record.index.destinations()).catch((error) => logger.warn({ err: String(error) }, 'edge: updating origin addresses failed; the next refresh retries'));
    }
    return { deployed, removed, failed };
  };
}
