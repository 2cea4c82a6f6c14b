// The browser endpoints of <service-widget>, authenticated with a widget session token (see
// plugins/widget-auth.ts): list the customer's domains (so a reloaded page resumes), create a
// domain (or continue with one the customer already started), read it, ask for an immediate DNS
// check, and hand a domain over to another session. A session sees the domains created through
// the widget for its customer (organization + external_customer_id); any other domain answers
// exactly like a missing one.
//
// Error codes are the widget's (spec section 7): anything that is not one of them is answered as
// `widget_request_failed`, with the underlying code in `details.cause`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { domainsRepository, type DomainRow } from '../../db/repositories/domains.ts';
import { widgetSessionsRepository, type WidgetSessionRow } from '../../db/repositories/widget-sessions.ts';
import { WIDGET_TOKEN_PREFIX } from '../../security/tokens.ts';
import { ApiError, type ErrorCode } from '../errors.ts';
import { answerError } from '../plugins/errors.ts';
import { sendRendered } from '../plugins/idempotency.ts';
import { widgetAuthPlugin, widgetSessionOf } from '../plugins/widget-auth.ts';
import { presentWidgetDomain } from '../presenters/widget-domain.ts';
import type { CertificateFacts } from '../../db/repositories/certificate-lifecycle.ts';
import { DataOf, ListQuery, PageOf } from '../schemas/common.ts';
import { CreateWidgetDomainBody, HandoverBody, WidgetDomain, WidgetDomainIdParams } from '../schemas/widget.ts';
import { hostnameConnector } from '../services/connect-hostname.ts';

/** Codes a widget call answers as they are; everything else becomes widget_request_failed. */
const WIDGET_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'missing_token', 'invalid_widget_token', 'widget_token_expired', 'origin_forbidden', 'destination_not_found',
  'domain_conflict', 'widget_domain_not_found', 'widget_request_failed', 'rate_limited', 'internal_error', 'service_unavailable',
]);

export function toWidgetError(error: ApiError): ApiError {
  if (WIDGET_CODES.has(error.code)) return error;
  return new ApiError('widget_request_failed', error.message, {
    ...(error.param !== undefined ? { param: error.param } : {}),
    details: { ...(error.details ?? {}), cause: error.code },
    headers: error.headers,
  });
}

/** A previous session may hand its domains over this long after it expired. */
const HANDOVER_GRACE_MS = 24 * 3600 * 1000;


