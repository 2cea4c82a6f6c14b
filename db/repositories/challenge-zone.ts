// The challenge zone as PowerDNS serves it (migration 010, schema `pdns`): the zone's own row with
// its SOA and NS records, and the TXT records of DNS-01 challenges that customers' delegation
// CNAMEs point at. pdns_server reads these tables on every question (gpgsql backend, caches off),
// so a row written here is answered at once.
import { Type } from 'typebox';
import { NoRows, row, sql, type Db } from '../pool.ts';

const IdRow = row(Type.Object({ id: Type.Number() }));

/** TXT content as PowerDNS stores it: one quoted character-string (ACME values are base64url). */
export function txtContent(value: string): string {
  if (!/^[A-Za-z0-9_.=+/-]{1,255}$/.test(value)) throw new Error('a challenge TXT value must be 1-255 base64url characters');
  return `"${value}"`;
}

export function challengeZoneRepository(db: Db) {
  /** The zone's id, creating the zone (SOA, NS) the first time. Idempotent and race-safe. */
  async function ensureZone(zone: string): Promise<number> {
    const name = zone.toLowerCase();
    return db.transaction(async (tx) => {
      await tx.query(sql.type(NoRows)`insert into pdns.domains (name, type) values (${name}, 'NATIVE') on conflict (name) do nothing`);
      const id = await tx.oneFirst(sql.type(IdRow)`select id from pdns.domains where name = ${name}`);
      // SOA minimum 0: resolvers must not cache "no such TXT" for the time between a delegation
      // check and the CA's question.
      await tx.query(sql.type(NoRows)`
        insert into pdns.records (domain_id, name, type, content, ttl, auth)
        select ${id}, ${name}, 'SOA', ${`ns1.${name} hostmaster.${name} 1 3600 600 604800 0`}, 3600, true
        where not exists (select 1 from pdns.records where domain_id = ${id} and type = 'SOA')`);
      await tx.query(sql.type(NoRows)`
        insert into pdns.records (domain_id, name, type, content, ttl, auth)
        select ${id}, ${name}, 'NS', ${`ns1.${name}`}, 3600, true
        where not exists (select 1 from pdns.records where domain_id = ${id} and type = 'NS')`);
      return id;
    });
  }

  return {
    ensureZone,

    /** Publishes a TXT value at `name` (inside `zone`); publishing the same value again is a no-op. */
    async publish(zone: string, name: string, value: string): Promise<void> {
      const zoneId = await ensureZone(zone);
      const content = txtContent(value);
      await db.query(sql.type(NoRows)`
        insert into pdns.records (domain_id, name, type, content, ttl, auth)
        select ${zoneId}, ${name.toLowerCase()}, 'TXT', ${content}, 60, true
        where not exists (select 1 from pdns.records where name = ${name.toLowerCase()} and type = 'TXT' and content = ${content})`);
    },

    /** Removes the TXT records at `name` (all of them when no value is given). */
    async withdraw(name: string, value?: string): Promise<void> {
      await db.query(sql.type(NoRows)`
        delete from pdns.records where name = ${name.toLowerCase()} and type = 'TXT'
        ${value === undefined ? sql.fragment`` : sql.fragment`and content = ${txtContent(value)}`}`);
    },
  };
}

export type ChallengeZoneRepository = ReturnType<typeof challengeZoneRepository>;
