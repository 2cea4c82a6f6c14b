// The certificate authorities of one certificate activities instance (issue 22, "A second CA"):
// a client, its transport and its failure mapping per configured directory (one account each),
// and the choice of CA for a new order — in the configured order, skipping a CA the hostname's
// CAA records do not allow, one that refused this domain over CAA lately, and one paused by a
// worker after it rate-limited, failed or did not answer (ca_status, shared by every worker).
import type { Client } from 'acme-client';
import type { AcmeDirectory } from '../../config/acme-directories.ts';
import { createAcmeClients } from '../../acme/client.ts';
import type { AcmeResponse } from '../../acme/transport.ts';
import type { AcmeAccountsRepository } from '../../db/repositories/acme-accounts.ts';
import type { Logger } from '../../logging/logger.ts';
import type { CaaFinding } from '../../model/dns-verification.ts';
import { judgeCaa } from '../../model/dns-verification.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { createCaCalls, type CaCalls } from './failures.ts';

export interface CaHandle extends CaCalls {
  dir: AcmeDirectory;
  client(): Promise<Client>;
}

export interface CaSet {
  /** In the configured order; the first is the preferred CA. */
  all: readonly CaHandle[];
  /** The CA of an order row's directory; undefined when that directory is no longer configured. */
  byUrl(directoryUrl: string): CaHandle | undefined;
  /** The CAs whose CAA identities the hostname's CAA records allow (all when there is one CA, or the lookup failed). */
  allowedByCaa(hostname: string): Promise<CaHandle[]>;
}

export interface CaSetDeps {
  directories: readonly AcmeDirectory[];
  email: string | undefined;
  accounts: AcmeAccountsRepository;
  secretBox: SecretBox;
  logger: Logger;
  observe?: ((response: AcmeResponse) => void) | undefined;
  /** The relevant CAA set of a hostname (activities/dns-check.ts relevantCaa with our resolvers). */
  caa(hostname: string): Promise<CaaFinding>;
}

export function createCaSet(deps: CaSetDeps): CaSet {
  const all = deps.directories.map((dir): CaHandle => {
    const calls = createCaCalls({ directoryUrl: dir.directoryUrl, logger: deps.logger, accountForgotten: () => clients.accountForgotten() });
    const clients = createAcmeClients({
      directoryUrl: dir.directoryUrl, caBundlePath: dir.caBundlePath, email: deps.email, eab: dir.eab,
      accounts: deps.accounts, secretBox: deps.secretBox, logger: deps.logger, observe: deps.observe, ca: calls.ca,
    });
    return { ...calls, dir, client: clients.get };
  });
  const byUrl = new Map(all.map((ca) => [ca.dir.directoryUrl, ca]));
  return {
    all,
    byUrl: (url) => byUrl.get(url),
    async allowedByCaa(hostname) {
      // One CA: the DNS check already judged CAA against it (verification.problem caa_forbids_ca).
      if (all.length === 1) return [...all];
      let finding: CaaFinding;
      try {
        finding = await deps.caa(hostname);
      } catch {
        return [...all];
      }
      if (finding.status !== 'found') return [...all];
      return all.filter((ca) => judgeCaa(hostname, finding, ca.dir.caaIdentities) === null);
    },
  };
}
