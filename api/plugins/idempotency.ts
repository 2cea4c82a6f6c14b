// Idempotency-Key handling for every write (route option `config.idempotent`). The claim happens
// after authentication and validation: a request rejected before the handler ran leaves no
// record (as at Stripe). A 2xx/4xx answer is stored and replayed with `Idempotent-Replayed: true`;
// a 5xx releases the key so the caller can retry with it.
//
// A create stores its answer INSIDE its own transaction (`recordAnswerWithin`): the resource and
// the key's answer commit together or not at all. Storing it afterwards (onSend) left a window —
// commit done, then the connection lost — in which the client got a 503, the key was released or
// abandoned, and the retry created again and met 409 domain_conflict, stored as the key's answer
// (issue 14). Now a release only ever removes a claim whose write did not commit.
import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseTransactionConnection } from 'slonik';
import type { AnswerClaim } from '../../db/repositories/domains.ts';
import { idempotencyRepository } from '../../db/repositories/idempotency-keys.ts';
import { ApiError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** `org:<id>` or `wss:<id>`: whose keys this request's key lives among. */
    idempotencyScope: string | null;
    idempotencyClaim: { scope: string; key: string; claimedAt: string; recordedStatus?: number } | null;
    /** A `claimInHandler` route's key, checked but not claimed yet (claimPending claims it). */
    idempotencyPending: PendingKey | null;
  }
  interface FastifyContextConfig {
    idempotent?: boolean;
    /**
     * The handler claims the key itself: POST /v1/domains inserts the key with its answer in the
     * statement that creates the domain (issue 26), and calls claimPending only when that did not
     * happen (the key exists, or the create is refused or takes the transactional path).
     */
    claimInHandler?: boolean;
  }
}

export interface PendingKey { scope: string; key: string; method: string; path: string; bodyHash: Buffer }

const KEY = /^[\x20-\x7e]{1,128}$/;

/** JSON with sorted object keys, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > 64) throw new ApiError('invalid_request', 'the JSON body is nested more than 64 levels deep');
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k], depth + 1)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] ?? request.url;
}

/**
 * Sets the status and stores the answer `payload` as this request's idempotent answer inside `tx`
 * (call it last in the transaction that makes the write), rendered by the route's response
 * serializer exactly as the answer itself will be. If the claim is
 * gone (released after this request was already answered 503, or taken over as abandoned) the
 * transaction fails, so no write commits for a request nobody waits for any more.
 */
export async function recordAnswerWithin(request: FastifyRequest, reply: FastifyReply, tx: DatabaseTransactionConnection, status: number, payload: unknown): Promise<void> {
  const claim = request.idempotencyClaim;
  if (!claim) return;
  reply.code(status);
  const text = reply.serialize(payload) as string;
  await idempotencyRepository(request.server.deps.db, request.server.secretBox).completeWithin(tx, claim.scope, claim.key, claim.claimedAt, status, JSON.parse(text));
  claim.recordedStatus = status;
}

/**
 * Like recordAnswerWithin, for a write made in one statement that stores the answer itself
 * (POST /v1/domains: domainsRepository.createAnswered): sets the status and renders and seals
 * `payload` for this request's claim (`held`) or its key not claimed yet (`new`); `claim` is null
 * when the request has neither. Call answerStored once the statement committed, so onSend does not
 * store it a second time.
 *
 * `body`: the answer as rendered (the route's response serializer for `status`), null when there
 * was nothing to seal. Sending it (sendRendered) instead of the object spares a second rendering
 * of the same answer per create (docs/scale.md, "Less CPU per create"), and the bytes the client
 * gets are the bytes stored for a replay.
 */
export function sealAnswer(request: FastifyRequest, reply: FastifyReply, status: number, payload: unknown): { claim: AnswerClaim | null; body: string | null } {
  const claim = request.idempotencyClaim;
  const pending = request.idempotencyPending;
  reply.code(status);
  if (!claim && !pending) return { claim: null, body: null };
  const text = reply.serialize(payload) as string;
  const repo = idempotencyRepository(request.server.deps.db, request.server.secretBox);
  if (claim) return { claim: { kind: 'held', scope: claim.scope, key: claim.key, claimedAt: claim.claimedAt, status, ...repo.seal(claim.scope, claim.key, text) }, body: text };
  return { claim: { kind: 'new', ...pending!, status, ...repo.seal(pending!.scope, pending!.key, text) }, body: text };
}

/**
 * Sends `payload` with `status`: as `rendered` (sealAnswer's `body`, the route's serializer output
 * for this status) when there is one, with the content type Fastify gives a serialized object;
 * else the object, serialized as usual.
 */
export function sendRendered(reply: FastifyReply, status: number, payload: unknown, rendered: string | null): FastifyReply {
  reply.code(status);
  if (rendered === null) return reply.send(payload);
  return reply.type('application/json; charset=utf-8').send(rendered);
}

