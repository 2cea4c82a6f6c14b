// POST /widget-sessions (server API, scope widget:write): mints the short-lived token the vendor's
// page hands to <service-widget>. Only the token goes to the browser; the API key never does.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { destinationsRepository } from '../../db/repositories/destinations.ts';
import { WIDGET_TOKEN_TTL_SECONDS, widgetSessionsRepository, type WidgetSessionRow } from '../../db/repositories/widget-sessions.ts';
import { parseAllowedOrigin } from '../../security/origins.ts';
import { ApiError } from '../errors.ts';
import { principalOf } from '../plugins/api-key-auth.ts';
import { writeAndAnswer } from '../plugins/idempotency.ts';
import { DataOf } from '../schemas/common.ts';
import { CreateWidgetSessionBody, WidgetSession } from '../schemas/widget.ts';

export function presentWidgetSession(session: WidgetSessionRow, token: string) {
  return {
    id: session.id,
    token,
    expires_at: session.expires_at,
    expires_in: Math.max(0, Math.round((Date.parse(session.expires_at) - Date.parse(session.created_at)) / 1000)),
    external_customer_id: session.external_customer_id,
    allowed_origins: session.allowed_origins,
    destination_id: session.destination_id,
    created_at: session.created_at,
  };
}

export const widgetSessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const sessions = widgetSessionsRepository(app.deps.db);
  const destinations = destinationsRepository(app.deps.db);

  app.post('/widget-sessions', {
    config: { apiKey: true, scope: 'widget:write', idempotent: true, errors: ['destination_not_found', 'destination_required'] },
    schema: {
      tags: ['widget'], operationId: 'widgetSessions.create',
      summary: `Create a widget session: a token for <service-widget>, valid ${WIDGET_TOKEN_TTL_SECONDS} s`,
      description: `Mints the short-lived token your page hands to <service-widget> (the API key never reaches the browser). The token works for ${WIDGET_TOKEN_TTL_SECONDS} s from the allowed origins only, for one customer (\`external_customer_id\`), and the domains it creates point at the session's destination (omitted: the organization's only destination; with none or several, \`422 destination_required\`).`,
      body: CreateWidgetSessionBody,
      response: { 201: DataOf(WidgetSession, 'The session with its token (shown only now)') },
    },
  }, async (request, reply) => {
    const { organizationId } = principalOf(request);
    const body = request.body;
    let allowedOrigins: string[] | null = null;
    if (body.allowed_origins) {
      allowedOrigins = [];
      for (const [i, entry] of body.allowed_origins.entries()) {
        const parsed = parseAllowedOrigin(entry);
        if (!parsed.ok) throw new ApiError('invalid_request', parsed.message, { param: `allowed_origins.${i}` });
        allowedOrigins.push(parsed.origin);
      }
    }
    if (body.destination_id !== undefined && !(await destinations.get(organizationId, body.destination_id))) {
      throw new ApiError('destination_not_found', `destination ${body.destination_id} does not exist`, { param: 'destination_id' });
    }
    // Without destination_id each widget create falls back to the organization's only destination; with
    // none or several that fallback cannot work, and the mistake would surface at the vendor's customer on
    // their first click. Refused here, where the vendor is.
    if (body.destination_id === undefined && !(await destinations.onlyOne(organizationId))) {
      throw new ApiError('destination_required', 'destination_id is required: the organization does not have exactly one destination, so the widget could not tell where domains point. Pass the destination_id of one of your destinations (GET /v1/destinations).', { param: 'destination_id' });
    }
    // The session and the key's 201 (with the token, sealed) commit together (writeAndAnswer).
    const answer = await writeAndAnswer(request, reply, 201, async (tx) => {
      const { session, token } = await sessions.create({ organizationId, externalCustomerId: body.external_customer_id, allowedOrigins, destinationId: body.destination_id ?? null, apiKeyId: principalOf(request).keyId }, tx);
      return { data: presentWidgetSession(session, token) };
    });
    return reply.code(201).send(answer);
  });
};
