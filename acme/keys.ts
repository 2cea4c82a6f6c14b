// Keys of the ACME account and of certificates, and the AAD contexts that bind each sealed key
// (SecretBox) to its row, so a key copied to another row does not open.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

/** AAD binding a sealed certificate key to its row; the TLS edge opens it with the same context. */
export function certificateKeyContext(certificateId: string): string {
  return `certificate:${certificateId}:private_key`;
}
/** AAD of the ACME account key (acme_accounts) and of an order's certificate key (acme_orders). */
export const accountKeyContext = (directoryUrl: string) => `acme_account:${directoryUrl}:private_key`;
export const orderKeyContext = (orderUrl: string) => `acme_order:${orderUrl}:private_key`;

const generateKeyPairAsync = promisify(generateKeyPair);

/** A new P-256 key, PKCS#8 PEM (account keys and certificate keys alike). */
export async function newPrivateKeyPem(): Promise<string> {
  const { privateKey } = await generateKeyPairAsync('ec', { namedCurve: 'P-256', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  return privateKey;
}
