// Keyset pagination: walking every page while rows are being inserted never repeats a row and
// never skips one that existed before the walk began.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';

describe('pagination', () => {
  let t: TestApp;
  let org: Awaited<ReturnType<typeof createOrgWithKey>>;
  let destinationId: string;
  let seeded: string[];

  beforeAll(async () => {
    // The walk with limit 1 makes 270 requests in a second or two: lift the per-key rate limit.
    t = await createTestApp({ config: { HOSTGATE_RATE_LIMIT_PER_SECOND: '100000', HOSTGATE_RATE_LIMIT_BURST: '100000' } });
    org = await createOrgWithKey(t);
    destinationId = (await destinationsRepository(t.database.db).create({ organizationId: org.org.id, url: 'https://p.example.com', host: 'p.example.com', port: 443 })).id;
    const domains = domainsRepository(t.database.db);
    seeded = [];
    for (let i = 0; i < 250; i++) {
      seeded.push((await domains.create({ organizationId: org.org.id, destinationId, hostname: `d${i}.pages.example`, isApex: false })).domain.id);
    }
    // Several rows share a created_at millisecond: the id breaks the tie.
    await t.database.db.query(sql.unsafe`update domains set created_at = (select min(created_at) from domains) where hostname like 'd1_.pages.example'`);
  });
  afterAll(async () => { await t.close(); });

  for (const limit of [1, 7, 100]) {
    it(`walks all pages with limit ${limit} while inserting concurrently`, async () => {
      const domains = domainsRepository(t.database.db);
      const seen: string[] = [];
      let cursor: string | null = null;
      let inserted = 0;
      let pages = 0;
      do {
        const url: string = `/v1/domains?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await t.app.inject({ method: 'GET', url, headers: org.auth });
        expect(res.statusCode).toBe(200);
        const body = res.json();
        expect(body.data.length).toBeLessThanOrEqual(limit);
        seen.push(...body.data.map((d: { id: string }) => d.id));
        cursor = body.next_cursor;
        expect(body.has_more).toBe(cursor !== null);
        pages++;
        // New rows arrive mid-walk (newest first: they land before the cursor).
        if (pages % 3 === 0 && inserted < 20) {
          await domains.create({ organizationId: org.org.id, destinationId, hostname: `new${limit}-${inserted++}.pages.example`, isApex: false });
        }
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      const missing = seeded.filter((id) => !seen.includes(id));
      expect(missing).toEqual([]);
    });
  }

  it('uses the index: a deep page is an index range scan, not a sort of the whole table', async () => {
    // Seq scans off: on a table this small the planner could pick either; the point is that the
    // index serves this order without a Sort node.
    const plan = await t.database.db.transaction(async (tx) => {
      await tx.query(sql.unsafe`set local enable_seqscan = off`);
      return tx.anyFirst(sql.unsafe`explain select id from domains where organization_id = ${org.org.id}
        and (created_at, id) < (now(), 'dom_zzzz') order by created_at desc, id desc limit 21`);
    });
    expect(plan.join('\n')).toMatch(/Index (Only )?Scan.*domains_org_page/);
    expect(plan.join('\n')).not.toMatch(/Sort/);
  });
});
