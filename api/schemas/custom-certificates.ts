// PUT /v1/domains/{id}/certificate: the customer's own certificate (issue 22, part B;
// docs/custom-certificates.md). Limits are model/custom-certificate.ts's.
import { Type } from 'typebox';
import { MAX_CHAIN_PEM_CHARS, MAX_KEY_PEM_CHARS } from '../../model/custom-certificate.ts';

// Inline like the other request bodies (only answers' shapes are named components).
export const PutCertificateBody = Type.Object({
  certificate: Type.String({
    minLength: 1, maxLength: MAX_CHAIN_PEM_CHARS,
    description: 'PEM: the certificate for the hostname first, then the intermediate certificates up to (not necessarily including) the root; at most 10 certificates',
  }),
  private_key: Type.String({
    minLength: 1, maxLength: MAX_KEY_PEM_CHARS,
    description: "PEM, unencrypted (PKCS#8, PKCS#1 or SEC1): the certificate's private key, RSA of 2048 bits or more or EC P-256/P-384. Stored encrypted; never shown again",
  }),
}, { additionalProperties: false, description: "Your own certificate for the hostname, with its private key" });
