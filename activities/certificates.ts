// Certificate activities: ACME (RFC 8555) through acme-client, one step per activity so Temporal
// can retry each on its own, and every step resumable after a crash. Postgres holds the state:
// the account (key sealed), the order (URL, status, the certificate key sealed before the CSR is
// sent), the HTTP-01 key authorizations the challenge listener in edge/ serves, and finally the
// certificate. A re-run reads that state and continues instead of starting over; the certificate
// row is unique per (domain, serial), so a re-run after a crash never stores a second one.
//
// CA errors are classified (acme/errors.ts): rate limits, 5xx, bad nonces and connection
// failures throw a retryable `CaUnavailable` whose nextRetryDelay is the CA's Retry-After;
// refusals (rejected identifier, CAA, failed validation, malformed, bad CSR) throw a
// non-retryable `CertificateRefused` carrying `{ code }` for `verification.problem`.
//
// The phases live in certificates/: order.ts → validate.ts → finalize.ts; the CA client, its
// transport and the error classification in acme/; the SQL in db/repositories/.
import { Resolver } from 'node:dns/promises';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import { acmeAccountsRepository } from '../db/repositories/acme-accounts.ts';
import { acmeOrdersRepository } from '../db/repositories/acme-orders.ts';
import { certificateLifecycleRepository } from '../db/repositories/certificate-lifecycle.ts';
import { certificatesRepository } from '../db/repositories/certificates.ts';
import { challengeZoneRepository } from '../db/repositories/challenge-zone.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import type { Logger } from '../logging/logger.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { caBudgetRepository } from '../db/repositories/ca-budget.ts';
import { normName } from '../model/dns-verification.ts';
import { createCaSet } from './certificates/cas.ts';
import { relevantCaa } from './dns-check.ts';
import type { AcmeResponse } from '../acme/transport.ts';
import type { IssuanceContext } from './certificates/context.ts';
import { createDns01Publisher } from './certificates/dns01-publish.ts';
import { createFinalizePhase } from './certificates/finalize.ts';
import { createOrderPhase } from './certificates/order.ts';
import type { FinalizeInput, IssuedCertificate } from './certificates/types.ts';
import { createValidationPhase } from './certificates/validate.ts';
import { createWaiting, type WaitingOptions } from './certificates/waiting.ts';

export type { FinalizeInput, IssuedCertificate } from './certificates/types.ts';
export { accountKeyContext, certificateKeyContext, orderKeyContext } from '../acme/keys.ts';
export {
  CaConnectionError, CaProblemError, classifyAcmeError, parseRetryAfter, type AcmeErrorClass, type AcmeProblem,
} from '../acme/errors.ts';
export { acmeFailure } from './certificates/failures.ts';

export interface CertificateActivityDeps extends WaitingOptions {
  db: Db;
  secretBox: SecretBox;
  config: Config;
  logger: Logger;
  /** Sees every response from the CA (tests count rejected nonces). */
  observeCaResponse?: (response: AcmeResponse) => void;
}

