// The one error handler and the one not-found handler: every non-2xx answer is the envelope of
// docs/api-decisions.md ("Errors") with the request id, and a 5xx never carries a stack, SQL or a secret.
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BackendTerminatedError, BackendTerminatedUnexpectedlyError, ConnectionError, IdleTransactionTimeoutError, StatementTimeoutError } from 'slonik';
import { DatabaseTimeoutError } from '../../db/pool.ts';
import { IdempotencyClaimLostError } from '../../db/repositories/idempotency-keys.ts';
import { InvalidCursorError } from '../../db/pagination.ts';
import { ApiError, errorBody } from '../errors.ts';
import { describeValidationError, paramOf } from '../validation.ts';

/**
 * Whether an error means Postgres (or the connection to it) is away or too slow: a 503 with
 * Retry-After, not a 500. Follows `cause` (an error wrapped on its way up keeps its meaning).
 * (Deadlocks and serialization failures are retried by slonik's transaction() itself.)
 */
export function isUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (isUnavailableItself(e)) return true;
  }
  return false;
}

function isUnavailableItself(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof BackendTerminatedUnexpectedlyError || error instanceof BackendTerminatedError) return true;
  // Our client-side bounds (db/pool.ts) and the server-side ones: Postgres too slow or gone.
  if (error instanceof DatabaseTimeoutError || error instanceof StatementTimeoutError || error instanceof IdleTransactionTimeoutError) return true;
  const code = (error as { code?: string }).code;
  if (code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '57014', '25P03', '08006', '08001', '08003', '53300'].includes(code)) return true;
  const message = error instanceof Error ? error.message : '';
  // "Client is pending destroy": a statement that came after its connection timed out (a
  // transaction's ROLLBACK) — the same outage.
  return /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|timeout expired|Failed to connect|Client is pending destroy|Client is destroyed|Connection pool (has ended|is being terminated)/i.test(message);
}

function postgresCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export function toApiError(error: unknown, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof InvalidCursorError) return new ApiError('invalid_request', error.message, { param: 'cursor' });
  if (error instanceof IdempotencyClaimLostError) return new ApiError('idempotency_key_in_use', 'another request with this Idempotency-Key took over after this one stalled; retry to get its answer', { headers: { 'retry-after': '1' } });
  const fe = error as FastifyError & { validation?: unknown[]; validationContext?: string };
  if (fe.validation) {
    const first = fe.validation[0] as Parameters<typeof paramOf>[0];
    const param = paramOf(first);
    return new ApiError('invalid_request', describeValidationError(first, fe.validationContext, fe.validation as Parameters<typeof describeValidationError>[2]), param ? { param } : {});
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return new ApiError('payload_too_large', 'request body is larger than 64 KiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return new ApiError('unsupported_media_type', `content type ${JSON.stringify(request.headers['content-type'] ?? '')} is not supported: send application/json`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return new ApiError('invalid_request', 'the body is empty: send a JSON object or omit the Content-Type header');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH': return new ApiError('invalid_request', 'Content-Length does not match the body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY': return new ApiError('invalid_request', 'the body is not valid JSON');
    default: break;
  }
  if (fe instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY') return new ApiError('invalid_request', 'the body is not valid JSON');
  if (isUnavailable(error)) return new ApiError('service_unavailable', 'a backing service is unavailable; retry shortly', { headers: { 'retry-after': '5' } });
  if (fe.code === 'FST_ERR_BAD_URL') return new ApiError('invalid_request', 'the URL is not valid (bad percent-encoding)');
  if (fe.code === 'FST_ERR_MAX_PARAM_LENGTH') return new ApiError('invalid_request', 'a path parameter is too long');
  // Text Postgres refuses (a NUL byte, a malformed timestamp) is the client's input, not our fault.
  const pgCode = postgresCode(error);
  if (pgCode && (pgCode.startsWith('22') || pgCode === '54000')) return new ApiError('invalid_request', 'a value in the request cannot be stored (control characters such as NUL are not accepted)');
  if (error instanceof RangeError && /call stack/i.test(error.message)) return new ApiError('invalid_request', 'the JSON body is nested too deeply');
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // A plugin's own 4xx (static files, …) mapped onto our codes and their statuses.
    if (fe.statusCode === 404 || fe.statusCode === 403) return new ApiError('not_found', 'not found');
    if (fe.statusCode === 413) return new ApiError('payload_too_large', 'request body is larger than 64 KiB');
    if (fe.statusCode === 415) return new ApiError('unsupported_media_type', 'send application/json');
    return new ApiError('invalid_request', fe.message || 'the request is not valid');
  }
  return new ApiError('internal_error', 'an internal error occurred; retry later, and quote the request id if it persists');
}

function clientClosed(request: FastifyRequest): boolean {
  const raw = request.raw;
  return raw.readableAborted || (raw.destroyed && !raw.complete) || raw.socket?.destroyed === true;
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
  // Also here, not only in onRequest: framework errors are answered before any hook runs.
  reply.header('x-request-id', reply.request.id);
  return reply.code(error.status).type('application/json; charset=utf-8').send(errorBody(error, reply.request.id));
}

/**
 * Answers a request that failed: the envelope, logged once at the level its cause deserves.
 * `shape` adapts the error to a route family's envelope (the widget's, api/routes/widget.ts),
 * so every family logs and treats a vanished client the same way.
 */
export function answerError(error: unknown, request: FastifyRequest, reply: FastifyReply, shape: (e: ApiError) => ApiError = (e) => e): FastifyReply {
  const apiError = shape(toApiError(error, request));
  // The client went away mid-request (closed the socket while its body was arriving): nothing
  // failed on our side and nobody reads the answer — not an error-level 503 (issue 14).
  if (clientClosed(request)) {
    request.log.info({ reason: (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error)) }, 'client closed the connection');
    return sendError(reply, apiError);
  }
  if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.info({ code: apiError.code }, 'request rejected');
  return sendError(reply, apiError);
}

export const errorsPlugin = fp(async function errors(app: FastifyInstance) {
  // A shadow router of every registered route, so an unknown method on a known path answers 405
  // with Allow instead of 404.
  const shadow = FindMyWay();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      try { shadow.on(m as 'GET', route.url, () => undefined); } catch { /* duplicate: fine */ }
    }
  });

  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allow = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].filter((m) => shadow.find(m as 'GET', path));
    // When the method itself is allowed, the route exists and only the resource is missing.
    if (allow.length && !allow.includes(request.method)) {
      return sendError(reply, new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}; allowed: ${allow.join(', ')}`, { headers: { allow: allow.join(', ') } }));
    }
    return sendError(reply, new ApiError('not_found', `no route ${request.method} ${path}; see /v1/openapi.json for the API`));
  };

  app.setErrorHandler((error, request, reply) => {
    // A request for no route whose body Fastify refused first (QUERY without Content-Type, a
    // body too large on an unknown path): the route is the answer (404/405), not the body.
    if (request.is404 && /^FST_ERR_(CTP_|ROUTE_MISSING_CONTENT_TYPE)/.test((error as FastifyError).code ?? '')) return notFound(request, reply);
    return answerError(error, request, reply);
  });

  app.setNotFoundHandler(notFound);
});
