// The one place that reaches into acme-client's internals. acme-client offers no hook for its
// HTTP layer, its nonces or how it holds the account key, so we set members of its HttpClient
// (`client.http`, undocumented): `request` (our transport), `getNonce` (the nonce pool),
// `maxBadNonceRetries` and `accountKey` (a parsed KeyObject). acme-client is pinned to an exact
// version in package.json for this, and test/acme-client-internals.test.ts fails when any of these
// members changes shape — run it before moving the pin.
import type { KeyObject } from 'node:crypto';
import type { Client } from 'acme-client';
import { reuseNonces } from './nonce-pool.ts';
import type { AcmeRequest } from './transport.ts';

/** The members of acme-client's HttpClient (node_modules/acme-client/src/http.js) we read or replace. */
export interface AcmeHttpInternals {
  /** Every request acme-client makes goes through here (signedRequest, getNonce, getDirectory). */
  request(url: string, method: string, opts?: object): Promise<{ status: number; headers: Record<string, unknown>; data: unknown }>;
  /** Called by signedRequest when it has no nonce (asks newNonce through `request`, with HEAD). */
  getNonce(): Promise<string>;
  /** How often signedRequest retries a badNonce answer with the answer's own fresh nonce. */
  maxBadNonceRetries: number;
  /** What createSignedBody signs with and getJwk derives the JWK from (PEM or KeyObject). */
  accountKey: unknown;
}

export function acmeHttpOf(client: Client): AcmeHttpInternals {
  return (client as unknown as { http: AcmeHttpInternals }).http;
}

/**
 * Puts our transport, the nonce pool and the parsed account key under a new client.
 * - A burst of rejected nonces should not fail a step: acme-client retries badNonce with the
 *   fresh nonce from the error response; allow it more tries than its default five.
 * - acme-client keeps the account key as PEM and Node parses it again for every JWS it signs;
 *   a parsed KeyObject signs the same bytes without that.
 */
export function installTransport(client: Client, options: { request: AcmeRequest; accountKey: KeyObject; maxBadNonceRetries: number }): void {
  const http = acmeHttpOf(client);
  http.maxBadNonceRetries = options.maxBadNonceRetries;
  http.request = options.request as AcmeHttpInternals['request'];
  reuseNonces(http);
  http.accountKey = options.accountKey;
}
