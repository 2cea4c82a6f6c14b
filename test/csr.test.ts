import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Pkcs10CertificateRequest } from '@peculiar/x509';
import { createCsrDer, createCsrPem } from '../security/csr.ts';

const ec = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve }).privateKey;

describe('certificate signing requests', () => {
  it.each([['P-256'], ['P-384']])('builds a request with a valid %s signature and the name in subjectAltName only', async (curve) => {
    const key = ec(curve);
    const request = new Pkcs10CertificateRequest(new Uint8Array(createCsrDer('shop.customer.example', key)));
    expect(await request.verify()).toBe(true);
    expect(request.subject).toBe('');
    const san = request.getExtension('2.5.29.17');
    expect(san).not.toBeNull();
    expect(JSON.stringify((san as unknown as { names: { toJSON(): unknown } }).names.toJSON())).toBe(JSON.stringify([{ type: 'dns', value: 'shop.customer.example' }]));
  });

  it('builds an RSA request too, and openssl agrees the signature verifies', () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const dir = mkdtempSync(path.join(tmpdir(), 'hg-csr-'));
    const file = path.join(dir, 'req.pem');
    writeFileSync(file, createCsrPem('xn--bcher-kva.example', key));
    const out = execFileSync('openssl', ['req', '-in', file, '-noout', '-verify', '-text'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toMatch(/DNS:xn--bcher-kva\.example/);
  });

  it('refuses names that are not ASCII DNS names and keys it cannot sign with', () => {
    expect(() => createCsrDer('bücher.example', ec('P-256'))).toThrow(/ASCII DNS name/);
    expect(() => createCsrDer('', ec('P-256'))).toThrow(/ASCII DNS name/);
    expect(() => createCsrDer('x.example', generateKeyPairSync('ed25519').privateKey)).toThrow(/unsupported certificate key type ed25519/);
  });
});
