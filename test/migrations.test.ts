import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrate } from '../db/migrate.ts';
import { sql } from '../db/pool.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';

describe('migrations', () => {
  let t: TestDatabase;
  beforeAll(async () => { t = await createTestDatabase({ migrated: false }); });
  afterAll(async () => { await t.drop(); });

  it('apply to an empty database, then re-run as a no-op', async () => {
    const first = await migrate(t.url);
    expect(first.applied.length).toBeGreaterThan(0);
    expect(first.version).toBeGreaterThanOrEqual(1);
    const second = await migrate(t.url);
    expect(second.applied).toEqual([]);
    expect(second.version).toBe(first.version);
  });

  it('run concurrently without conflict (advisory lock)', async () => {
    const results = await Promise.all([migrate(t.url), migrate(t.url), migrate(t.url)]);
    expect(results.every((r) => r.applied.length === 0)).toBe(true);
  });

  it('enforce invariants in the database itself', async () => {
    const { db } = t;
    await db.query(sql.unsafe`insert into organizations (id, name) values ('org_a', 'A')`);
    await db.query(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values ('dst_a', 'org_a', 'https://app.example.com', 'app.example.com', 443)`);
    await expect(db.query(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values ('dst_b', 'org_a', 'https://x.example.com:80', 'x.example.com', 80)`)).rejects.toThrow(/check/i);
    await expect(db.query(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values ('dst_c', 'org_missing', 'https://x.example.com', 'x.example.com', 443)`)).rejects.toThrow(/foreign key/i);
    await db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex) values ('dom_a', 'org_a', 'dst_a', 'shop.customer.com', false)`);
    // A second live claim of the same hostname is refused, even from another organization.
    await db.query(sql.unsafe`insert into organizations (id, name) values ('org_b', 'B')`);
    await db.query(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values ('dst_b2', 'org_b', 'https://b.example.com', 'b.example.com', 443)`);
    await expect(db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex) values ('dom_b', 'org_b', 'dst_b2', 'shop.customer.com', false)`)).rejects.toThrow(/unique/i);
    // Once deleted, the hostname can be claimed again.
    await db.query(sql.unsafe`update domains set status = 'deleted' where id = 'dom_a'`);
    await db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex) values ('dom_b', 'org_b', 'dst_b2', 'shop.customer.com', false)`);
    await expect(db.query(sql.unsafe`update domains set status = 'bogus' where id = 'dom_b'`)).rejects.toThrow(/check/i);
    await expect(db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex) values ('dom_c', 'org_b', 'dst_b2', 'Upper.Example.com', false)`)).rejects.toThrow(/check/i);
    await expect(db.query(sql.unsafe`insert into api_keys (id, organization_id, display_prefix, secret_hash, scopes) values ('key_x', 'org_a', 'hg_live_abcd', '\\x00'::bytea, '{}')`)).rejects.toThrow(/check/i);
    await expect(db.query(sql.unsafe`insert into api_keys (id, organization_id, display_prefix, secret_hash, scopes) values ('key_y', 'org_a', 'hg_live_abcd', decode(repeat('ab', 32), 'hex'), '{admin:all}')`)).rejects.toThrow(/check/i);
  });
});
