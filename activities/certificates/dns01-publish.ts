// DNS-01 answers of the lifecycle's own orders (issue 22, docs/wildcards.md): a wildcard's
// certificate cannot be validated by HTTP-01, so its orders — the first one and every renewal —
// answer the CA with TXT values in the challenge zone, where the customer's
// `_acme-challenge.<base>` CNAME points (the domain's own label, as for a move). The order, its
// resumption and the validation stay those of order.ts and validate.ts; only where the answer lives
// differs: PowerDNS's rows instead of the HTTP token table.
//
// Values at the domain's name are replaced, not added to: one domain has one open order at a
// time (acme_orders), a move's DNS-01 attempts (certificates/dns01.ts) run only while the domain
// is pending_dns and the lifecycle's orders only after, so what sits there is an earlier order's
// leftover. Replacing also withdraws those leftovers; the last order's value stays until the next
// order (harmless: single-use, at an opaque name).
import type { Resolver } from 'node:dns/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChallengeZoneRepository } from '../../db/repositories/challenge-zone.ts';
import type { domainsRepository } from '../../db/repositories/domains.ts';
import { delegationTarget } from '../../model/domain-moves.ts';
import { caStillBusy, refused } from './failures.ts';

export interface Dns01Publisher {
  /** Publishes the values for the domain's order and returns once OUR server answers them. */
  publish(domainId: string, values: readonly string[]): Promise<void>;
}

export function createDns01Publisher(deps: {
  zone: ChallengeZoneRepository;
  challengeZone: string | undefined;
  /** Asks OUR authoritative server only (HOSTGATE_CHALLENGE_DNS_SERVER). */
  ourServer: Resolver;
  domains: Pick<ReturnType<typeof domainsRepository>, 'getById'>;
  /** How long our server may take to answer a value just written (it answers at once). */
  publishBudgetMs?: number;
}): Dns01Publisher {
  const { zone, challengeZone, ourServer, domains } = deps;
  return {
    async publish(domainId, values) {
      if (values.length === 0) return;
      if (!challengeZone) throw refused('challenge_zone_missing', 'This certificate needs DNS-01 through the challenge zone, and none is configured (HOSTGATE_CHALLENGE_ZONE)');
      const domain = await domains.getById(domainId);
      if (!domain) throw refused('order_not_found', `domain ${domainId} does not exist`);
      const name = delegationTarget(domain.challenge_label, challengeZone);
      await zone.withdraw(name);
      for (const value of values) await zone.publish(challengeZone, name, value);
      const deadline = Date.now() + (deps.publishBudgetMs ?? 5_000);
      for (;;) {
        try {
          const txt = (await ourServer.resolveTxt(name)).map((parts) => parts.join(''));
          if (values.every((v) => txt.includes(v))) return;
        } catch { /* not yet, or not answering: asked again until the deadline */ }
        if (Date.now() >= deadline) throw caStillBusy(`Our DNS server for ${challengeZone} did not answer the challenge at ${name}; we will try again`);
        await sleep(100);
      }
    },
  };
}
