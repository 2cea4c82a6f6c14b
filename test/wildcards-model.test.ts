// The pure rules of wildcard hostnames (issue 22, docs/wildcards.md): the normal form, what a
// wildcard covers, its records' names, the delegation verdict and CAA's issuewild.
import { describe, expect, it } from '@jest/globals';
import { judgeCaa } from '../model/dns-verification.ts';
import { delegationName, ownershipRecordName } from '../model/domain-moves.ts';
import { normalizeHostname } from '../model/hostname.ts';
import { coveringWildcard, judgeDelegation, probeName, wildcardBase, wildcardCovers } from '../model/wildcards.ts';

const opts = { serviceDomain: 'hostgate.test', allowWildcard: true };

describe('wildcard hostnames: model', () => {
  it('normalises *.<name> only with allowWildcard, with the base\'s registrable domain', () => {
    expect(normalizeHostname('*.Shop.Example.COM.', opts)).toEqual({ ok: true, hostname: '*.shop.example.com', isApex: false, registrableDomain: 'example.com', wildcard: true });
    expect(normalizeHostname('*.bücher.example', opts)).toMatchObject({ ok: true, hostname: '*.xn--bcher-kva.example' });
    expect(normalizeHostname('*.shop.example.com', { serviceDomain: 'hostgate.test' })).toMatchObject({ ok: false, reason: 'wildcard' });
    expect(normalizeHostname(`*.${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}.com`, opts)).toMatchObject({ ok: false, reason: 'too_long' });
  });

  it.each([['*.com', 'single_label'], ['*.co.uk', 'public_suffix'], ['*.*.example.com', 'wildcard'], ['**.example.com', 'wildcard'], ['*.', 'empty'], ['*.app.hostgate.test', 'service_domain']])('refuses %s (%s)', (name, reason) => {
    expect(normalizeHostname(name, opts)).toMatchObject({ ok: false, reason });
  });

  it('covers exactly one label more than its base', () => {
    expect(wildcardCovers('*.shop.example.com', 'a.shop.example.com')).toBe(true);
    expect(wildcardCovers('*.shop.example.com', 'shop.example.com')).toBe(false);
    expect(wildcardCovers('*.shop.example.com', 'a.b.shop.example.com')).toBe(false);
    expect(coveringWildcard('a.example.com')).toBe('*.example.com');
    expect(coveringWildcard('example.com')).toBeNull();
    expect(coveringWildcard('*.example.com')).toBeNull();
    expect(wildcardBase('*.example.com')).toBe('example.com');
    expect(probeName('*.example.com', 'abc')).toBe('hostgate-check-abc.example.com');
  });

  it('puts the records of *.<name> at <name>', () => {
    expect(delegationName('*.shop.example.com')).toBe('_acme-challenge.shop.example.com');
    expect(ownershipRecordName('*.shop.example.com')).toBe('_hostgate.shop.example.com');
    expect(delegationName('shop.example.com')).toBe('_acme-challenge.shop.example.com');
  });

  it('judges the delegation', () => {
    const name = '_acme-challenge.example.com';
    expect(judgeDelegation(name, 'l.zone.test', { status: 'found', target: 'l.zone.test' })).toBeNull();
    expect(judgeDelegation(name, 'l.zone.test', { status: 'missing' })).toMatchObject({ code: 'delegation_cname_missing', message: expect.stringContaining('l.zone.test') });
    expect(judgeDelegation(name, 'l.zone.test', { status: 'found', target: 'edge.test' })).toMatchObject({ code: 'delegation_cname_wrong' });
    expect(judgeDelegation(name, 'l.zone.test', { status: 'error' })).toMatchObject({ code: 'lookup_failed' });
  });

  it('judges CAA for a wildcard by issuewild when present, else issue', () => {
    const ours = ['letsencrypt.org'];
    const caa = (records: Array<[string, string]>) => ({ status: 'found' as const, name: 'example.com', records: records.map(([tag, value]) => ({ flags: 0, tag, value })) });
    // issuewild names another CA: the wildcard is refused, the plain name is not.
    const onlyOtherWild = caa([['issue', 'letsencrypt.org'], ['issuewild', 'pki.goog']]);
    expect(judgeCaa('*.example.com', onlyOtherWild, ours)).toMatchObject({ code: 'caa_forbids_ca', message: expect.stringContaining('issuewild') });
    expect(judgeCaa('shop.example.com', onlyOtherWild, ours)).toBeNull();
    // issuewild ";" forbids wildcards only.
    expect(judgeCaa('*.example.com', caa([['issue', 'letsencrypt.org'], ['issuewild', ';']]), ours)).toMatchObject({ code: 'caa_forbids_ca' });
    // No issuewild: issue decides for the wildcard too.
    expect(judgeCaa('*.example.com', caa([['issue', 'letsencrypt.org']]), ours)).toBeNull();
    expect(judgeCaa('*.example.com', caa([['issue', 'pki.goog']]), ours)).toMatchObject({ code: 'caa_forbids_ca' });
    expect(judgeCaa('*.example.com', caa([['issue', 'pki.goog'], ['issuewild', 'letsencrypt.org']]), ours)).toBeNull();
  });
});
