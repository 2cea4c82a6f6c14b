import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import { Type } from 'typebox';
import { sql } from '../../db/pool.ts';
import { ApiError } from '../errors.ts';
import { ErrorResponse } from '../schemas/common.ts';

const Health = Type.Object({ status: Type.Literal('ok') });
const Ready = Type.Object({ status: Type.Literal('ready'), checks: Type.Object({ postgres: Type.Literal('ok'), temporal: Type.Literal('ok') }) });

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

async function clientOf(client: Client | (() => Promise<Client>)): Promise<Client> {
  return typeof client === 'function' ? client() : client;
}

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/healthz', { schema: { hide: true, response: { 200: Health } } }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', { schema: { hide: true, response: { 200: Ready, 503: ErrorResponse } } }, async () => {
    const { db, temporal } = app.deps;
    const failures: Record<string, string> = {};
    await withTimeout(db.oneFirst(sql.unsafe`select 1`), 2000, 'Postgres').catch((e: unknown) => { failures.postgres = e instanceof Error ? e.message : String(e); });
    if (!temporal) failures.temporal = 'Temporal is not configured (TEMPORAL_ADDRESS)';
    else await withTimeout(clientOf(temporal.client).then((client) => client.workflowService.getSystemInfo({})), 2000, 'Temporal').catch((e: unknown) => { failures.temporal = e instanceof Error ? e.message : String(e); });
    if (Object.keys(failures).length) {
      // Only the names of what failed and a short reason: no connection strings.
      const details = Object.fromEntries(Object.entries(failures).map(([k, v]) => [k, v.replace(/postgres(ql)?:\/\/\S+/g, '<database>').slice(0, 200)]));
      throw new ApiError('service_unavailable', `not ready: ${Object.keys(failures).join(' and ')} unreachable`, { details, headers: { 'retry-after': '5' } });
    }
    return { status: 'ready' as const, checks: { postgres: 'ok' as const, temporal: 'ok' as const } };
  });
};
