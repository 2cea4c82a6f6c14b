// The customer's own certificate (issue 22, part B; docs/custom-certificates.md):
// PUT /v1/domains/{id}/certificate validates it (model/custom-certificate.ts), stores it with its
// key sealed, and the edge serves it (the certificates trigger); the domain's workflow stops
// managed issuance (a `certificate` signal through the outbox). DELETE puts managed issuance back.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DatabaseTransactionConnection } from 'slonik';
import type { Db } from '../../db/pool.ts';
import { certificateKeyContext } from '../../acme/keys.ts';
import { newId } from '../../db/ids.ts';
import { customCertificatesRepository, type CustomChange } from '../../db/repositories/custom-certificates.ts';
import { domainsRepository } from '../../db/repositories/domains.ts';
import { checkCustomCertificate, loadOperatorCas } from '../../model/custom-certificate.ts';
import { ApiError } from '../errors.ts';
import { principalOf } from '../plugins/api-key-auth.ts';
import { writeAndAnswer } from '../plugins/idempotency.ts';
import { presentDomain } from '../presenters/domain.ts';
import { DataOf } from '../schemas/common.ts';
import { PutCertificateBody } from '../schemas/custom-certificates.ts';
import { Domain, DomainIdParams } from '../schemas/domains.ts';

export const domainCertificateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, dispatcher } = app.deps;
  const custom = customCertificatesRepository(db);
  const operatorCas = loadOperatorCas(config.certificates.customCaFile);
  const kick = (ids: number[]) => { if (ids.length > 0) void dispatcher?.kick(ids); };

  /** The refusal for a change that found no domain, or one going away; else the change. */
  const settled = (id: string, change: CustomChange) => {
    if (change.result === 'not_found') throw new ApiError('domain_not_found', `domain ${id} does not exist`, { param: 'id' });
    if (change.result === 'gone') throw new ApiError('domain_deleted', `domain ${id} is ${change.status}: it takes no certificate`, { param: 'id', details: { status: change.status } });
    return change;
  };
  /** The domain as the answer shows it, read in the write's transaction (its change included). */
  const answerOf = async (tx: DatabaseTransactionConnection, organizationId: string, id: string) => {
    // The repository only reads through `maybeOne`, which a transaction connection has as well.
    const found = await domainsRepository(tx as unknown as Db).getWithFacts(organizationId, id);
    if (!found) throw new ApiError('domain_not_found', `domain ${id} does not exist`, { param: 'id' });
    return { data: presentDomain(found.domain, config, found.facts) };
  };

  app.put('/domains/:id/certificate', {
    config: {
      apiKey: true, scope: 'domains:write', idempotent: true,
      errors: ['domain_not_found', 'domain_deleted', 'certificate_unparseable', 'private_key_unparseable', 'certificate_key_mismatch', 'certificate_key_too_weak',
        'certificate_key_unsupported', 'certificate_hostname_mismatch', 'certificate_expired', 'certificate_not_yet_valid', 'certificate_untrusted'],
    },
    schema: {
      tags: ['domains'], operationId: 'domains.putCertificate', summary: "Serve the domain with your own certificate instead of a managed one",
      description: "Puts your own certificate (PEM chain and unencrypted private key) in place for the domain. It must name the hostname in its subjectAltName (a wildcard covers one label), be within its validity, chain to a public root or to a CA the operator configured, and have an RSA key of 2048 bits or more or an EC P-256/P-384 key; each refusal has its own `422` code. The key is stored encrypted. The edge serves it within about 2 s (on a domain in `pending_certificate`, the domain then goes `active`), and Hostgate orders no certificate for the domain while it is in place. `certificate.source` reads `custom`; `certificate.renews_at` is when, if the domain's DNS points at Hostgate, a managed certificate is ordered to replace it before it lapses (3 days before `not_after`): put a renewed one before then to keep yours. `hostname.certificate_expiring` goes out 14 and 3 days before it expires. A second PUT replaces the first.",
      params: DomainIdParams,
      body: PutCertificateBody,
      response: { 200: DataOf(Domain, 'The domain, with the certificate in place') },
    },
  }, async (request, reply) => {
    const { organizationId } = principalOf(request);
    const id = request.params.id;
    const domain = await domainsRepository(db).get(organizationId, id);
    if (!domain) throw new ApiError('domain_not_found', `domain ${id} does not exist`, { param: 'id' });
    const checked = checkCustomCertificate({ hostname: domain.hostname, certificatePem: request.body.certificate, privateKeyPem: request.body.private_key, operatorCas });
    if (!checked.ok) throw new ApiError(checked.code, checked.message, { param: checked.param });
    const cert = checked.value;
    let outboxIds: number[] = [];
    const answer = await writeAndAnswer(request, reply, 200, async (tx) => {
      const change = settled(id, await custom.install(tx, organizationId, id, newId('certificate'), cert,
        (certificateId) => app.secretBox.seal(cert.keyPem, certificateKeyContext(certificateId))));
      if (change.result === 'done') outboxIds = change.outboxIds;
      return await answerOf(tx, organizationId, id);
    });
    kick(outboxIds);
    return reply.code(200).send(answer);
  });

  app.delete('/domains/:id/certificate', {
    config: { apiKey: true, scope: 'domains:write', idempotent: true, errors: ['domain_not_found', 'domain_deleted'] },
    schema: {
      tags: ['domains'], operationId: 'domains.deleteCertificate', summary: 'Stop serving your own certificate: back to managed certificates',
      description: "Takes your own certificate out of place: Hostgate orders a managed certificate for the domain (it needs the domain's DNS to point at Hostgate) and serves it once stored. Until then your certificate, if still valid, stays served (`certificate.source` reads `custom` meanwhile). A domain with none in place answers the same, unchanged.",
      params: DomainIdParams,
      response: { 200: DataOf(Domain, 'The domain; its certificate facts change when the managed certificate is stored') },
    },
  }, async (request, reply) => {
    const { organizationId } = principalOf(request);
    const id = request.params.id;
    let outboxIds: number[] = [];
    const answer = await writeAndAnswer(request, reply, 200, async (tx) => {
      // None in place (never put, or removed already): nothing to do, the same answer (a DELETE is idempotent).
      const change = settled(id, await custom.remove(tx, organizationId, id));
      if (change.result === 'done') outboxIds = change.outboxIds;
      return await answerOf(tx, organizationId, id);
    });
    kick(outboxIds);
    return reply.code(200).send(answer);
  });
};
