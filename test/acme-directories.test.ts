// HOSTGATE_ACME_DIRECTORIES (config/acme-directories.ts): the ordered list of CAs, each with its
// CAA identities, optional CA bundle and EAB credentials, and its budget; the single-directory
// variables as a one-element list; every mistake named with where it is.
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../config/env.ts';
import { loadConfig } from '../config/index.ts';
import { parseBudget } from '../config/acme-directories.ts';

const LE = { name: 'letsencrypt', url: 'https://acme-v02.api.letsencrypt.org/directory', caa: ['letsencrypt.org'] };
const GTS = { name: 'gts', url: 'https://dv.acme-v02.api.pki.goog/directory', caa: 'pki.goog', eab_kid: 'kid-1', eab_hmac: 'c2VjcmV0LWhtYWMta2V5', budget: '100/1h' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('HOSTGATE_ACME_DIRECTORIES', () => {
  it('an ordered list: each CA with its identities, bundle, EAB and budget; CAA accepts every CA', () => {
    const config = loadConfig({ HOSTGATE_ACME_DIRECTORIES: JSON.stringify([LE, { ...GTS, ca_bundle: '/etc/ssl/gts.pem' }]) });
    expect(config.acme.directories).toEqual([
      { name: 'letsencrypt', directoryUrl: LE.url, caBundlePath: undefined, caaIdentities: ['letsencrypt.org'], eab: undefined, budget: { orders: 250, windowMs: 3 * 3_600_000 } },
      { name: 'gts', directoryUrl: GTS.url, caBundlePath: '/etc/ssl/gts.pem', caaIdentities: ['pki.goog'], eab: { kid: 'kid-1', hmacKey: 'c2VjcmV0LWhtYWMta2V5' }, budget: { orders: 100, windowMs: 3_600_000 } },
    ]);
    expect(config.acme.directoryUrl).toBe(LE.url);
    expect(config.acme.caaIdentities).toEqual(['letsencrypt.org', 'pki.goog']);
  });

  it('unset: the single-directory variables are the one CA, with HOSTGATE_ACME_BUDGET', () => {
    const config = loadConfig({ HOSTGATE_ACME_DIRECTORY_URL: 'https://acme.example/dir', HOSTGATE_ACME_CAA_IDENTITIES: 'example.net,example.org', HOSTGATE_ACME_BUDGET: '5/20s', HOSTGATE_ACME_CA_BUNDLE: '/tmp/ca.pem' });
    expect(config.acme.directories).toEqual([
      { name: 'default', directoryUrl: 'https://acme.example/dir', caBundlePath: '/tmp/ca.pem', caaIdentities: ['example.net', 'example.org'], eab: undefined, budget: { orders: 5, windowMs: 20_000 } },
    ]);
  });

  it('names each mistake with its place', () => {
    expect(problems({ HOSTGATE_ACME_DIRECTORIES: 'letsencrypt' })[0]).toMatch(/^HOSTGATE_ACME_DIRECTORIES: not JSON/);
    expect(problems({ HOSTGATE_ACME_DIRECTORIES: '[]' })).toEqual(['HOSTGATE_ACME_DIRECTORIES: expected a non-empty JSON list of certificate authorities']);
    expect(problems({ HOSTGATE_ACME_DIRECTORIES: JSON.stringify([LE, { name: 'Bad Name', url: 'ftp://x', caa: [1], budget: '5 per hour', eab_kid: 'k', colour: 'red' }]) })).toEqual([
      'HOSTGATE_ACME_DIRECTORIES[1]: unknown key(s) colour (known: name, url, caa, ca_bundle, eab_kid, eab_hmac, budget)',
      'HOSTGATE_ACME_DIRECTORIES[1].name: expected a short name of lower-case letters, digits, "_" or "-"',
      'HOSTGATE_ACME_DIRECTORIES[1].url: expected the ACME directory URL (https://…)',
      'HOSTGATE_ACME_DIRECTORIES[1].caa: expected a list of CAA issuer domains (e.g. ["letsencrypt.org"])',
      'HOSTGATE_ACME_DIRECTORIES[1]: eab_kid and eab_hmac go together',
      'HOSTGATE_ACME_DIRECTORIES[1].budget: budget "5 per hour" is not <orders>/<number><s|m|h|d> (e.g. 250/3h)',
    ]);
    expect(problems({ HOSTGATE_ACME_DIRECTORIES: JSON.stringify([LE, { ...LE, name: 'again' }]) })).toEqual([
      `HOSTGATE_ACME_DIRECTORIES: the directory ${LE.url} appears twice (one account per directory)`,
    ]);
  });

  it('budgets: orders per window', () => {
    expect(parseBudget('250/3h')).toEqual({ orders: 250, windowMs: 10_800_000 });
    expect(parseBudget('5/20s')).toEqual({ orders: 5, windowMs: 20_000 });
    expect(parseBudget('0/1h')).toMatch(/at least 1 order/);
  });
});
