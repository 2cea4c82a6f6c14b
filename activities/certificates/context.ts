// What the issuance phases (order.ts, validate.ts, finalize.ts) share: the CA client, the
// repositories, the failure mapping and the waiting helpers of one certificate activities instance.
import type { AcmeOrdersRepository } from '../../db/repositories/acme-orders.ts';
import type { CertificateLifecycleRepository } from '../../db/repositories/certificate-lifecycle.ts';
import type { CertificatesRepository } from '../../db/repositories/certificates.ts';
import type { domainsRepository } from '../../db/repositories/domains.ts';
import type { Logger } from '../../logging/logger.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { CaBudgetRepository } from '../../db/repositories/ca-budget.ts';
import type { CaSet } from './cas.ts';
import type { Waiting } from './waiting.ts';
import type { Dns01Publisher } from './dns01-publish.ts';

export interface IssuanceContext {
  /** The configured CAs (a client and failure mapping each) and the choice of CA for an order. */
  cas: CaSet;
  /** The shared CA budget and the CAs' pauses (migration 020). */
  budget: CaBudgetRepository;
  orders: AcmeOrdersRepository;
  certificates: CertificatesRepository;
  domains: ReturnType<typeof domainsRepository>;
  secretBox: SecretBox;
  logger: Logger;
  waiting: Waiting;
  /** The brake, the history and the certificate events (migration 015). */
  lifecycle: CertificateLifecycleRepository;
  /** config.certificates: orders per domain per hour; the lifetime floor. */
  limits: { ordersPerHour: number; minLifetimeMs: number };
  /** Where a wildcard's DNS-01 answers go (the challenge zone; issue 22). */
  dns01: Dns01Publisher;
  /** A new certificate activates its domain at once (no edge has to serve it first). */
  activateOnIssue: boolean;
}
