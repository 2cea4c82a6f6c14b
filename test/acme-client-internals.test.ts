// acme-client's internals we rely on (acme/client-internals.ts): acme-client has no hook for its
// HTTP layer, nonces or account key, so we replace members of its HttpClient (`client.http`).
// This test fails when an upgrade changes any of them; acme-client is pinned to an exact version
// in package.json so that only a deliberate upgrade (which runs this test) can change them.
import { readFileSync } from 'node:fs';
import { createPrivateKey, createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import acme, { type Order } from 'acme-client';
import { acmeHttpOf, installTransport } from '../acme/client-internals.ts';
import type { AcmeRequest, AcmeResponse } from '../acme/transport.ts';

const DIRECTORY_URL = 'https://ca.test/dir';
const directory = { newNonce: 'https://ca.test/nonce', newAccount: 'https://ca.test/account', newOrder: 'https://ca.test/order' };
const BAD_NONCE = { type: 'urn:ietf:params:acme:error:badNonce', detail: 'stale nonce' };

function newKeyPem(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

interface Sent { url: string; method: string; nonce?: string; kid?: string; jwk?: unknown; body?: { protected: string; payload: string; signature: string } }

/** A scripted CA: answers `request` calls in order (the directory is always answered) and records them. */
function scriptedCa(answers: Array<(sent: Sent) => AcmeResponse>) {
  const sent: Sent[] = [];
  const request: AcmeRequest = async (url, method, opts = {}) => {
    const entry: Sent = { url, method };
    const body = opts.data as Sent['body'] | undefined;
    if (body) {
      const header = JSON.parse(Buffer.from(body.protected, 'base64url').toString('utf8')) as { nonce?: string; kid?: string; jwk?: unknown };
      Object.assign(entry, { body, nonce: header.nonce, kid: header.kid, jwk: header.jwk });
    }
    sent.push(entry);
    if (url === DIRECTORY_URL) return { status: 200, headers: {}, data: directory };
    const answer = answers.shift();
    if (!answer) throw new Error(`unexpected request ${method} ${url}`);
    return answer(entry);
  };
  return { sent, request };
}

const nonceAnswer = (nonce: string) => (): AcmeResponse => ({ status: 200, headers: { 'replay-nonce': nonce }, data: '' });

describe('acme-client internals we rely on', () => {
  it('is installed at exactly the version package.json pins', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    const installed = JSON.parse(readFileSync(new URL('../node_modules/acme-client/package.json', import.meta.url), 'utf8')) as { version: string };
    expect(pkg.dependencies['acme-client']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed.version).toBe(pkg.dependencies['acme-client']);
  });

  it('a client has `http` with request(url, method, opts?), getNonce(), maxBadNonceRetries and accountKey', () => {
    const key = newKeyPem();
    const client = new acme.Client({ directoryUrl: DIRECTORY_URL, accountKey: key });
    const http = acmeHttpOf(client);
    expect(typeof http).toBe('object');
    expect(typeof http.request).toBe('function');
    expect(http.request.length).toBe(2); // (url, method, opts = {})
    expect(typeof http.getNonce).toBe('function');
    expect(http.getNonce.length).toBe(0);
    expect(http.maxBadNonceRetries).toBe(5);
    expect(http.accountKey).toEqual(Buffer.from(key)); // the PEM as a Buffer, replaced by our KeyObject
    expect(typeof (http as unknown as { signedRequest: unknown }).signedRequest).toBe('function');
  });

  it('sends every request through our `request`, asks newNonce through it, signs with our KeyObject and retries badNonce with the answer\'s nonce', async () => {
    const keyPem = newKeyPem();
    const accountKey: KeyObject = createPrivateKey(keyPem);
    const ca = scriptedCa([
      nonceAnswer('nonce-1'), // newNonce (the pool is empty)
      () => ({ status: 400, headers: { 'replay-nonce': 'nonce-2' }, data: BAD_NONCE }),
      () => ({ status: 201, headers: { 'replay-nonce': 'nonce-3', location: 'https://ca.test/acct/1' }, data: { status: 'valid' } }),
      // The next signed request uses the pooled nonce-3: no newNonce request in between.
      () => ({ status: 200, headers: { 'replay-nonce': 'nonce-4' }, data: { status: 'pending', identifiers: [] } }),
    ]);
    const client = new acme.Client({ directoryUrl: DIRECTORY_URL, accountKey: keyPem });
    installTransport(client, { request: ca.request, accountKey, maxBadNonceRetries: 10 });
    expect(acmeHttpOf(client).maxBadNonceRetries).toBe(10);
    expect(acmeHttpOf(client).accountKey).toBe(accountKey);

    await client.createAccount({ termsOfServiceAgreed: true });
    expect(client.getAccountUrl()).toBe('https://ca.test/acct/1');
    const order = await client.getOrder({ url: 'https://ca.test/order/7' } as Order);
    expect(order).toMatchObject({ status: 'pending', url: 'https://ca.test/order/7' });

    expect(ca.sent.map((s) => [s.method.toLowerCase(), s.url, s.nonce ?? null])).toEqual([
      ['get', DIRECTORY_URL, null],
      ['head', directory.newNonce, null],
      ['post', directory.newAccount, 'nonce-1'],
      ['post', directory.newAccount, 'nonce-2'],
      ['post', 'https://ca.test/order/7', 'nonce-3'],
    ]);
    // The JWK acme-client derived from the KeyObject is the account's public key, and the JWS
    // signature (ES256, IEEE P-1363) verifies with it.
    const account = ca.sent[3]!;
    expect(account.jwk).toEqual(expect.objectContaining(createPublicKey(keyPem).export({ format: 'jwk' })));
    const { protected: header, payload, signature } = account.body!;
    expect(verify('sha256', Buffer.from(`${header}.${payload}`), { key: createPublicKey(keyPem), dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))).toBe(true);
    expect(ca.sent[4]!.kid).toBe('https://ca.test/acct/1');
  });

  it('retries a badNonce answer exactly maxBadNonceRetries times, then hands the answer back', async () => {
    const badNonce = (n: number) => (): AcmeResponse => ({ status: 400, headers: { 'replay-nonce': `bad-${n}` }, data: BAD_NONCE });
    const ca = scriptedCa([nonceAnswer('nonce-1'), ...Array.from({ length: 4 }, (_, i) => badNonce(i))]);
    const keyPem = newKeyPem();
    const client = new acme.Client({ directoryUrl: DIRECTORY_URL, accountKey: keyPem });
    installTransport(client, { request: ca.request, accountKey: createPrivateKey(keyPem), maxBadNonceRetries: 3 });
    await expect(client.createAccount({ termsOfServiceAgreed: true })).rejects.toThrow(/stale nonce/);
    // One attempt and three retries, each with the nonce of the answer before it.
    expect(ca.sent.filter((s) => s.method === 'post').map((s) => s.nonce)).toEqual(['nonce-1', 'bad-0', 'bad-1', 'bad-2']);
  });
});
