// Text that is not valid Unicode is refused, not repaired: bytes that are not UTF-8 (in a JSON
// body or a percent-encoded query) and JSON `\udXXX` escapes that leave half a surrogate pair
// were silently turned into U+FFFD and stored (issue 14: an `external_customer_id` the vendor
// could never match again). The vendor learns at once which value is broken.
import { isUtf8 } from 'node:buffer';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

/** The path (`a.b.0`) of the first string that is not well-formed UTF-16, or null. */
export function firstIllFormedString(value: unknown, path: string[] = [], depth = 0): string | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : path.join('.') || '(body)';
  if (depth > 64 || value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    const bad = (k.isWellFormed() ? null : [...path, '(key)'].join('.')) ?? firstIllFormedString(v, [...path, k], depth + 1);
    if (bad) return bad;
  }
  return null;
}

/** Names of query parameters whose percent-encoding does not decode to UTF-8, in order. */
function badQueryParams(url: string): string[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const bad: string[] = [];
  for (const pair of url.slice(q + 1).split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    try {
      decodeURIComponent(name.replace(/\+/g, ' '));
      if (eq >= 0) decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      let shown = name;
      try { shown = decodeURIComponent(name); } catch { /* the name itself is broken */ }
      bad.push(shown);
    }
  }
  return bad;
}

export const strictUtf8Plugin = fp(async function strictUtf8(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done) => {
    // Clients that set `Content-Type: application/json` on every call send it with no body on
    // operations that take none (DELETE, verify, retry, rotate-secret): taken as no body, as Stripe
    // and GitHub do (issue 25), and so is it where every field is optional (`{}`). Where a body is
    // required, an empty one is still refused, saying so.
    if (body.length === 0) {
      const schema = request.routeOptions.schema?.body as { required?: unknown[] } | undefined;
      if (!schema) return done(null, undefined);
      if (!schema.required?.length) return done(null, {});
    }
    if (!isUtf8(body)) return done(new ApiError('invalid_request', 'the body is not valid UTF-8: send JSON encoded as UTF-8'), undefined);
    parseJson(request, body.toString('utf8'), (error, parsed) => {
      if (error) return done(error, undefined);
      const bad = firstIllFormedString(parsed);
      if (bad) return done(new ApiError('invalid_request', `${bad} contains an unpaired UTF-16 surrogate (a lone \\ud800–\\udfff escape): send valid Unicode text`, { param: bad }), undefined);
      return done(null, parsed);
    });
  });

  app.addHook('onRequest', async (request) => {
    const bad = badQueryParams(request.url);
    if (bad.length) throw new ApiError('invalid_request', `query parameter ${JSON.stringify(bad[0])} is not valid percent-encoded UTF-8`, { param: bad[0]! });
  });
});
