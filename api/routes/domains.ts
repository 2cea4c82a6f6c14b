import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireCursorOf } from '../../db/pagination.ts';
import { usageRepository } from '../../db/repositories/usage.ts';
import { domainsRepository } from '../../db/repositories/domains.ts';
import { normalizeHostname } from '../../model/hostname.ts';
import { ApiError } from '../errors.ts';
import { principalOf } from '../plugins/api-key-auth.ts';
import { sendRendered } from '../plugins/idempotency.ts';
import { presentBandwidth, presentDomain } from '../presenters/domain.ts';
import { certificateLifecycleRepository } from '../../db/repositories/certificate-lifecycle.ts';
import { hostnameConnector } from '../services/connect-hostname.ts';
import { DataOf, ListQuery, PageOf } from '../schemas/common.ts';
import { CreateDomainBody, Domain, DomainCreated, DomainDetail, DomainIdParams, DomainStatus, UpdateDomainBody } from '../schemas/domains.ts';
import { domainUpdater } from '../services/update-domain.ts';

/** `metadata[key]=value` on GET /v1/domains (one key). */
const METADATA_FILTER = /^metadata\[([^\]]{1,40})\]$/;

export const domainRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, dispatcher } = app.deps;
  const domains = domainsRepository(db);
  const usage = usageRepository(db);
  const lifecycle = certificateLifecycleRepository(db);
  const present = (d: Parameters<typeof presentDomain>[0]) => presentDomain(d, config);
  /** A domain just written, with its newest certificate's facts (reads join them in their own statement). */
  const presentWithFacts = async (d: Parameters<typeof presentDomain>[0]) => presentDomain(d, config, (await lifecycle.latestFacts([d.id])).get(d.id) ?? null);
  const notFound = (id: string) => new ApiError('domain_not_found', `domain ${id} does not exist`, { param: 'id' });
  // Starts and signals go through the outbox; kicking it after commit is the fast path, and the
  // worker's sweep covers a kick that fails (Temporal down, process killed).
  const kick = (ids?: number[]) => { void dispatcher?.kick(ids); };
  const connectHostname = hostnameConnector(app.deps);
  const updateDomain = domainUpdater({ db, serviceDomain: config.serviceDomain });

  app.post('/domains', {
    // claimInHandler: the key is inserted with its answer by the statement that creates the domain (issue 26).
    config: { apiKey: true, scope: 'domains:write', idempotent: true, claimInHandler: true, errors: ['destination_not_found', 'domain_conflict', 'apex_domains_unavailable', 'wildcard_requires_challenge_zone'] },
    schema: {
      tags: ['domains'], operationId: 'domains.create', summary: 'Connect a customer hostname; returns the DNS records to set',
      description: 'Connects a customer hostname to one of your destinations. The domain starts in `pending_dns` with the DNS records your customer must set (`dns_records`); Hostgate then checks DNS, issues a certificate and serves the hostname (`active`), announcing each step by webhook. A hostname is connected once across the service (`409 domain_conflict`).',
      body: CreateDomainBody,
      response: { 201: DomainCreated },
    },
  }, async (request, reply) => {
    const outcome = await connectHostname(request, reply, {
      organizationId: principalOf(request).organizationId,
      hostname: request.body.hostname,
      destination: { kind: 'named', id: request.body.destination_id },
      externalCustomerId: request.body.external_customer_id ?? null,
      widgetSessionId: null,
      ...(request.body.also_connect ? { alsoConnect: request.body.also_connect } : {}),
      answer: (domain, paired) => ({ data: present(domain), ...(paired ? { also_connected: present(paired) } : {}) }),
    });
    if ('answered' in outcome) return reply;
    return sendRendered(reply, 201, outcome.created, outcome.rendered);
  });

  app.get('/domains', {
    config: { apiKey: true },
    schema: {
      tags: ['domains'], operationId: 'domains.list', summary: 'List domains, newest first',
      description: "Lists the organization's domains, newest first, a page at a time; filter by status, hostname or your customer reference.",
      querystring: Type.Object({
        ...ListQuery,
        status: Type.Optional({ ...DomainStatus, description: 'Only domains in this status' }),
        hostname: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'Only this hostname (Unicode or punycode)' })),
        external_customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only the domains of this customer reference' })),
      }, {
        additionalProperties: false,
        // `metadata[plan]=pro`: only domains whose metadata has that key with that value (one key).
        patternProperties: { '^metadata\\[[^\\]]{1,40}\\]$': Type.String({ maxLength: 500, description: 'Only domains whose metadata holds this value for the key in brackets (one key)' }) },
      }),
      response: { 200: PageOf(Domain, 'A page of domains') },
    },
  }, async (request) => {
    const q = request.query;
    requireCursorOf(q.cursor, 'domain');
    const metadataKeys = Object.keys(q).filter((k) => METADATA_FILTER.test(k));
    if (metadataKeys.length > 1) throw new ApiError('invalid_request', `filter on one metadata key at a time; got ${metadataKeys.join(', ')}`, { param: metadataKeys[1]! });
    const metadata = metadataKeys[0] ? { key: METADATA_FILTER.exec(metadataKeys[0])![1]!, value: String((q as Record<string, unknown>)[metadataKeys[0]]) } : undefined;
    let hostname: string | undefined;
    if (q.hostname) {
      const n = normalizeHostname(q.hostname, { serviceDomain: config.serviceDomain });
      hostname = n.ok ? n.hostname : q.hostname.toLowerCase();
    }
    return domains.list(principalOf(request).organizationId, { status: q.status, hostname, externalCustomerId: q.external_customer_id, metadata }, { limit: q.limit ?? 20, cursor: q.cursor }, (d, facts) => presentDomain(d, config, facts));
  });

  app.get('/domains/:id', {
    config: { apiKey: true, errors: ['domain_not_found'] },
    schema: {
      tags: ['domains'], operationId: 'domains.retrieve', summary: 'Read a domain with its DNS records and verification state',
      description: 'Reads a domain: its status, the DNS records to set, what the last DNS check found, the ownership and certificate tracks, and the bytes the edge carried for it this period.',
      params: DomainIdParams,
      response: { 200: DataOf(DomainDetail, 'The domain with its bandwidth this period') },
    },
  }, async (request) => {
    const { organizationId } = principalOf(request);
    const found = await domains.getWithFacts(organizationId, request.params.id);
    if (!found) throw notFound(request.params.id);
    return { data: { ...presentDomain(found.domain, config, found.facts), bandwidth: presentBandwidth(await usage.domainBandwidth(organizationId, found.domain.id)) } };
  });

  app.patch('/domains/:id', {
    config: { apiKey: true, scope: 'domains:write', idempotent: true, errors: ['domain_not_found', 'domain_deleted', 'destination_not_found'] },
    schema: {
      tags: ['domains'], operationId: 'domains.update', summary: 'Change a domain: destination, metadata, redirect, customer reference, TLS settings',
      description: 'Changes any of: `destination_id` (the edge routes to the new origin within 2 s; the certificate stays, the status too), `metadata` (replaced; null clears), `redirect` (the edge answers with it; null removes it), `external_customer_id`, `tls` (`min_version`, `hsts`). Fields left out stay. Announced by a `hostname.updated` event naming the fields that changed. A domain `deleting` or `deleted` answers `409 domain_deleted`; an empty body `400`.',
      params: DomainIdParams,
      body: UpdateDomainBody,
      response: { 200: DataOf(Domain, 'The domain as changed') },
    },
  }, async (request, reply) => {
    // A PATCH never touches the certificate: its facts, read first, are those of the answer.
    const facts = (await lifecycle.latestFacts([request.params.id])).get(request.params.id) ?? null;
    return updateDomain(request, reply, principalOf(request).organizationId, request.params.id, request.body, (d) => ({ data: presentDomain(d, config, facts) }));
  });

  app.delete('/domains/:id', {
    config: { apiKey: true, scope: 'domains:write', idempotent: true, errors: ['domain_not_found'] },
    schema: {
      tags: ['domains'], operationId: 'domains.delete', summary: 'Delete a domain',
      description: 'Deletes a domain: it stops being served, its certificate is removed, and it becomes `deleted` once cleaned up. Deleting a domain already `deleting` or `deleted` answers the same.',
      params: DomainIdParams,
      response: { 202: DataOf(Domain, 'The domain, now `deleting` (or already `deleted`)') },
    },
  }, async (request, reply) => {
    const result = await domains.transition(request.params.id, 'delete', 'deleted through the API', { organizationId: principalOf(request).organizationId, signal: { signal: 'delete' } });
    if (!result.domain) throw notFound(request.params.id);
    if (result.changed) kick();
    // Already deleting or deleted: the same answer, nothing new to do.
    return reply.code(202).send({ data: present(result.domain) });
  });

  app.post('/domains/:id/verify', {
    config: { apiKey: true, scope: 'domains:write', idempotent: true, errors: ['domain_not_found', 'domain_deleted'] },
    schema: {
      tags: ['domains'], operationId: 'domains.verify', summary: 'Check DNS now instead of waiting for the next scheduled check',
      description: "Asks for an immediate DNS check (the scheduled ones back off up to an hour): call it when your customer says they set the records. The answer is the domain as it is; read it again, or wait for the `hostname.verified` webhook, for the check's outcome.",
      params: DomainIdParams,
      response: { 202: DataOf(Domain, 'The check is queued; the domain as it is now') },
    },
  }, async (request, reply) => {
    const { organizationId } = principalOf(request);
    const domain = await domains.requestVerify(organizationId, request.params.id);
    if (!domain) {
      const existing = await domains.get(organizationId, request.params.id);
      if (!existing) throw notFound(request.params.id);
      throw new ApiError('domain_deleted', `domain ${request.params.id} is ${existing.status}: there is nothing to verify; connect the hostname again with POST /v1/domains`, { param: 'id', details: { status: existing.status } });
    }
    kick();
    return reply.code(202).send({ data: await presentWithFacts(domain) });
  });
};
