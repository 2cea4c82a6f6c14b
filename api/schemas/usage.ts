import { Type } from 'typebox';
import { planNames } from '../../model/plans.ts';
import { named, StringEnum, Timestamp } from './common.ts';

export const PlanName = named('Plan', StringEnum(planNames, { description: 'starter (10 hostnames, 50 GB), growth (100, 500 GB), scale (1000, 5000 GB)' }));
export const BillingStatusName = named('BillingStatus', StringEnum(['inactive', 'active', 'past_due', 'canceled'], { description: 'inactive (no subscription yet), active, past_due, canceled' }));

export const Usage = named('Usage', Type.Object({
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
}, { description: "The organization's usage of the current period, its plan and billing status" }));
