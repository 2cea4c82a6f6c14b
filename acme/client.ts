// The acme-client Client for one configured CA, built once per certificate activities instance
// and shared by every call: our account (registered on first use; its key generated and sealed
// in Postgres), our transport and its connection pools, the nonce pool.
import { createPrivateKey } from 'node:crypto';
import acme, { type Client } from 'acme-client';
import type { AcmeAccountsRepository } from '../db/repositories/acme-accounts.ts';
import type { Logger } from '../logging/logger.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { installTransport } from './client-internals.ts';
import { accountKeyContext, newPrivateKeyPem } from './keys.ts';
import { createCaTransport, type AcmeResponse } from './transport.ts';

export interface AcmeClientDeps {
  directoryUrl: string;
  caBundlePath: string | undefined;
  /** The account's contact address, if any. */
  email: string | undefined;
  /** External Account Binding for CAs that require it (ZeroSSL, Google Trust Services). */
  eab?: { kid: string; hmacKey: string } | undefined;
  accounts: AcmeAccountsRepository;
  secretBox: SecretBox;
  logger: Logger;
  /** Sees every response from the CA (tests count rejected nonces). */
  observe?: ((response: AcmeResponse) => void) | undefined;
  /**
   * Runs the one CA call this module makes itself (registering the account), turning what it
   * threw into the caller's failure (the activities' classification).
   */
  ca<T>(what: string, call: () => Promise<T>): Promise<T>;
}

export interface AcmeClients {
  /** The client, built on first use (a failed build is retried by the next call). */
  get(): Promise<Client>;
  /** The CA forgot our account (a test CA restarted): register again on the next call. */
  accountForgotten(): Promise<void>;
}

function accountUrlKnown(client: Client): boolean {
  try {
    return Boolean(client.getAccountUrl());
  } catch {
    return false;
  }
}

export function createAcmeClients(deps: AcmeClientDeps): AcmeClients {
  const { directoryUrl, accounts, secretBox, logger } = deps;
  const transport = createCaTransport({ directoryUrl, caBundlePath: deps.caBundlePath, observe: deps.observe });
  let clientPromise: Promise<Client> | null = null;

  async function loadAccount(): Promise<{ key: Buffer; accountUrl: string | null }> {
    const account = await accounts.findOrInsert(directoryUrl, async () => secretBox.seal(await newPrivateKeyPem(), accountKeyContext(directoryUrl)));
    const key = secretBox.open({ keyId: account.key_id, ciphertext: account.private_key_enc }, accountKeyContext(directoryUrl));
    return { key, accountUrl: account.account_url };
  }

  async function build(): Promise<Client> {
    await transport.ready();
    const { key, accountUrl } = await loadAccount();
    const client = new acme.Client({
      directoryUrl, accountKey: key, ...(accountUrl ? { accountUrl } : {}), backoffMin: 200, backoffMax: 2000,
      ...(deps.eab ? { externalAccountBinding: { kid: deps.eab.kid, hmacKey: deps.eab.hmacKey } } : {}),
    });
    installTransport(client, { request: transport.request, accountKey: createPrivateKey(key), maxBadNonceRetries: 10 });
    if (!accountUrl) {
      // Same key → same account: registering again after a crash returns the existing one.
      await deps.ca('register account', async () => {
        try {
          return await client.createAccount({ termsOfServiceAgreed: true, ...(deps.email ? { contact: [`mailto:${deps.email}`] } : {}) });
        } catch (error) {
          // Another worker registered this key a moment before (two workers starting together):
          // the CA answered 200 with the account's URL, and acme-client's follow-up "update"
          // (termsOfServiceAgreed alone) was refused as an empty update. The account exists.
          if (accountUrlKnown(client)) return null;
          throw error;
        }
      });
      const url = client.getAccountUrl();
      await accounts.setAccountUrl(directoryUrl, url);
      logger.info({ directoryUrl, accountUrl: url }, 'ACME account registered');
    }
    return client;
  }

  return {
    get() {
      clientPromise ??= build().catch((error: unknown) => { clientPromise = null; throw error; });
      return clientPromise;
    },
    async accountForgotten() {
      clientPromise = null;
      await accounts.forgetAccountUrl(directoryUrl);
    },
  };
}
