import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { usageRepository } from '../../db/repositories/usage.ts';
import { ApiError } from '../errors.ts';
import { principalOf } from '../plugins/api-key-auth.ts';
import { presentUsage } from '../presenters/usage.ts';
import { DataOf } from '../schemas/common.ts';
import { Usage } from '../schemas/usage.ts';

export const usageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const usage = usageRepository(app.deps.db);

  app.get('/usage', {
    config: { apiKey: true },
    schema: {
      tags: ['billing'], summary: 'Usage of the current period: hostnames (active, peak, overage), bandwidth, plan and billing status',
      response: { 200: DataOf(Usage) },
    },
  }, async (request) => {
    const { organizationId } = principalOf(request);
    const row = await usage.get(organizationId);
    // Every organization gets its usage row from a trigger at creation; a missing one is a bug.
    if (!row) throw new ApiError('internal_error', `no usage row for organization ${organizationId}`);
    return { data: presentUsage(row) };
  });
};
