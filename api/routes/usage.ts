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
      tags: ['billing'], operationId: 'usage.retrieve', summary: 'Usage of the current period: hostnames (active, peak, overage), bandwidth, plan and billing status',
      description: "The organization's usage of the current period: hostnames in use now and the period's peak (the basis of the overage), the estimated overage, the bandwidth the edge measured, the plan and the billing status.",
      response: { 200: DataOf(Usage, 'The usage of the current period') },
    },
  }, async (request) => {
    const { organizationId } = principalOf(request);
    const row = await usage.get(organizationId);
    // Every organization gets its usage row from a trigger at creation; a missing one is a bug.
    if (!row) throw new ApiError('internal_error', `no usage row for organization ${organizationId}`);
    return { data: presentUsage(row) };
  });
};
