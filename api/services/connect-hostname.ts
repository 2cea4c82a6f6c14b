// "Connect a hostname": the one write behind POST /v1/domains (the vendor's server) and
// POST /v1/widget/domains (the vendor's customer, in <service-widget>). Every check, the write and
// its refusals live here, so the two routes cannot drift apart again; each route only shapes its
// answer (presenter, status code, the widget's "already started → 200").
//
// A plain module, not a Fastify decorator (fastify/demo hangs shared logic on the instance with an
// `fp` plugin and declared dependencies). This holds nothing of its own to open or close, and what
// it needs (db, config, dispatcher) is already on `app.deps`, which both routes read. An import is
// checked by the compiler; a decorator would add a module augmentation of FastifyInstance and a
// registration order (after idempotency, before both route plugins) checked only at boot. It is a
// factory over deps, like the repositories it calls.
//
// Refusals carry the server API's codes. The widget route's error handler (toWidgetError) turns
// each one the widget does not answer as it is into widget_request_failed with the code in
// details.cause, which the widget route used to spell out by hand.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/index.ts';
import { newId } from '../../db/ids.ts';
import { randomBytesPooled } from '../../security/random.ts';
import type { Db } from '../../db/pool.ts';
import { destinationsRepository } from '../../db/repositories/destinations.ts';
import { IdempotencyClaimLostError } from '../../db/repositories/idempotency-keys.ts';
import { DomainConflictError, domainsRepository, type DomainRow } from '../../db/repositories/domains.ts';
import { normalizeHostname } from '../../model/hostname.ts';
import { pairedHostname } from '../../model/domain-settings.ts';
import { wildcardCovers } from '../../model/wildcards.ts';
import type { OutboxDispatcher } from '../../temporal/outbox-dispatcher.ts';
import { ApiError } from '../errors.ts';
import { answerStored, claimPending, recordAnswerWithin, sealAnswer } from '../plugins/idempotency.ts';

export type DestinationChoice =
  /** POST /v1/domains: the body's destination_id. */
  | { kind: 'named'; id: string }
  /** A widget session's destination; when it names none (id null), the organization's only live one (issue 18). */
  | { kind: 'session'; id: string | null };

export interface ConnectInput<A> {
  organizationId: string;
  /** As the caller sent it; normalised here. */
  hostname: string;
  destination: DestinationChoice;
  externalCustomerId: string | null;
  /**
   * The widget session creating the domain, null from the server API. A widget create is read by
   * the vendor's customer: its refusals name no other organization and no server setting.
   */
  widgetSessionId: string | null;
  /**
   * The 201 body: recorded as the request's idempotent answer in the transaction that creates the
   * domain (issue 14). `paired`: the also_connect partner, created in the same transaction.
   */
  answer: (domain: DomainRow, paired: DomainRow | null) => A;
  /**
   * POST /v1/domains `also_connect` (issue 23): "www" for an apex, "apex" for a www. name. The
   * other name is created in the same transaction with a 301 redirect (path kept) to this one;
   * a conflict on either creates neither.
   */
  alsoConnect?: 'www' | 'apex';
  /**
   * A domain to continue with instead of creating one (the widget: a hostname the customer already
   * started). Asked before the write, and again when a concurrent create took the hostname.
   */
  resume?: (hostname: string) => Promise<DomainRow | null>;
}

/**
 * `answered`: the request's Idempotency-Key replayed its stored answer (a claimInHandler route); the reply is sent.
 * `rendered`: `created` as the route's serializer rendered it for the idempotent answer (send it with
 * sendRendered: not rendered twice), null when it was not rendered.
 */
export type Connected<A> = { created: A; rendered: string | null } | { resumed: DomainRow } | { answered: true };

/** What it needs of `app.deps` (typed here, not imported from app.ts, which imports the routes that import this). */
export interface ConnectDeps { db: Db; config: Config; dispatcher: OutboxDispatcher | null }