export function createCertificateActivities(deps: CertificateActivityDeps) {
  const { db, secretBox, config, logger } = deps;
  // With more than one CA, the order goes to one the hostname's CAA allows: looked up with the
  // verification resolvers (the DNS check judged CAA against every CA's identities).
  let resolver: Resolver | null = null;
  const cas = createCaSet({
    directories: config.acme.directories, email: config.acme.email, accounts: acmeAccountsRepository(db), secretBox, logger, observe: deps.observeCaResponse,
    caa: (hostname) => {
      if (!resolver) {
        resolver = new Resolver({ timeout: config.dnsLimits.queryTimeoutMs, tries: config.dnsLimits.tries, maxTimeout: config.dnsLimits.queryTimeoutMs });
        if (config.dns.servers.length > 0) resolver.setServers(config.dns.servers);
      }
      return relevantCaa(resolver, normName(hostname));
    },
  });
  // A wildcard's orders answer DNS-01 in the challenge zone, checked against OUR server (as moves do).
  const ourServer = new Resolver({ timeout: 1_000, tries: 2, maxTimeout: 1_000 });
  ourServer.setServers([config.moves.challengeDnsServer]);
  const domains = domainsRepository(db);
  const dns01 = createDns01Publisher({ zone: challengeZoneRepository(db), challengeZone: config.moves.challengeZone, ourServer, domains });
  const ctx: IssuanceContext = {
    cas, budget: caBudgetRepository(db), secretBox, logger, waiting: createWaiting(deps), activateOnIssue: config.edgeDeployment === 'skip',
    orders: acmeOrdersRepository(db), certificates: certificatesRepository(db), domains, dns01,
    lifecycle: certificateLifecycleRepository(db),
    limits: { ordersPerHour: config.certificates.ordersPerHour, minLifetimeMs: config.certificates.minLifetimeSeconds * 1000 },
  };
  const order = createOrderPhase(ctx);
  const validation = createValidationPhase(ctx, order);
  const { finalize } = createFinalizePhase(ctx, order, validation);

  return {
    /** Registers (or finds) our ACME account with the first configured CA. Idempotent. */
    async ensureAcmeAccount(): Promise<{ accountUrl: string }> {
      const client = await cas.all[0]!.client();
      return { accountUrl: client.getAccountUrl() };
    },

    /**
     * Places an order for the domain's hostname and stores its HTTP-01 key authorizations, or
     * returns the order already in flight (a re-run after a crash, or a retry of the workflow).
     * Throws CertificateRefused (e.g. rejected_identifier) or CaUnavailable.
     */
    async beginCertificateOrder({ domainId }: { domainId: string }): Promise<{ orderUrl: string }> {
      return { orderUrl: (await order.beginOrder(domainId)).order_url };
    },

    /**
     * Tells the CA the challenges are ready and waits (heartbeating) until the order is ready.
     * An invalid order throws CertificateRefused with the challenge's problem (challenge_failed,
     * challenge_unreachable, challenge_dns_failed, caa_forbids_ca, …); its tokens are removed.
     */
    async validateCertificateOrder({ domainId, orderUrl }: { domainId: string; orderUrl: string }): Promise<{ status: string }> {
      return { status: await validation.validateOrder(await order.loadOrder(domainId, orderUrl), true) };
    },

    /**
     * Finalizes a ready order with the stored key (created and sealed first), waits for issuance,
     * downloads the chain and stores it once; a re-run returns the stored certificate. With
     * `then`, also records what the certificate means for the domain (see FinalizeInput).
     */
    async finalizeCertificateOrder(input: FinalizeInput): Promise<IssuedCertificate> {
      return finalize(input);
    },

    /**
     * The three steps above in one call (the workflow's fast path, as one local attempt): order,
     * validation, finalize and store. Each step resumes from Postgres as it does on its own, so
     * when this fails part-way the step-by-step activities continue from where it stopped.
     */
    async issueCertificate({ domainId, then, waitBudgetMs, justMovedHostname }: Omit<FinalizeInput, 'orderUrl'> & {
      /** Bounds the waits on the CA (validation, issuance): past it, CaUnavailable. */
      waitBudgetMs?: number;
      /** The caller moved this domain (this hostname) to pending_certificate a moment ago. */
      justMovedHostname?: string;
    }): Promise<IssuedCertificate & { orderUrl: string }> {
      const run = async () => {
        const placed = await order.beginOrder(domainId, justMovedHostname ? { hostname: justMovedHostname } : undefined);
        // The order row in hand (no reading it back), and `ready` recorded with finalize's first write.
        const status = await validation.validateOrder(placed, false);
        return { ...await finalize({ domainId, orderUrl: placed.order_url, ...(then ? { then } : {}) }, status === 'ready'), orderUrl: placed.order_url };
      };
      return waitBudgetMs === undefined ? run() : ctx.waiting.withBudget(waitBudgetMs, run);
    },
  };
}

export type CertificateActivities = ReturnType<typeof createCertificateActivities>;
