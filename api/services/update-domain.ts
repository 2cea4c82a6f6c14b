// PATCH /v1/domains/{id} (issue 23): the body checked field by field (each refusal names its
// `param`), then one transaction that changes the row, appends `hostname.updated` and records
// the idempotent answer. Re-pointing keeps the certificate: the edge re-reads the domain (the
// change trigger of migration 013) and routes to the new origin; no workflow step is involved.
import type { Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/pool.ts';
import { domainsRepository, type DomainPatch, type DomainRow } from '../../db/repositories/domains.ts';
import { checkHsts, checkMetadata, checkRedirectUrl, isRedirectUrl, type Metadata } from '../../model/domain-settings.ts';
import { normalizeHostname } from '../../model/hostname.ts';
import { ApiError } from '../errors.ts';
import { writeAndAnswer } from '../plugins/idempotency.ts';
import type { UpdateDomainBody } from '../schemas/domains.ts';

type Body = Static<typeof UpdateDomainBody>;

const invalid = (param: string, message: string) => new ApiError('invalid_request', message, { param });

/** Metadata as sent: an object of strings within the limits (model/domain-settings.ts). */
function metadataOf(value: Record<string, unknown> | null): Metadata | null {
  if (value === null) return null;
  for (const [key, v] of Object.entries(value)) if (typeof v !== 'string') throw invalid(`metadata.${key}`, `metadata values are strings; ${key} is ${v === null ? 'null' : typeof v}`);
  const problem = checkMetadata(value as Metadata);
  if (problem) throw invalid(problem.param, problem.message);
  return Object.keys(value).length === 0 ? null : value as Metadata;
}

export function domainUpdater(deps: { db: Db; serviceDomain: string }) {
  const domains = domainsRepository(deps.db);

  /** The redirect's target: an https URL, or a hostname of the organization other than this one. */
  async function checkRedirect(organizationId: string, domain: DomainRow, redirect: NonNullable<Body['redirect']>): Promise<NonNullable<DomainPatch['redirect']>> {
    if (isRedirectUrl(redirect.to)) {
      const problem = checkRedirectUrl(redirect.to, domain.hostname);
      if (problem) throw invalid(problem.param, problem.message);
      return { to: new URL(redirect.to).href, status: redirect.status, preserve_path: redirect.preserve_path };
    }
    const n = normalizeHostname(redirect.to, { serviceDomain: deps.serviceDomain });
    if (!n.ok) throw invalid('redirect.to', `redirect.to is neither an https URL nor a hostname: ${n.message}`);
    if (n.hostname === domain.hostname) throw invalid('redirect.to', `redirect.to is ${domain.hostname} itself: every request would redirect to itself`);
    if (!(await domains.ownsHostname(organizationId, n.hostname))) {
      throw invalid('redirect.to', `${n.hostname} is not a hostname of your organization; give an https URL (https://${n.hostname}/) to redirect elsewhere`);
    }
    return { to: n.hostname, status: redirect.status, preserve_path: redirect.preserve_path };
  }

  return async function updateDomain<A>(request: FastifyRequest, reply: FastifyReply, organizationId: string, id: string, body: Body, answer: (d: DomainRow) => A): Promise<A> {
    if (Object.keys(body).length === 0 || (body.tls && Object.keys(body.tls).length === 0)) {
      throw invalid(body.tls ? 'tls' : 'body', 'send at least one of destination_id, metadata, redirect, external_customer_id, tls (min_version, hsts)');
    }
    const patch: DomainPatch = {};
    if (body.metadata !== undefined) patch.metadata = metadataOf(body.metadata as Record<string, unknown> | null);
    if (body.external_customer_id !== undefined) patch.externalCustomerId = body.external_customer_id;
    if (body.destination_id !== undefined) patch.destinationId = body.destination_id;
    if (body.tls?.min_version !== undefined) patch.tlsMinVersion = body.tls.min_version;
    if (body.tls?.hsts !== undefined) {
      const problem = body.tls.hsts && checkHsts(body.tls.hsts);
      if (problem) throw invalid(problem.param, problem.message);
      patch.hsts = body.tls.hsts;
    }
    // The redirect's check needs the domain's own hostname, which never changes: read before the
    // transaction (slonik runs no pool query inside one). A missing or deleted domain is refused
    // by the update below.
    if (body.redirect !== undefined) {
      const current = await domains.get(organizationId, id);
      if (current && current.status !== 'deleting' && current.status !== 'deleted') patch.redirect = body.redirect && await checkRedirect(organizationId, current, body.redirect);
    }
    return writeAndAnswer(request, reply, 200, async (tx) => {
      const result = await domains.update(tx, organizationId, id, patch);
      if (result.result === 'updated') return answer(result.domain);
      if (result.result === 'not_found') throw new ApiError('domain_not_found', `domain ${id} does not exist`, { param: 'id' });
      if (result.result === 'destination_not_found') throw new ApiError('destination_not_found', `destination ${body.destination_id} does not exist`, { param: 'destination_id' });
      if (result.result === 'destination_loops') {
        const hostname = result.domain!.hostname;
        throw invalid('destination_id', `destination ${body.destination_id} is ${hostname.startsWith('*.') ? `a name under ${hostname}` : `${hostname} itself`}: Hostgate would send its requests back to itself in a loop; point the domain at your application's origin`);
      }
      const status = result.domain?.status ?? 'deleted';
      throw new ApiError('domain_deleted', `domain ${id} is ${status}: it can no longer be changed; connect the hostname again with POST /v1/domains`, { param: 'id', details: { status } });
    });
  };
}