/**
 * Claims a `claimInHandler` route's key now, as the preHandler does for every other write.
 * 'answered': the key's stored answer was replayed (the handler returns the reply as it is);
 * 'claimed': go on (the request holds the claim, or had no key). Throws the preHandler's refusals.
 */
export async function claimPending(request: FastifyRequest, reply: FastifyReply): Promise<'claimed' | 'answered'> {
  const pending = request.idempotencyPending;
  if (!pending) return 'claimed';
  request.idempotencyPending = null;
  return applyClaim(request, reply, idempotencyRepository(request.server.deps.db, request.server.secretBox), pending);
}

async function applyClaim(request: FastifyRequest, reply: FastifyReply, repo: ReturnType<typeof idempotencyRepository>, key: PendingKey): Promise<'claimed' | 'answered'> {
  const claim = await repo.claim(key);
  switch (claim.kind) {
    case 'claimed':
      request.idempotencyClaim = { scope: key.scope, key: key.key, claimedAt: claim.claimedAt };
      return 'claimed';
    case 'mismatch':
      throw new ApiError('idempotency_key_reused', 'this Idempotency-Key was used for a different request (method, path or body); use a new key for a new request');
    case 'in_flight':
      throw new ApiError('idempotency_key_in_use', 'a request with this Idempotency-Key is still being processed; retry shortly', { headers: { 'retry-after': '1' } });
    case 'replay': {
      reply.header('idempotent-replayed', 'true');
      // A replayed error names this request's id, like every answer does.
      const body = claim.body as { error?: { request_id?: string } } | null;
      if (body?.error && typeof body.error === 'object') body.error.request_id = request.id;
      reply.code(claim.status).type('application/json; charset=utf-8').send(JSON.stringify(body));
      return 'answered';
    }
  }
}

export function answerStored(request: FastifyRequest, status: number): void {
  if (request.idempotencyClaim) request.idempotencyClaim.recordedStatus = status;
}

/**
 * Runs a write in one transaction and stores `status` + what it returns as the request's
 * idempotent answer inside it (recordAnswerWithin): for every write, not only creates, the change
 * and the key's answer commit together. A retry after a lost answer then replays it instead of
 * meeting the changed state (a 404 for a delete that happened, a second secret rotation). A
 * refusal thrown inside changes nothing and is stored after, as every 4xx is.
 */
export async function writeAndAnswer<T>(request: FastifyRequest, reply: FastifyReply, status: number, write: (tx: DatabaseTransactionConnection) => Promise<T>): Promise<T> {
  return request.server.deps.db.transaction(async (tx) => {
    const answer = await write(tx);
    await recordAnswerWithin(request, reply, tx, status, answer);
    return answer;
  });
}

export const idempotencyPlugin = fp(async function idempotency(app: FastifyInstance) {
  const repo = idempotencyRepository(app.deps.db, app.secretBox);
  app.decorateRequest('idempotencyScope', null);
  app.decorateRequest('idempotencyClaim', null);
  app.decorateRequest('idempotencyPending', null);

  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config?.idempotent) return;
    const raw = request.headers['idempotency-key'];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (key === undefined) throw new ApiError('idempotency_key_missing', 'this write needs an Idempotency-Key header: a stable business key of 1–128 characters, reused on retries');
    if (!KEY.test(key)) throw new ApiError('idempotency_key_invalid', 'Idempotency-Key must be 1–128 printable ASCII characters', { param: 'Idempotency-Key' });
    const scope = request.idempotencyScope ?? (request.principal ? `org:${request.principal.organizationId}` : null);
    if (!scope) throw new ApiError('internal_error', 'idempotent route without an authenticated scope');
    // A body sent to an operation that takes none is ignored, so it does not make the request another one.
    const body = request.routeOptions.schema?.body ? request.body : null;
    const bodyHash = createHash('sha256').update(canonicalJson(body ?? null)).digest();
    const pending: PendingKey = { scope, key, method: request.method, path: pathOf(request), bodyHash };
    if (request.routeOptions.config.claimInHandler) {
      request.idempotencyPending = pending;
      return;
    }
    if (await applyClaim(request, reply, repo, pending) === 'answered') return reply;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    if (reply.statusCode >= 500) {
      // Not awaited: the 503 of an outage must not wait for the outage a second time. A release
      // that fails leaves the claim to be taken over once abandoned (ABANDONED_AFTER_SECONDS);
      // a claim whose answer committed with its write is never removed (state 'completed').
      void repo.release(claim.scope, claim.key, claim.claimedAt).catch((e: unknown) => request.log.warn({ err: String(e) }, 'could not release idempotency key'));
      return payload;
    }
    // Already stored with the write it answers.
    if (claim.recordedStatus === reply.statusCode) return payload;
    let body: unknown = null;
    try { body = typeof payload === 'string' ? JSON.parse(payload) : null; } catch { body = null; }
    await repo.complete(claim.scope, claim.key, claim.claimedAt, reply.statusCode, body);
    return payload;
  });
});