export const widgetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(widgetAuthPlugin);
  // The widget's envelope, with the same logging and vanished-client handling as every route.
  app.setErrorHandler((error, request, reply) => answerError(error, request, reply, toWidgetError));

  const { db, config, dispatcher } = app.deps;
  const domains = domainsRepository(db);
  const sessions = widgetSessionsRepository(db);
  const present = (d: DomainRow) => presentWidgetDomain(d, config);
  /** A read: with the newest certificate's facts (ownDomain reads them with the domain). */
  const presentRead = ({ domain, facts }: { domain: DomainRow; facts: CertificateFacts | null }) => presentWidgetDomain(domain, config, facts);
  const notFound = (id: string) => new ApiError('widget_domain_not_found', `domain ${id} does not exist for this widget session`, { param: 'id' });
  const kick = (ids?: number[]) => { void dispatcher?.kick(ids); };
  const connectHostname = hostnameConnector(app.deps);

  /** The domain when the widget created it for this session's customer; else widget_domain_not_found. */
  async function ownDomain(session: WidgetSessionRow, id: string): Promise<{ domain: DomainRow; facts: CertificateFacts | null }> {
    const found = await domains.getWithFacts(session.organization_id, id);
    const domain = found?.domain;
    if (!found || !domain || domain.widget_session_id === null || domain.external_customer_id !== session.external_customer_id || domain.status === 'deleted') throw notFound(id);
    return found;
  }

  for (const url of ['/widget/domains', '/widget/domains/:id', '/widget/domains/:id/verify', '/widget/domains/:id/handover']) {
    app.options(url, { config: { widgetPreflight: true }, schema: { hide: true } }, (request, reply) => app.widgetPreflight(request, reply));
  }

  app.get('/widget/domains', {
    config: { widget: true, widgetLimit: 'poll' },
    schema: {
      tags: ['widget'], operationId: 'widget.listDomains',
      summary: "Browser: the domains the widget created for this session's customer",
      description: "The domains the widget created for this session's customer (through any of its sessions), newest first, deleted ones left out: a reloaded page resumes with them.",
      // As the server API's lists: an unknown query parameter is a mistake, said as such.
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: PageOf(WidgetDomain, "A page of the customer's domains") },
    },
  }, async (request) => {
    const session = widgetSessionOf(request);
    return sessions.customerDomains(session.organization_id, session.external_customer_id, { limit: request.query.limit ?? 20, cursor: request.query.cursor })
      .then((page) => ({ ...page, data: page.data.map(present) }));
  });

  app.post('/widget/domains', {
    config: { widget: true, widgetLimit: 'create', idempotent: true, errors: ['destination_not_found', 'domain_conflict'] },
    schema: {
      tags: ['widget'], operationId: 'widget.createDomain', summary: 'Browser: connect a hostname for the session\'s customer; returns the DNS records to set',
      description: "Connects the hostname the customer typed to the session's destination. A hostname the customer already started through the widget answers `200` with that domain instead of a conflict.",
      body: CreateWidgetDomainBody,
      response: {
        201: DataOf(WidgetDomain, 'The domain, in `pending_dns`, with the DNS records to set'),
        200: DataOf(WidgetDomain, "The customer's widget sessions already created this hostname: the element continues with it"),
      },
    },
  }, async (request, reply) => {
    const session = widgetSessionOf(request);
    const result = await connectHostname(request, reply, {
      organizationId: session.organization_id,
      hostname: request.body.hostname,
      destination: { kind: 'session', id: session.destination_id },
      externalCustomerId: session.external_customer_id,
      widgetSessionId: session.id,
      answer: (domain) => ({ data: present(domain) }),
      // Entered again (after a reload, in another tab, with a new token): continue, not a conflict.
      resume: (hostname) => sessions.customerDomainByHostname(session.organization_id, session.external_customer_id, hostname),
    });
    if ('resumed' in result) return reply.code(200).send({ data: present(result.resumed) });
    // (Only a claimInHandler route can be answered by its key inside; this one is claimed before.)
    if ('answered' in result) return reply;
    return sendRendered(reply, 201, result.created, result.rendered);
  });

  app.get('/widget/domains/:id', {
    config: { widget: true, widgetLimit: 'poll', errors: ['widget_domain_not_found'] },
    schema: {
      tags: ['widget'], operationId: 'widget.retrieveDomain', summary: 'Browser: read a domain of this session',
      description: "Reads one of the customer's widget domains: status, DNS records, verification. The element polls it every 10 s until a final status.",
      params: WidgetDomainIdParams,
      response: { 200: DataOf(WidgetDomain, 'The domain') },
    },
  }, async (request) => {
    return { data: presentRead(await ownDomain(widgetSessionOf(request), request.params.id)) };
  });

  app.post('/widget/domains/:id/verify', {
    config: { widget: true, widgetLimit: 'poll', idempotent: true, errors: ['widget_domain_not_found'] },
    schema: {
      tags: ['widget'], operationId: 'widget.verifyDomain', summary: 'Browser: check DNS now instead of waiting for the next scheduled check',
      description: "The customer's \"I have set the records\": asks for an immediate DNS check of one of the customer's widget domains.",
      params: WidgetDomainIdParams,
      response: { 202: DataOf(WidgetDomain, 'The check is queued; the domain as it is now') },
    },
  }, async (request, reply) => {
    const session = widgetSessionOf(request);
    await ownDomain(session, request.params.id);
    const domain = await domains.requestVerify(session.organization_id, request.params.id);
    if (!domain) throw notFound(request.params.id);
    kick();
    return reply.code(202).send({ data: present(domain) });
  });

  app.post('/widget/domains/:id/handover', {
    config: { widget: true, widgetLimit: 'poll', idempotent: true, errors: ['widget_domain_not_found'] },
    schema: {
      tags: ['widget'], operationId: 'widget.handoverDomain',
      summary: 'Browser: move a domain to this session from an expired one of the same customer',
      description: 'Moves a domain from the session that created it (its token, expired less than 24 h ago) to this session of the same customer, so a new token resumes where the old one stopped. Kept for elements already deployed: a session now sees every widget domain of its customer.',
      params: WidgetDomainIdParams,
      body: HandoverBody,
      response: { 200: DataOf(WidgetDomain, 'The domain, now this session\'s') },
    },
  }, async (request) => {
    const session = widgetSessionOf(request);
    const id = request.params.id;
    const token = request.body.previous_token;
    const previous = token.startsWith(WIDGET_TOKEN_PREFIX) ? await sessions.authenticate(token) : null;
    const sameCustomer = previous !== null
      && previous.organization_id === session.organization_id
      && previous.external_customer_id === session.external_customer_id
      && Date.parse(previous.expires_at) > Date.now() - HANDOVER_GRACE_MS;
    if (!previous || !sameCustomer || !(await sessions.handOver(id, previous.id, session.id))) throw notFound(id);
    return { data: presentRead(await ownDomain(session, id)) };
  });
};
