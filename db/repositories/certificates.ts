// Issued certificates (chain, dates, key sealed with the certificate id as context). Unique per
// (domain, serial): storing the same certificate twice (a re-run after a crash) finds the first.
import { Type } from 'typebox';
import { NoRows, row, sql, type Db } from '../pool.ts';
import type { SealedKey } from './acme-accounts.ts';

const CertificateRow = row(Type.Object({ id: Type.String(), serial: Type.String(), not_before: Type.String(), not_after: Type.String() }));
const DatesRow = row(Type.Object({
  id: Type.String(), not_before: Type.String(), not_after: Type.String(), stored_seconds_ago: Type.Number(),
  source: Type.String(), withdrawn: Type.Boolean(),
}));
const IdRow = row(Type.Object({ id: Type.String() }));

/**
 * The order that makes a domain's certificates "current first" (what the edge serves and every
 * read shows): a custom certificate in place wins (issue 22, part B); otherwise the newest stored.
 * A withdrawn custom certificate is ranked by age like a managed one, so it stays served until a
 * newer managed certificate is stored. `c`: the certificates table's alias in the query.
 */
export function currentFirst(c = 'certificates') {
  const t = sql.identifier([c]);
  return sql.fragment`(${t}.source = 'custom' and ${t}.withdrawn_at is null) desc, ${t}.created_at desc, ${t}.id desc`;
}

export interface NewCertificate {
  id: string; domainId: string; serial: string; issuer: string; notBefore: string; notAfter: string;
  chainPem: string; sealedKey: SealedKey;
  /** The configured CA that issued it (HOSTGATE_ACME_DIRECTORIES' name; migration 020). */
  caName?: string | null;
}

export function certificatesRepository(db: Db) {
  return {
    byId(id: string) {
      return db.one(sql.type(CertificateRow)`select id, serial, not_before, not_after from certificates where id = ${id}`);
    },

    /**
     * The domain's current certificate that is not deleted (currentFirst: a custom one in place,
     * else the newest); `withdrawn`: a custom one the customer removed, served only until a
     * managed one is stored.
     */
    latestLive(domainId: string) {
      return db.maybeOne(sql.type(DatesRow)`
        select id, not_before, not_after, extract(epoch from hg_now() - created_at)::float8 as stored_seconds_ago,
          source, withdrawn_at is not null as withdrawn
        from certificates where domain_id = ${domainId} and deleted_at is null order by ${currentFirst()} limit 1`);
    },

    /**
     * Stores the certificate its order produced, completes the order (dropping its key) and removes
     * the domain's tokens; returns the stored certificate's id — the earlier row's when this very
     * certificate (same serial) was stored by an earlier run.
     */
    async storeForOrder(orderUrl: string, cert: NewCertificate): Promise<string> {
      // Certificate, order completed, tokens gone: one statement (atomic by itself) when the
      // certificate is new.
      const inserted = await db.maybeOneFirst(sql.type(IdRow)`
      with cert as (
        insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, private_key_enc, key_id, ca_name)
        values (${cert.id}, ${cert.domainId}, ${cert.serial}, ${cert.issuer}, ${cert.notBefore}, ${cert.notAfter}, ${cert.chainPem}, ${sql.binary(cert.sealedKey.ciphertext)}, ${cert.sealedKey.keyId}, ${cert.caName ?? null})
        on conflict (domain_id, serial) do nothing returning id
      ), completed as (
        update acme_orders set status = 'completed', certificate_id = cert.id, private_key_enc = null, key_id = null, error = null, updated_at = hg_now()
        from cert where order_url = ${orderUrl}
      ), tokens as (
        delete from acme_challenges where domain_id = ${cert.domainId} and exists (select 1 from cert)
      )
      select id from cert`);
      return inserted ?? await db.transaction(async (tx) => {
        // An earlier run stored this very certificate (same serial): complete the order with it.
        const certId = await tx.oneFirst(sql.type(IdRow)`select id from certificates where domain_id = ${cert.domainId} and serial = ${cert.serial}`);
        await tx.query(sql.type(NoRows)`
        update acme_orders set status = 'completed', certificate_id = ${certId}, private_key_enc = null, key_id = null, error = null, updated_at = hg_now()
        where order_url = ${orderUrl}`);
        await tx.query(sql.type(NoRows)`delete from acme_challenges where domain_id = ${cert.domainId}`);
        return certId;
      });
    },

    /**
     * Stores a certificate obtained without an order row (DNS-01 pre-validation,
     * activities/certificates/dns01.ts); a second store of the same serial returns the first id.
     */
    async storeIssued(cert: NewCertificate): Promise<string> {
      const inserted = await db.maybeOneFirst(sql.type(IdRow)`
        insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, private_key_enc, key_id, ca_name)
        values (${cert.id}, ${cert.domainId}, ${cert.serial}, ${cert.issuer}, ${cert.notBefore}, ${cert.notAfter}, ${cert.chainPem}, ${sql.binary(cert.sealedKey.ciphertext)}, ${cert.sealedKey.keyId}, ${cert.caName ?? null})
        on conflict (domain_id, serial) do nothing returning id`);
      return inserted ?? await db.oneFirst(sql.type(IdRow)`select id from certificates where domain_id = ${cert.domainId} and serial = ${cert.serial}`);
    },

    /**
     * A deleted domain's certificate material: tokens removed, open orders abandoned with their
     * keys dropped, certificates marked deleted with their keys dropped — in one transaction.
     */
    async removeDomainMaterial(domainId: string): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.query(sql.type(NoRows)`delete from acme_challenges where domain_id = ${domainId}`);
        await tx.query(sql.type(NoRows)`update acme_orders set private_key_enc = null, key_id = null, status = 'abandoned'
          where domain_id = ${domainId} and status not in ('completed', 'invalid', 'abandoned')`);
        await tx.query(sql.type(NoRows)`update certificates set private_key_enc = null, deleted_at = coalesce(deleted_at, hg_now()) where domain_id = ${domainId}`);
      });
    },
  };
}

export type CertificatesRepository = ReturnType<typeof certificatesRepository>;
