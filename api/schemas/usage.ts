import { Type } from 'typebox';
import { Timestamp } from './common.ts';

export const PlanName = Type.Union([Type.Literal('starter'), Type.Literal('growth'), Type.Literal('scale')], { description: 'starter (10 hostnames, 50 GB), growth (100, 500 GB), scale (1000, 5000 GB)' });
export const BillingStatusName = Type.Union([Type.Literal('inactive'), Type.Literal('active'), Type.Literal('past_due'), Type.Literal('canceled')], { description: 'inactive (no subscription yet), active, past_due, canceled' });

export const Usage = Type.Object({
  plan: PlanName,
  billing_status: BillingStatusName,
  period_start: { ...Timestamp, description: 'Start of the current period (the subscription\'s, else the calendar month, UTC)' },
  period_end: { ...Timestamp, description: 'End of the current period (exclusive)' },
  active_hostnames: Type.Integer({ minimum: 0, description: 'Hostnames in use now: pending_dns, pending_certificate and active (not suspended, deleting, deleted or failed)' }),
  peak_hostnames: Type.Integer({ minimum: 0, description: 'Highest active_hostnames reached in the period; basis of the overage' }),
  included_hostnames: Type.Integer({ minimum: 0, description: 'Hostnames included in the plan' }),
  overage_hostnames: Type.Integer({ minimum: 0, description: 'peak_hostnames above included_hostnames' }),
  estimated_overage_cents: Type.Integer({ minimum: 0, description: 'overage_hostnames × 15 euro cents' }),
  bandwidth_bytes: Type.Integer({ minimum: 0, description: 'Bytes served in the period (in + out), measured by the edge; reported, never billed' }),
  bandwidth_gb: Type.Number({ minimum: 0, description: 'bandwidth_bytes in GB (10^9 bytes)' }),
  included_bandwidth_gb: Type.Number({ minimum: 0, description: 'Bandwidth included in the plan, in GB' }),
});
