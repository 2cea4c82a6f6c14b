// The shared CA budget's gauges (issue 22), read from Postgres at scrape time: per configured CA,
// the new orders placed in its window, its budget, and the domains waiting their turn — so an
// operator sees a burst filling the budget before orders start to wait.
import client from 'prom-client';

export interface CaBudgetReading { ca: string; used: number; limit: number; waiting: number }

export function registerCaBudgetGauges(read: () => Promise<CaBudgetReading[]>): void {
  let latest: Promise<CaBudgetReading[] | null> | null = null;
  // One read per scrape, shared by the three gauges (as registerBacklogGauges does).
  const once = () => {
    latest ??= read().catch(() => null).finally(() => { latest = null; });
    return latest;
  };
  const gauge = (name: string, help: string, pick: (r: CaBudgetReading) => number) => new client.Gauge({
    name, help, labelNames: ['ca'] as const,
    async collect() {
      const rows = await once();
      if (!rows) return;
      this.reset();
      for (const r of rows) this.set({ ca: r.ca }, pick(r));
    },
  });
  gauge('hostgate_ca_budget_used', 'New ACME orders placed with the CA account in its budget window (HOSTGATE_ACME_DIRECTORIES budget), by every worker.', (r) => r.used);
  gauge('hostgate_ca_budget_limit', 'The CA account budget: new orders allowed per window.', (r) => r.limit);
  gauge('hostgate_ca_budget_waiting', 'Domains waiting their turn for the CA account budget (verification.problem ca_budget_wait).', (r) => r.waiting);
}
