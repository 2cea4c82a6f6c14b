import { errorCatalogue, type ErrorCode } from '../errors.ts';
import { ErrorResponse } from './common.ts';

/** What a route's options say about the errors it can answer (see routeErrorCodes). */
export interface RouteErrorFacts {
  method: string | string[];
  config?: { apiKey?: boolean; widget?: boolean; scope?: string; idempotent?: boolean; errors?: readonly ErrorCode[] };
  schema?: { body?: unknown; params?: unknown; querystring?: unknown; [other: string]: unknown };
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every code a route can answer: those its options imply (the hooks that enforce authentication,
 * scopes, idempotency, body parsing and validation answer them, so a route cannot forget one) and
 * its own, declared once in the route's `config.errors`.
 */
export function routeErrorCodes(route: RouteErrorFacts): ErrorCode[] {
  const methods = [route.method].flat().map((m) => m.toUpperCase());
  const write = methods.some((m) => WRITES.has(m));
  const config = route.config ?? {};
  const schema = route.schema ?? {};
  const codes: ErrorCode[] = [];
  // Anything the request parser or a schema refuses: malformed JSON, a field out of its schema.
  if (write || schema.body || schema.params || schema.querystring) codes.push('invalid_request');
  if (write) codes.push('payload_too_large', 'unsupported_media_type');
  if (config.apiKey) codes.push('api_key_in_query', 'missing_api_key', 'invalid_api_key', 'rate_limited');
  if (config.apiKey && config.scope) codes.push('insufficient_scope');
  if (config.apiKey && config.idempotent) codes.push('idempotency_key_missing', 'idempotency_key_invalid', 'idempotency_key_in_use', 'idempotency_key_reused');
  if (config.widget) {
    // The widget API answers its own codes only; any other becomes widget_request_failed
    // (api/routes/widget.ts), so the codes above do not apply to it as such.
    codes.length = 0;
    codes.push('widget_request_failed', 'missing_token', 'invalid_widget_token', 'widget_token_expired', 'origin_forbidden', 'rate_limited');
  }
  codes.push(...(config.errors ?? []), 'internal_error', 'service_unavailable');
  return [...new Set(codes)];
}

/** The error envelope of one code, as the example of an OpenAPI response. */
export function exampleErrorBody(code: ErrorCode): { error: { code: string; message: string; request_id: string; param?: string; details?: Record<string, unknown> } } {
  const entry: { example: string; param?: string; details?: Record<string, unknown> } = errorCatalogue[code];
  return {
    error: {
      code,
      message: entry.example,
      request_id: 'req_5f1c9a7e3b2d4f6a8c0e1b3d',
      ...(entry.param !== undefined ? { param: entry.param } : {}),
      ...(entry.details !== undefined ? { details: entry.details } : {}),
    },
  };
}

/**
 * Response schemas for the given codes grouped by status: the envelope, a description listing
 * every code of that status, and one example body per code (from the catalogue in api/errors.ts).
 */
export function errorResponses(codes: readonly ErrorCode[]): Record<number, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = errorCatalogue[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<number, unknown> = {};
  for (const [status, list] of byStatus) {
    out[status] = {
      // The envelope (the `Error` component); the response's own description lists the codes.
      ...ErrorResponse,
      'x-response-description': `Error codes: ${list.map((c) => `\`${c}\``).join(', ')}`,
      // @fastify/swagger moves `x-examples` to the media type's `examples` (OpenAPI 3.1).
      'x-examples': Object.fromEntries(list.map((c) => [c, { summary: c, value: exampleErrorBody(c) }])),
    };
  }
  return out;
}
