// Certificates for the customer's-own-certificate tests (issue 22, part B), made with openssl:
// a CA (optionally with an intermediate), leaves with a chosen key (EC P-256/P-384/P-521, RSA of
// any size), names and lifetime (`days: 0` is expired at once), and self-signed ones.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type KeySpec = 'ec256' | 'ec384' | 'ec521' | 'rsa1024' | 'rsa2048' | 'ed25519';
export interface Issued { certPem: string; keyPem: string; chainPem: string }
export interface CertFactory {
  /** The root's PEM file (give it to HOSTGATE_CUSTOM_CERT_CA_FILE) and text. */
  rootPath: string;
  rootPem: string;
  /** A leaf signed by the intermediate (chainPem: leaf + intermediate) or, with `direct`, by the root. */
  issue(names: string[], options?: { key?: KeySpec; days?: number; direct?: boolean }): Promise<Issued>;
  /** A self-signed leaf for `names`. */
  selfSigned(names: string[]): Promise<Issued>;
  close(): Promise<void>;
}

const keyArgs = (k: KeySpec): string[] => ({
  ec256: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  ec384: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'],
  ec521: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-521'],
  rsa1024: ['-newkey', 'rsa:1024'],
  rsa2048: ['-newkey', 'rsa:2048'],
  ed25519: ['-newkey', 'ed25519'],
})[k];

let n = 0;

export async function createCertFactory(name = 'Customer PKI'): Promise<CertFactory> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hg-custom-'));
  const f = (x: string) => path.join(dir, x);
  const caExt = f('ca.ext');
  await writeFile(caExt, 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
  await run('openssl', ['req', '-x509', ...keyArgs('ec256'), '-nodes', '-keyout', f('root.key'), '-out', f('root.pem'), '-days', '400',
    '-subj', `/CN=${name} Root`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  await run('openssl', ['req', ...keyArgs('ec256'), '-nodes', '-keyout', f('int.key'), '-out', f('int.csr'), '-subj', `/CN=${name} Intermediate`]);
  await run('openssl', ['x509', '-req', '-in', f('int.csr'), '-CA', f('root.pem'), '-CAkey', f('root.key'), '-set_serial', '0x1001', '-days', '400', '-extfile', caExt, '-out', f('int.pem')]);
  const intermediatePem = await readFile(f('int.pem'), 'utf8');
  const leaf = async (names: string[], key: KeySpec, signer: { cert: string; key: string } | null, days: number): Promise<Issued> => {
    const i = ++n;
    const ext = f(`l${i}.ext`);
    await writeFile(ext, `subjectAltName=${names.map((h) => `DNS:${h}`).join(',')}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
    if (!signer) {
      await run('openssl', ['req', '-x509', ...keyArgs(key), '-nodes', '-keyout', f(`l${i}.key`), '-out', f(`l${i}.pem`), '-days', String(days), '-subj', `/CN=${names[0]}`,
        '-addext', `subjectAltName=${names.map((h) => `DNS:${h}`).join(',')}`]);
    } else {
      await run('openssl', ['req', ...keyArgs(key), '-nodes', '-keyout', f(`l${i}.key`), '-out', f(`l${i}.csr`), '-subj', `/CN=${names[0]}`]);
      await run('openssl', ['x509', '-req', '-in', f(`l${i}.csr`), '-CA', signer.cert, '-CAkey', signer.key,
        '-set_serial', `0x${Date.now().toString(16)}${i.toString(16).padStart(4, '0')}`, '-days', String(days), '-extfile', ext, '-out', f(`l${i}.pem`)]);
    }
    const certPem = await readFile(f(`l${i}.pem`), 'utf8');
    return { certPem, keyPem: await readFile(f(`l${i}.key`), 'utf8'), chainPem: signer?.cert === f('int.pem') ? certPem + intermediatePem : certPem };
  };
  return {
    rootPath: f('root.pem'),
    rootPem: await readFile(f('root.pem'), 'utf8'),
    issue: (names, o = {}) => leaf(names, o.key ?? 'ec256', o.direct ? { cert: f('root.pem'), key: f('root.key') } : { cert: f('int.pem'), key: f('int.key') }, o.days ?? 90),
    selfSigned: (names) => leaf(names, 'ec256', null, 90),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
