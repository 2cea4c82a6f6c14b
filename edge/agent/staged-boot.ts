// The second stage of a staged boot (issue 26). HAProxy 2.6 on OpenSSL 3.0 loads ≈ 1,000
// certificates per second of one core (perf: 55 % in OSSL_DECODER_CTX_new_for_pkey, a decoder
// context built for every private key and every DH-parameter probe; docs/scale.md), so at 100,000
// hostnames nothing was served for 98 s of HAProxy's start plus the agent's own work. Now the boot
// reads only the busiest HOSTGATE_EDGE_BOOT_FIRST_HOSTS (servingFirst) and HAProxy serves them
// within seconds; here the rest are read, validated in slices that let the event loop breathe,
// written, and loaded by one reload (the old worker serves the first ones until the new one has
// loaded everything); then a full reconcile for whatever changed meanwhile (agent.ts).
import type { EdgeRepository } from '../../db/repositories/edge.ts';
import type { Logger } from '../../logging/logger.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { TrafficAnalytics } from './analytics-flush.ts';
import type { BandwidthMeter } from './bandwidth-meter.ts';
import { servedFor } from './desired-diff.ts';
import { writeCertificate, type StatePaths } from './haproxy-files.ts';
import type { HaproxyRuntime } from './haproxy-runtime.ts';
import type { Supervisor } from './haproxy-supervisor.ts';
import type { ListFiles } from './list-files.ts';
import type { OriginAddresses } from './origin-addresses.ts';
import type { ProblemBook } from './problem-book.ts';
import type { ServedRecord } from './served-record.ts';
import { buildDesiredInSlices } from './snapshot-read.ts';
import type { CertificateCache } from './snapshot.ts';

export async function loadRest(deps: {
  /** Domains the first stage serves. */
  first: Set<string>;
  repo: Pick<EdgeRepository, 'servingAll'>; secretBox: SecretBox; cache: CertificateCache; problems: ProblemBook;
  record: ServedRecord; paths: StatePaths; lists: ListFiles; origins: OriginAddresses; meter: BandwidthMeter; traffic: TrafficAnalytics;
  supervisor: Supervisor; runtime: HaproxyRuntime; logger: Logger;
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  /** The new worker loaded exactly the record: its view need not be read (full-reconcile.ts). */
  onReloaded: (worker: string) => void;
}): Promise<void> {
  const { record, paths, logger } = deps;
  const t0 = performance.now();
  const more = await buildDesiredInSlices((await deps.repo.servingAll()).filter((r) => !deps.first.has(r.domain_id)), deps.secretBox, deps.cache);
  deps.problems.note(more, false);
  for (const h of more.hosts.values()) if (h.certificate) await writeCertificate(paths, h.hostname, h.certificate.pem);
  logger.info({ hosts: more.hosts.size, ms: Math.round(performance.now() - t0) }, 'edge: staged boot: the rest is written; reloading HAProxy to load it');
  await deps.exclusive(async () => {
    for (const h of more.hosts.values()) if (!record.hosts.has(h.hostname)) record.hosts.set(h.hostname, servedFor(h));
    record.reindex();
    await deps.lists.rewrite(record.hosts);
    await deps.origins.track(record.index.destinations());
    // A reload resets HAProxy's counters: record them first.
    await deps.meter.readOnce().catch((error) => logger.warn({ err: String(error) }, 'edge: bandwidth reading before reload failed'));
    await deps.traffic.flush().catch((error) => logger.warn({ err: String(error) }, 'edge: analytics flush before reload failed'));
    await deps.supervisor.reload();
    // The new worker loaded exactly the files just written from the record, with no change in
    // between (this is the chain): its view is the record, and the full pass that follows the
    // boot need not dump and parse it (≈ 20 MB at 100,000 hostnames, beside the first adds).
    const worker = await deps.runtime.processKey().catch(() => null);
    if (worker !== null) deps.onReloaded(worker);
  });
  logger.info({ serving: record.servingCount(), ms: Math.round(performance.now() - t0) }, 'edge: staged boot: serving every hostname');
}
