// Reading the whole serving set without holding the agent up: a digest of every row (no PEMs,
// ≈ 200 bytes a row instead of ≈ 5 KiB) with full rows fetched only for certificates the cache
// does not hold, and validation in slices that yield to the event loop. At 20,000 hostnames a
// full reconcile reading and validating every PEM in one go held an added hostname back by
// seconds; the full read now happens at boot (a cold cache) and for new certificates only.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { edgeRepository, ServingRow } from '../../db/repositories/edge.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { buildDesired, type CertificateCache, type Desired } from './snapshot.ts';
import type { Pause } from './changes-first.ts';

/** Validation slice: about 50 ms of work, so notifications and heartbeats are not held up. */
const SLICE = 500;
/** Domains per full-row read. */
const FETCH_BATCH = 1000;
/**
 * Digest rows per page. One statement for all 100,000 kept a Postgres backend busy for ≈ 2 s and
 * then validated every row (slonik's row parser) in one go on the agent's event loop; a page is a
 * few ms of both, and a change arriving meanwhile waits for at most one (`pause`).
 */
const DIGEST_PAGE = 500;

/** Every serving row; PEMs only where the certificate cache lacks them. */
export async function readServingRows(
  repo: Pick<ReturnType<typeof edgeRepository>, 'servingDigestPage' | 'servingFor'>, cache: CertificateCache, pause: Pause = yieldToLoop,
): Promise<ServingRow[]> {
  const rows: ServingRow[] = [];
  const missing: string[] = [];
  for (let after: string | null = null; ;) {
    const page = await repo.servingDigestPage(after, DIGEST_PAGE);
    for (const r of page) {
      rows.push(r);
      if (r.certificate_id && !cache.has(r.certificate_id, r.hostname)) missing.push(r.domain_id);
    }
    if (page.length < DIGEST_PAGE) break;
    after = page.at(-1)!.hostname;
    await pause();
  }
  if (missing.length === 0) return rows;
  const full = new Map<string, ServingRow>();
  for (let i = 0; i < missing.length; i += FETCH_BATCH) {
    for (const r of await repo.servingFor(missing.slice(i, i + FETCH_BATCH))) full.set(r.domain_id, r);
    await pause();
  }
  // A domain gone since the digest keeps its digest row: it reads the cache or goes without a
  // certificate this pass (the notification of that change follows).
  return rows.map((r) => full.get(r.domain_id) ?? r);
}

/** buildDesired over many rows in slices, yielding between them. */
export async function buildDesiredInSlices(rows: readonly ServingRow[], secretBox: SecretBox, cache: CertificateCache, pause: Pause = yieldToLoop): Promise<Desired> {
  const out: Desired = { hosts: new Map(), problems: [], domainIds: new Set() };
  for (let i = 0; i < rows.length; i += SLICE) {
    const part = buildDesired(rows.slice(i, i + SLICE), secretBox, cache);
    for (const [h, v] of part.hosts) out.hosts.set(h, v);
    out.problems.push(...part.problems);
    for (const id of part.domainIds) out.domainIds.add(id);
    await pause();
  }
  return out;
}
