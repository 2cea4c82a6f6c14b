import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../logging/logger.ts';
import { SecretBox } from '../security/secret-box.ts';
import { createCertificateActivities } from './certificates.ts';
import { createCertificateLifecycleActivities } from './certificate-lifecycle.ts';
import { createDnsCheckActivities } from './dns-check.ts';
import { createDomainActivities } from './domain.ts';
import { createMaintenanceActivities } from './maintenance.ts';
import { createMoveActivities } from './moves.ts';
import { createVerifyAndIssueActivities } from './verify-and-issue.ts';
import { createWebhookActivities } from './webhooks.ts';
import { createBillingActivities } from './billing.ts';
import { createBillingProvider } from '../billing/create-provider.ts';

export interface ActivityDeps { db: Db; logger: Logger; config: Config }

/** Every activity the worker registers, built once from the worker's dependencies. */
export function createActivities(deps: ActivityDeps) {
  const secretBox = new SecretBox(deps.config.encryptionKeys);
  const dns = createDnsCheckActivities(deps);
  const certificates = createCertificateActivities({ ...deps, secretBox });
  const domain = createDomainActivities(deps);
  const moves = createMoveActivities({ ...deps, secretBox });
  return {
    ...domain,
    ...createMaintenanceActivities(deps),
    ...createCertificateLifecycleActivities(deps),
    ...dns,
    ...certificates,
    advanceMove: moves.advanceMove,
    heldCertificate: moves.heldCertificate.bind(moves),
    ...createVerifyAndIssueActivities({
      dns, certificates, logger: deps.logger, activateIfDeployed: domain.activateIfDeployed,
      // A stored certificate with a third of its life left (resume, issue 23) — which includes a
      // zero-downtime move's: the move's rule (moves.preissuedCertificate: the track's certificate
      // when it is the latest live one and still usable) never finds one this does not, so its
      // read of the domain row is left out (one statement per activation in a verify burst).
      preissued: (domainId) => domain.freshCertificate(domainId),
    }),
    ...createWebhookActivities({ ...deps, secretBox, allowPrivateTargets: deps.config.allowPrivateTargets, timeoutMs: deps.config.webhooks.timeoutMs }),
    ...createBillingActivities({ ...deps, provider: createBillingProvider(deps.config, deps.db) }),
  };
}
