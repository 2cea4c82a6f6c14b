// Plans and the overage rule (decisions.md, "Usage and billing"). Pure data and arithmetic: the
// usage presenter, the billing workflow's period close and the docs all read it from here.

export const planNames = ['starter', 'growth', 'scale'] as const;
export type PlanName = (typeof planNames)[number];

export const billingStatuses = ['inactive', 'active', 'past_due', 'canceled'] as const;
export type BillingStatus = (typeof billingStatuses)[number];

export interface Plan { includedHostnames: number; includedBandwidthGb: number }

export const plans: Readonly<Record<PlanName, Plan>> = {
  starter: { includedHostnames: 10, includedBandwidthGb: 50 },
  growth: { includedHostnames: 100, includedBandwidthGb: 500 },
  scale: { includedHostnames: 1000, includedBandwidthGb: 5000 },
};

/** 0.15 euro per hostname of the period's peak above the plan's included count. */
export const OVERAGE_CENTS_PER_HOSTNAME = 15;

/** Bandwidth is reported in decimal gigabytes (10^9 bytes), like every bandwidth bill. */
export const BYTES_PER_GB = 1_000_000_000;

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (planNames as readonly string[]).includes(value);
}

export function overage(plan: PlanName, peakHostnames: number): { overageHostnames: number; overageCents: number } {
  const overageHostnames = Math.max(0, peakHostnames - plans[plan].includedHostnames);
  return { overageHostnames, overageCents: overageHostnames * OVERAGE_CENTS_PER_HOSTNAME };
}

/** Bytes as GB, rounded to 6 decimals (1 kB resolution) so the number prints cleanly. */
export function bytesToGb(bytes: number): number {
  return Math.round((bytes / BYTES_PER_GB) * 1e6) / 1e6;
}
