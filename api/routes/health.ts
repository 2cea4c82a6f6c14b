// Liveness and readiness. `/readyz` answers 200 while Postgres answers: creates and every read
// need only Postgres (Temporal work goes through the outbox and catches up when Temporal is
// back), so a Temporal outage shows as `status: "degraded"` instead of taking the API out of a
// load balancer. `/readyz?strict=1` answers 503 when anything is down, for deployments that want
// the API to leave rotation with Temporal (docs/operations.md, "Health checks").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import { Type } from 'typebox';
import { healthRepository } from '../../db/repositories/health.ts';
import { ApiError } from '../errors.ts';
import { ErrorResponse } from '../schemas/common.ts';
import { answerWithin } from '../../process/deadline.ts';

const Health = Type.Object({ status: Type.Literal('ok') });
const CheckResult = Type.Union([Type.Literal('ok'), Type.Literal('unreachable'), Type.Literal('not_configured')]);
const Checks = Type.Object({ postgres: CheckResult, temporal: CheckResult });
const Ready = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')]),
  checks: Checks,
  /** Why a check is not ok (short, no connection strings). */
  details: Type.Optional(Type.Record(Type.String(), Type.String())),
});
const ReadyQuery = Type.Object({ strict: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('true'), Type.Literal('0'), Type.Literal('false')])) });

/** How long each dependency may take to answer a readiness probe. */
const CHECK_TIMEOUT_MS = 2000;


// The call itself carries the deadline too: a probe that gave up must not leave the client
// retrying behind it (one stray call per probe while Temporal is away).
async function clientOf(client: Client | (() => Promise<Client>)): Promise<Client> {
  return typeof client === 'function' ? client() : client;
}

/**
 * A reason fit for a public, unauthenticated probe: which dependency and whether it timed out or
 * failed, never the error's own text (it can carry internal addresses, host names or connection
 * strings — `connect ECONNREFUSED 10.0.3.7:7233`). The full error goes to the API's log.
 */
function publicReason(what: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith(`${what} did not answer within`)
    ? `${what} did not answer within ${CHECK_TIMEOUT_MS} ms (details in the API log)`
    : `${what} refused or failed the check (details in the API log)`;
}

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/healthz', { schema: { hide: true, response: { 200: Health } } }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', { schema: { hide: true, querystring: ReadyQuery, response: { 200: Ready, 503: ErrorResponse } } }, async (request) => {
    const strict = request.query.strict === '1' || request.query.strict === 'true';
    const { db, temporal } = app.deps;
    const checks: { postgres: 'ok' | 'unreachable' | 'not_configured'; temporal: 'ok' | 'unreachable' | 'not_configured' } = { postgres: 'ok', temporal: 'ok' };
    const details: Record<string, string> = {};
    const postgres = answerWithin(healthRepository(db).ping(), CHECK_TIMEOUT_MS, 'Postgres').catch((e: unknown) => {
      checks.postgres = 'unreachable';
      details.postgres = publicReason('Postgres', e);
      request.log.warn({ err: e }, 'readiness: Postgres check failed');
    });
    const temporalCheck = temporal
      ? answerWithin(clientOf(temporal.client).then((client) => client.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => client.workflowService.getSystemInfo({}))), CHECK_TIMEOUT_MS, 'Temporal').catch((e: unknown) => {
        checks.temporal = 'unreachable';
        details.temporal = publicReason('Temporal', e);
        request.log.warn({ err: e }, 'readiness: Temporal check failed');
      })
      : Promise.resolve().then(() => { checks.temporal = 'not_configured'; details.temporal = 'Temporal is not configured (TEMPORAL_ADDRESS)'; });
    await Promise.all([postgres, temporalCheck]);
    const failed = (Object.keys(checks) as (keyof typeof checks)[]).filter((k) => checks[k] !== 'ok');
    if (checks.postgres !== 'ok' || (strict && failed.length > 0)) {
      throw new ApiError('service_unavailable', `not ready: ${failed.join(' and ')} unreachable`, { details: { ...details, checks }, headers: { 'retry-after': '5' } });
    }
    if (failed.length) return { status: 'degraded' as const, checks, details };
    return { status: 'ready' as const, checks };
  });
};
