// A fresh start of a large edge, in two stages (issue 26). HAProxy 2.6 on OpenSSL 3.0 loads about
// 1,000 certificates per second of one core (perf: 55 % of it in OSSL_DECODER_CTX_new_for_pkey, a
// decoder context built for every private key and every DH-parameter probe, docs/scale.md), so at
// 100,000 hostnames nothing was served for 98 s of HAProxy's start plus the agent's own work.
// Now the agent reads only the busiest hostnames (HOSTGATE_EDGE_BOOT_FIRST_HOSTS, by the last
// day's bytes, then by name: db/repositories/edge.ts servingFirst) and HAProxy starts on them and
// serves them within seconds; the rest are read, validated in slices that let the event loop
// breathe, written, and loaded by a reload, during which the old worker keeps serving the first.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { SecretBox } from '../../security/secret-box.ts';
import { buildDesired, type CertificateCache, type Desired } from './snapshot.ts';

/** Validation slice: about 50 ms of work, so notifications and heartbeats are not held up. */
const SLICE = 500;

/** buildDesired over many rows in slices, yielding between them. */
export async function buildDesiredInSlices(rows: Parameters<typeof buildDesired>[0], secretBox: SecretBox, cache: CertificateCache): Promise<Desired> {
  const out: Desired = { hosts: new Map(), problems: [], domainIds: new Set() };
  for (let i = 0; i < rows.length; i += SLICE) {
    const part = buildDesired(rows.slice(i, i + SLICE), secretBox, cache);
    for (const [h, v] of part.hosts) out.hosts.set(h, v);
    out.problems.push(...part.problems);
    for (const id of part.domainIds) out.domainIds.add(id);
    await yieldToLoop();
  }
  return out;
}
