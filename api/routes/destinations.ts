import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireCursorOf } from '../../db/pagination.ts';
import { destinationsRepository } from '../../db/repositories/destinations.ts';
import { domainsRepository } from '../../db/repositories/domains.ts';
import { ownEdgeHost, parseDestinationUrl, resolvesToPrivate } from '../../security/outbound-url.ts';
import { ApiError } from '../errors.ts';
import { principalOf } from '../plugins/api-key-auth.ts';
import { writeAndAnswer } from '../plugins/idempotency.ts';
import { presentDestination } from '../presenters/destination.ts';
import { DataOf, ListQuery, PageOf } from '../schemas/common.ts';
import { CreateDestinationBody, Destination, DestinationIdParams, UpdateDestinationBody } from '../schemas/destinations.ts';

export const destinationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const destinations = destinationsRepository(app.deps.db);
  const domains = domainsRepository(app.deps.db);
  const { config } = app.deps;

  /**
   * The origin must be the vendor's application, reachable on the public internet: not this
   * service's edge or a hostname it serves (the edge would proxy to itself, request after request),
   * and not a name that resolves to a private address (the edge would connect inside our network).
   * The edge checks the address it connects to again on every request (docs/edge.md).
   */
  async function refuseUnsafeOrigin(host: string): Promise<void> {
    const refuse = (why: string) => new ApiError('invalid_request', `${why}: a destination must be your application's own HTTPS origin, not something Hostgate serves, or requests would loop back to the edge.`, { param: 'url' });
    // With private targets allowed (local stacks, tests) the edge and the origin share loopback:
    // only the names are refused there.
    const edgeAddresses = config.allowPrivateTargets ? { ipv4: [], ipv6: [] } : { ipv4: config.edgeIpv4, ipv6: config.edgeIpv6 };
    const own = ownEdgeHost(host, { serviceDomain: config.serviceDomain, cnameTarget: config.cnameTarget, ...edgeAddresses });
    if (own) throw refuse(own);
    if (await domains.isConnected(host.toLowerCase())) throw refuse(`${host} is a customer hostname this service serves`);
    const problem = await resolvesToPrivate(host, { allowPrivate: config.allowPrivateTargets, lookup: app.deps.dnsLookup, forbidden: [...config.edgeIpv4, ...config.edgeIpv6] });
    if (problem) throw new ApiError('invalid_request', problem, { param: 'url' });
  }
  const notFound = (id: string) => new ApiError('destination_not_found', `destination ${id} does not exist`, { param: 'id' });

  app.post('/destinations', {
    config: { apiKey: true, scope: 'destinations:write', idempotent: true },
    schema: {
      tags: ['destinations'], operationId: 'destinations.create', summary: 'Declare a destination (an HTTPS origin of your application)',
      description: 'Declares an HTTPS origin of your application (`https://host[:port]`, port 443 or 8443) that customer hostnames are served from. The host must resolve to public addresses and must not be something Hostgate serves (the edge would proxy to itself).',
      body: CreateDestinationBody,
      response: { 201: DataOf(Destination, 'The destination, created') },
    },
  }, async (request, reply) => {
    const parsed = parseDestinationUrl(request.body.url, { allowPrivate: app.deps.config.allowPrivateTargets });
    if (!parsed.ok) throw new ApiError('invalid_request', parsed.message, { param: 'url' });
    await refuseUnsafeOrigin(parsed.host);
    // The row and the key's 201 commit together (writeAndAnswer).
    const answer = await writeAndAnswer(request, reply, 201, async (tx) => {
      const destination = await destinations.create({ organizationId: principalOf(request).organizationId, url: parsed.url, host: parsed.host, port: parsed.port }, tx);
      return { data: presentDestination(destination) };
    });
    return reply.code(201).send(answer);
  });

  app.get('/destinations', {
    config: { apiKey: true },
    schema: {
      tags: ['destinations'], operationId: 'destinations.list', summary: 'List destinations, newest first',
      description: "Lists the organization's destinations, newest first, a page at a time (`limit`, `cursor`).",
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: PageOf(Destination, 'A page of destinations') },
    },
  }, async (request) => {
    requireCursorOf(request.query.cursor, 'destination');
    return destinations.list(principalOf(request).organizationId, { limit: request.query.limit ?? 20, cursor: request.query.cursor }, presentDestination);
  });

  app.get('/destinations/:id', {
    config: { apiKey: true, errors: ['destination_not_found'] },
    schema: {
      tags: ['destinations'], operationId: 'destinations.retrieve', summary: 'Read a destination',
      description: "Reads one of the organization's destinations; another organization's id answers like a missing one.",
      params: DestinationIdParams,
      response: { 200: DataOf(Destination, 'The destination') },
    },
  }, async (request) => {
    const destination = await destinations.get(principalOf(request).organizationId, request.params.id);
    if (!destination) throw notFound(request.params.id);
    return { data: presentDestination(destination) };
  });

  app.patch('/destinations/:id', {
    config: { apiKey: true, scope: 'destinations:write', idempotent: true, errors: ['destination_not_found'] },
    schema: {
      tags: ['destinations'], operationId: 'destinations.update', summary: "Change a destination's URL; its domains re-route",
      description: 'Points the destination at another HTTPS origin (the same port, public-address and loop rules as at creation). Every domain on it is routed to the new origin within 2 s; certificates and statuses stay.',
      params: DestinationIdParams,
      body: UpdateDestinationBody,
      response: { 200: DataOf(Destination, 'The destination as changed') },
    },
  }, async (request, reply) => {
    const parsed = parseDestinationUrl(request.body.url, { allowPrivate: app.deps.config.allowPrivateTargets });
    if (!parsed.ok) throw new ApiError('invalid_request', parsed.message, { param: 'url' });
    await refuseUnsafeOrigin(parsed.host);
    return writeAndAnswer(request, reply, 200, async (tx) => {
      const destination = await destinations.update(principalOf(request).organizationId, request.params.id, { url: parsed.url, host: parsed.host, port: parsed.port }, tx);
      if (!destination) throw notFound(request.params.id);
      return { data: presentDestination(destination) };
    });
  });

  app.delete('/destinations/:id', {
    config: { apiKey: true, scope: 'destinations:write', idempotent: true, errors: ['destination_not_found', 'destination_in_use'] },
    schema: {
      tags: ['destinations'], operationId: 'destinations.delete', summary: 'Delete a destination no live domain points at',
      description: 'Deletes a destination. Refused with `409 destination_in_use` while a domain that is not deleted points at it: delete or move those first.',
      params: DestinationIdParams,
      response: { 200: DataOf(Destination, 'The destination as it was, now deleted') },
    },
  }, async (request, reply) => writeAndAnswer(request, reply, 200, async (tx) => {
    const { result, destination } = await destinations.delete(principalOf(request).organizationId, request.params.id, tx);
    if (result === 'not_found') throw notFound(request.params.id);
    if (result === 'in_use') throw new ApiError('destination_in_use', `destination ${request.params.id} still has domains pointing at it; delete or move them first`);
    return { data: presentDestination(destination!) };
  }));
};