export function hostnameConnector(deps: ConnectDeps) {
  const { db, config, dispatcher } = deps;
  const domains = domainsRepository(db);
  const destinations = destinationsRepository(db);

  function connectHostname<A>(request: FastifyRequest, reply: FastifyReply, input: ConnectInput<A> & { resume?: undefined }): Promise<{ created: A; rendered: string | null } | { answered: true }>;
  function connectHostname<A>(request: FastifyRequest, reply: FastifyReply, input: ConnectInput<A>): Promise<Connected<A>>;
  async function connectHostname<A>(request: FastifyRequest, reply: FastifyReply, input: ConnectInput<A>): Promise<Connected<A>> {
    try {
      return await connect(request, reply, input);
    } catch (error) {
      // A refusal before the key was claimed (the hostname, the apex, the wildcard checks): the
      // key is claimed now, as the preHandler of every other write does before anything else, so
      // a reused key still answers idempotency_key_reused (422) first, a replay replays, and the
      // refusal is stored as the key's answer.
      if (error instanceof ApiError && request.idempotencyPending) {
        if (await claimPending(request, reply) === 'answered') return { answered: true };
      }
      throw error;
    }
  }

  async function connect<A>(request: FastifyRequest, reply: FastifyReply, input: ConnectInput<A>): Promise<Connected<A>> {
    const forCustomer = input.widgetSessionId !== null;
    // Wildcards are the vendor's decision (a wildcard covers every name under the customer's
    // domain and bills as one hostname): the server API takes them, the widget does not
    // (docs/wildcards.md), so a customer's `*.` is refused as before, reason `wildcard`.
    const normalized = normalizeHostname(input.hostname, { serviceDomain: config.serviceDomain, allowWildcard: !forCustomer });
    if (!normalized.ok) throw new ApiError('invalid_request', normalized.message, { param: 'hostname', details: { reason: normalized.reason } });
    const { hostname, isApex } = normalized;
    const wildcard = normalized.wildcard === true;
    // A wildcard certificate can only be validated by DNS-01, which Hostgate answers through the
    // customer's delegated `_acme-challenge` CNAME into the challenge zone (docs/wildcards.md).
    if (wildcard && !config.moves.challengeZone) {
      throw new ApiError('wildcard_requires_challenge_zone', `${hostname} is a wildcard, whose certificate needs DNS-01 through the challenge zone, and none is configured (HOSTGATE_CHALLENGE_ZONE); connect each hostname separately or configure the challenge zone`, { param: 'hostname' });
    }
    if (wildcard && input.alsoConnect) throw new ApiError('invalid_request', `also_connect does not apply to a wildcard (${hostname})`, { param: 'also_connect' });
    const pairedName = input.alsoConnect ? pairedHostname(hostname, isApex, input.alsoConnect) : null;
    // The partner's own normal form: whether it is an apex decides its DNS records (the parent of
    // www.shop.example.com is no apex, and gets a CNAME like any subdomain).
    const pairedNormal = pairedName ? normalizeHostname(pairedName, { serviceDomain: config.serviceDomain }) : null;
    const partner = pairedNormal?.ok ? { hostname: pairedNormal.hostname, isApex: pairedNormal.isApex } : null;
    if (input.alsoConnect && !partner) {
      throw new ApiError('invalid_request', input.alsoConnect === 'www'
        ? `also_connect "www" needs an apex hostname; ${hostname} is not one (send also_connect "apex" with a www. name)`
        : `also_connect "apex" needs a www. hostname; ${hostname} does not start with www.`, { param: 'also_connect' });
    }
    // An apex needs A/AAAA records to the edge; with no edge address configured the 201 would
    // carry `dns_records: []` — instructions nobody can follow (issue 14).
    const apexUnservable = config.edgeIpv4.length === 0 && config.edgeIpv6.length === 0;
    if (isApex && apexUnservable) {
      throw new ApiError('apex_domains_unavailable', forCustomer
        ? `${hostname} is an apex domain, which this service cannot take yet; connect a subdomain such as www.${hostname} instead`
        : `${hostname} is an apex domain, which needs A/AAAA records to this service's edge, and no edge address is configured (HOSTGATE_EDGE_IPV4/HOSTGATE_EDGE_IPV6); connect a subdomain such as www.${hostname} instead`, { param: 'hostname' });
    }
    // The pair's apex needs the same edge addresses (also_connect "apex").
    if (partner?.isApex && apexUnservable) {
      throw new ApiError('apex_domains_unavailable', `${partner.hostname} is an apex domain, which needs A/AAAA records to this service's edge, and no edge address is configured (HOSTGATE_EDGE_IPV4/HOSTGATE_EDGE_IPV6); connect ${hostname} alone`, { param: 'also_connect' });
    }
    const started = input.resume ? await input.resume(hostname) : null;
    if (started) return { resumed: started };
    const { organizationId, destination: choice } = input;
    // The choice resolved here, the destination locked below inside the transaction.
    const destinationId = choice.kind === 'named' ? choice.id : choice.id ?? (await destinations.onlyOne(organizationId))?.id;
    // The common create — one name, not a wildcard — is ONE statement that also stores the
    // request's idempotent answer (issue 26: the transaction below took five round trips, and the
    // API's CPU under a burst went mostly to them). The answer is rendered from the row as it will
    // be stored; createAnswered writes every column the answer shows.
    if (!partner && !wildcard) {
      if (!destinationId) throw destinationNotFound(choice);
      const now = new Date().toISOString();
      const row: DomainRow = {
        id: newId('domain'), organization_id: organizationId, destination_id: destinationId, hostname, is_apex: isApex,
        // (Casts: the row type's unions are built from arrays, which TypeBox types loosely.)
        status: 'pending_dns' as DomainRow['status'], status_seq: 0, external_customer_id: input.externalCustomerId, widget_session_id: input.widgetSessionId,
        verification: null, verify_requested_at: null, workflow_started_at: null,
        // 128 random bits as 32 hex digits, the shape of the columns' defaults (a UUID without dashes).
        ownership_token: randomBytesPooled(16).toString('hex'), challenge_label: randomBytesPooled(16).toString('hex'),
        ownership: null, certificate_track: null, metadata: null, redirect: null, tls_min_version: '1.2' as DomainRow['tls_min_version'], hsts: null,
        created_at: now, updated_at: now,
      };
      const answer = input.answer(row, null);
      let sealed = sealAnswer(request, reply, 201, answer);
      let outcome = await domains.createAnswered({ row, claim: sealed.claim });
      if (outcome.result !== 'created' && request.idempotencyPending) {
        // The key was to be inserted with the answer and was not (it exists: replay or refuse;
        // or the create is refused, a refusal the key must answer too): claim it the usual way,
        // then try again under the claim.
        if (await claimPending(request, reply) === 'answered') return { answered: true };
        sealed = sealAnswer(request, reply, 201, answer);
        outcome = await domains.createAnswered({ row, claim: sealed.claim });
      }
      switch (outcome.result) {
        case 'created':
          answerStored(request, 201);
          void dispatcher?.kick([outcome.outboxId]);
          return { created: answer, rendered: sealed.body };
        case 'destination_not_found': throw destinationNotFound(choice);
        case 'destination_loops': throw loopsToItself(hostname);
        case 'claim_lost': throw new IdempotencyClaimLostError();
        // Only for a key to insert, and that was claimed above.
        case 'key_exists': throw new Error('createAnswered reported an existing key for a claim the request holds');
        case 'conflict': {
          const raced = input.resume ? await input.resume(hostname) : null;
          if (raced) return { resumed: raced };
          throw await conflictError(hostname, hostname);
        }
      }
    }
    // A pair or a wildcard is created in a transaction, under a claim taken first.
    if (await claimPending(request, reply) === 'answered') return { answered: true };
    let created;
    let conflicting = hostname;
    try {
      created = await db.transaction(async (tx) => {
        const destination = destinationId ? await destinations.lockLive(tx, organizationId, destinationId) : null;
        if (!destination) throw destinationNotFound(choice);
        if (destination.host === hostname || wildcardCovers(hostname, destination.host)) throw loopsToItself(hostname);
        const result = await domains.create({ organizationId, destinationId: destination.id, hostname, isApex, externalCustomerId: input.externalCustomerId, widgetSessionId: input.widgetSessionId }, tx);
        const outboxIds = [result.outboxId];
        let paired: DomainRow | null = null;
        if (partner) {
          // Same transaction: a conflict on the partner rolls the first name back too.
          conflicting = partner.hostname;
          if (destination.host === partner.hostname) throw loopsToItself(partner.hostname);
          const second = await domains.create({ organizationId, destinationId: destination.id, hostname: partner.hostname, isApex: partner.isApex, externalCustomerId: input.externalCustomerId, widgetSessionId: input.widgetSessionId }, tx);
          paired = await domains.setRedirect(tx, second.domain.id, { to: hostname, status: 301, preserve_path: true });
          outboxIds.push(second.outboxId);
        }
        // The 201 commits with the domain(s): a retry after a lost answer replays it (issue 14).
        const answer = input.answer(result.domain, paired);
        await recordAnswerWithin(request, reply, tx, 201, answer);
        return { outboxIds, answer };
      });
    } catch (error) {
      if (!(error instanceof DomainConflictError)) throw error;
      // Created meanwhile by another request of the same customer: that one is the answer too.
      const raced = input.resume ? await input.resume(hostname) : null;
      if (raced) return { resumed: raced };
      throw await conflictError(hostname, conflicting);
    }
    // Starts go through the outbox; kicking it after commit is the fast path, and the worker's
    // sweep covers a kick that fails (Temporal down, process killed).
    void dispatcher?.kick(created.outboxIds);
    return { created: created.answer, rendered: null };

    /** 409 domain_conflict for `conflicting` (the hostname, or the also_connect partner). */
    async function conflictError(hostname: string, conflicting: string): Promise<ApiError> {
      // Not the name itself but a wildcard over it, or a name under the wildcard, in another
      // organization (the exclusion constraint of migration 018): same code, said plainly.
      const overlap = conflicting === hostname && !await domains.isConnected(hostname) ? await domains.wildcardOverlap(organizationId, hostname) : null;
      if (overlap) {
        return new ApiError('domain_conflict', forCustomer
          ? `${hostname} overlaps a hostname already connected to this service; contact support`
          : overlap.kind === 'covered_by_wildcard'
            ? `${hostname} is covered by the wildcard ${overlap.hostname}, connected in another organization; it cannot be connected here while that exists`
            : `${hostname} would cover ${overlap.hostname}, connected in another organization; the wildcard cannot be connected while that exists`,
        { param: 'hostname', details: { reason: overlap.kind } });
      }
      return new ApiError('domain_conflict', forCustomer
        ? `${conflicting} is already connected to this service; remove it there first, or contact support`
        : `${conflicting} is already connected (here or in another organization); delete it there first${conflicting !== hostname ? `; neither ${hostname} nor ${conflicting} was created` : ''}`, { param: conflicting === hostname ? 'hostname' : 'also_connect' });
    }
  }
  return connectHostname;
}

function destinationNotFound(choice: DestinationChoice): ApiError {
  if (choice.kind === 'named') return new ApiError('destination_not_found', `destination ${choice.id} does not exist`, { param: 'destination_id' });
  return new ApiError('destination_not_found', choice.id
    ? 'the destination of this widget session no longer exists'
    : 'this widget session has no destination: create the session with a destination_id (the organization does not have exactly one destination)');
}

/**
 * A domain whose destination is the domain's own hostname: the edge would proxy each request to
 * itself, over and over. `invalid_request` on `hostname` (from the widget: widget_request_failed,
 * details.cause invalid_request).
 */
function loopsToItself(hostname: string): ApiError {
  return new ApiError('invalid_request', `${hostname} is its destination's own host: Hostgate would send its requests back to itself in a loop; point the destination at your application's origin (e.g. app.vendor.com), not at the customer hostname`, { param: 'hostname' });
}
