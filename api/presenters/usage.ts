import type { Static } from 'typebox';
import type { UsageRow } from '../../db/repositories/usage.ts';
import { bytesToGb, overage, plans } from '../../model/plans.ts';
import type { Usage } from '../schemas/usage.ts';

export function presentUsage(u: UsageRow): Static<typeof Usage> {
  const plan = plans[u.plan];
  const { overageHostnames, overageCents } = overage(u.plan, u.peak_hostnames);
  return {
    plan: u.plan,
    billing_status: u.billing_status,
    period_start: u.period_start,
    period_end: u.period_end,
    active_hostnames: u.active_hostnames,
    peak_hostnames: u.peak_hostnames,
    included_hostnames: plan.includedHostnames,
    overage_hostnames: overageHostnames,
    estimated_overage_cents: overageCents,
    bandwidth_bytes: u.bandwidth_bytes,
    bandwidth_gb: bytesToGb(u.bandwidth_bytes),
    included_bandwidth_gb: plan.includedBandwidthGb,
  };
}
