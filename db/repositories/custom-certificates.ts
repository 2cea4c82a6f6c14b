// The customer's own certificate in Postgres (issue 22, part B; migration 019): put in place,
// removed, or withdrawn because it is about to lapse — each with its history row and, for the
// first two, a `certificate` signal to the domain's workflow through the outbox (the workflow
// stops or resumes managed issuance). The edge learns by the certificates trigger (NOTIFY).
import type { DatabaseTransactionConnection } from 'slonik';
import { Type } from 'typebox';
import { NoRows, row, sql, type Db } from '../pool.ts';
import type { SealedKey } from './acme-accounts.ts';
import { addHistory } from './certificate-lifecycle.ts';
import { workflowOutboxRepository } from './workflow-outbox.ts';

/** A validated custom certificate (model/custom-certificate.ts) ready to store. */
export interface CustomCertificate { serial: string; issuer: string; notBefore: string; notAfter: string; chainPem: string }

const DomainRow = row(Type.Object({ id: Type.String(), status: Type.String() }));
const IdRow = row(Type.Object({ id: Type.String() }));
const InPlaceRow = row(Type.Object({ id: Type.String(), serial: Type.String(), expired: Type.Boolean() }));

/** Statuses in which a domain takes no certificate (it is going or gone). */
const GONE = new Set(['deleting', 'deleted']);

export type CustomChange =
  | { result: 'not_found' }
  | { result: 'gone'; status: string }
  | { result: 'done'; certificateId: string | null; outboxIds: number[] };

export function customCertificatesRepository(db: Db) {
  const outbox = workflowOutboxRepository(db);

  /** The organization's domain, locked for the change (another PUT/DELETE of it waits). */
  async function lockDomain(tx: DatabaseTransactionConnection, organizationId: string, domainId: string) {
    return await tx.maybeOne(sql.type(DomainRow)`select id, status from domains where id = ${domainId} and organization_id = ${organizationId} for update`);
  }

  async function signal(tx: DatabaseTransactionConnection, domainId: string): Promise<number[]> {
    // Bumps updated_at too: an edge polling changedSince (its LISTEN lost) re-reads the domain.
    await tx.query(sql.type(NoRows)`update domains set updated_at = hg_now() where id = ${domainId}`);
    return await outbox.enqueueDomainSignals(tx, [domainId], { signal: 'certificate' });
  }

  return {
    /**
     * (In the caller's transaction: the API's write and its idempotent answer commit together.)
     * Puts the certificate in place for the domain: any custom certificate in place before is
     * deleted (key dropped), a re-PUT of one stored earlier (same serial) brings that row back.
     * `seal` seals the key for the row id it is given (the key's context is the row id).
     */
    async install(tx: DatabaseTransactionConnection, organizationId: string, domainId: string, newId: string, cert: CustomCertificate, seal: (certificateId: string) => SealedKey): Promise<CustomChange> {
      const domain = await lockDomain(tx, organizationId, domainId);
      if (!domain) return { result: 'not_found' as const };
      if (GONE.has(domain.status)) return { result: 'gone' as const, status: domain.status };
      const earlier = await tx.maybeOneFirst(sql.type(IdRow)`select id from certificates where domain_id = ${domainId} and serial = ${cert.serial} and source = 'custom'`);
      const id = earlier ?? newId;
      // The previous custom certificate (in place or withdrawn) is replaced: its key goes.
      await tx.query(sql.type(NoRows)`update certificates set deleted_at = coalesce(deleted_at, hg_now()), private_key_enc = null
        where domain_id = ${domainId} and source = 'custom' and id <> ${id} and (deleted_at is null or private_key_enc is not null)`);
      const sealed = seal(id);
      if (earlier) {
        await tx.query(sql.type(NoRows)`update certificates set withdrawn_at = null, deleted_at = null, chain_pem = ${cert.chainPem},
          private_key_enc = ${sql.binary(sealed.ciphertext)}, key_id = ${sealed.keyId}, created_at = hg_now() where id = ${id}`);
      } else {
        // A managed certificate with this very serial cannot exist (a CA's serials are its own).
        await tx.query(sql.type(NoRows)`
          insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, private_key_enc, key_id, source)
          values (${id}, ${domainId}, ${cert.serial}, ${cert.issuer}, ${cert.notBefore}, ${cert.notAfter}, ${cert.chainPem}, ${sql.binary(sealed.ciphertext)}, ${sealed.keyId}, 'custom')`);
      }
      await addHistory(tx, domainId, id, 'custom_installed', `serial ${cert.serial}, issued by ${cert.issuer}, valid until ${cert.notAfter}`);
      return { result: 'done' as const, certificateId: id, outboxIds: await signal(tx, domainId) };
    },

    /**
     * Takes the custom certificate out of place (DELETE): withdrawn, and still served until a
     * managed certificate is stored — unless it has expired, then deleted at once. `certificateId`
     * null: there was none in place (nothing changes, nothing is signalled).
     */
    async remove(tx: DatabaseTransactionConnection, organizationId: string, domainId: string): Promise<CustomChange> {
      const domain = await lockDomain(tx, organizationId, domainId);
      if (!domain) return { result: 'not_found' as const };
      if (GONE.has(domain.status)) return { result: 'gone' as const, status: domain.status };
      const inPlace = await tx.maybeOne(sql.type(InPlaceRow)`
        select id, serial, not_after <= hg_now() as expired from certificates
        where domain_id = ${domainId} and source = 'custom' and withdrawn_at is null and deleted_at is null`);
      if (!inPlace) return { result: 'done' as const, certificateId: null, outboxIds: [] };
      await tx.query(inPlace.expired
        ? sql.type(NoRows)`update certificates set withdrawn_at = hg_now(), deleted_at = hg_now(), private_key_enc = null where id = ${inPlace.id}`
        : sql.type(NoRows)`update certificates set withdrawn_at = hg_now() where id = ${inPlace.id}`);
      await addHistory(tx, domainId, inPlace.id, 'custom_removed', inPlace.expired
        ? `serial ${inPlace.serial} removed (expired: no longer served)`
        : `serial ${inPlace.serial} removed; served until a managed certificate is stored`);
      return { result: 'done' as const, certificateId: inPlace.id, outboxIds: await signal(tx, domainId) };
    },

    /**
     * The workflow's takeover of a custom certificate about to lapse (DNS points here): withdrawn
     * (still served until the managed one is stored) with a `custom_lapsing` history row. False
     * when it is no longer in place (replaced or removed meanwhile). Idempotent.
     */
    async withdrawLapsing(domainId: string, certificateId: string): Promise<boolean> {
      return await db.transaction(async (tx) => {
        const withdrawn = await tx.maybeOneFirst(sql.type(IdRow)`update certificates set withdrawn_at = hg_now()
          where id = ${certificateId} and domain_id = ${domainId} and source = 'custom' and withdrawn_at is null and deleted_at is null returning id`);
        if (!withdrawn) return false;
        await addHistory(tx, domainId, certificateId, 'custom_lapsing', 'about to lapse: a managed certificate is ordered to replace it');
        return true;
      });
    },
  };
}

export type CustomCertificatesRepository = ReturnType<typeof customCertificatesRepository>;
