import { describe, expect, it } from '@jest/globals';
import { normalizeHostname } from '../model/hostname.ts';

const opts = { serviceDomain: 'hostgate.io' };

describe('normalizeHostname: accepted', () => {
  const cases: [input: string, hostname: string, isApex: boolean, registrableDomain: string][] = [
    ['shop.customer.com', 'shop.customer.com', false, 'customer.com'],
    ['customer.com', 'customer.com', true, 'customer.com'],
    ['  Shop.Customer.COM  ', 'shop.customer.com', false, 'customer.com'],
    ['shop.customer.com.', 'shop.customer.com', false, 'customer.com'],
    ['customer.co.uk', 'customer.co.uk', true, 'customer.co.uk'],
    ['a.b.c.customer.co.uk', 'a.b.c.customer.co.uk', false, 'customer.co.uk'],
    ['Bücher.example', 'xn--bcher-kva.example', true, 'xn--bcher-kva.example'],
    ['shop.BÜCHER.de', 'shop.xn--bcher-kva.de', false, 'xn--bcher-kva.de'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example', true, 'xn--bcher-kva.example'],
    ['xn--ls8h.la', 'xn--ls8h.la', true, 'xn--ls8h.la'],
    ['straße.de', 'xn--strae-oqa.de', true, 'xn--strae-oqa.de'],
    // Ideographic full stop and full-width letters are mapped by IDNA.
    ['shop\u3002example.com', 'shop.example.com', false, 'example.com'],
    ['\uff25\uff38\uff21\uff2d\uff30\uff2c\uff25.com', 'example.com', true, 'example.com'],
    // Private PSL entries are suffixes: a name under github.io is its own registrable domain.
    ['foo.github.io', 'foo.github.io', true, 'foo.github.io'],
    ['www.foo.github.io', 'www.foo.github.io', false, 'foo.github.io'],
    ['customer.eu.org', 'customer.eu.org', true, 'customer.eu.org'],
    ['123.example.com', '123.example.com', false, 'example.com'],
    ['my-shop.example.com', 'my-shop.example.com', false, 'example.com'],
    ['a.io', 'a.io', true, 'a.io'],
    // Almost the service domain is not the service domain.
    ['nothostgate.io', 'nothostgate.io', true, 'nothostgate.io'],
    ['hostgate.io.evil.com', 'hostgate.io.evil.com', false, 'evil.com'],
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`, true, `${'a'.repeat(63)}.com`],
  ];
  it.each(cases)('%j → %s', (input, hostname, isApex, registrableDomain) => {
    expect(normalizeHostname(input, opts)).toEqual({ ok: true, hostname, isApex, registrableDomain });
  });

  it('accepts exactly 253 characters', () => {
    const name = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(name.length).toBe(253);
    expect(normalizeHostname(name, opts)).toMatchObject({ ok: true, hostname: name });
    expect(normalizeHostname(`${name}.`, opts)).toMatchObject({ ok: true, hostname: name });
  });
});

describe('normalizeHostname: refused', () => {
  const long254 = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`;
  const cases: [input: string, reason: string][] = [
    ['', 'empty'],
    ['   ', 'empty'],
    [long254, 'too_long'],
    [`${'a'.repeat(64)}.com`, 'label_too_long'],
    ['a..b.com', 'empty_label'],
    ['.example.com', 'empty_label'],
    ['example.com..', 'empty_label'],
    ['foo_bar.example.com', 'invalid_characters'],
    ['exa mple.com', 'invalid_characters'],
    ['shop!.example.com', 'invalid_characters'],
    ['shop\uff3f.example.com', 'invalid_characters'], // full-width underscore maps to '_'
    ['-shop.example.com', 'invalid_hyphen'],
    ['shop-.example.com', 'invalid_hyphen'],
    ['xn--a.com', 'invalid_idn'], // not valid Punycode
    ['xn--abc.com', 'invalid_idn'], // decodes to ASCII only
    ['ab--cd.example.com', 'invalid_idn'], // reserved "??--" form
    ['localhost', 'single_label'],
    ['com', 'single_label'],
    ['com.', 'single_label'],
    ['1.2.3.4', 'ip_literal'],
    ['1.2.3.4.', 'ip_literal'],
    ['127.1', 'ip_literal'],
    ['0x7f.0.0.1', 'ip_literal'],
    ['[::1]', 'ip_literal'],
    ['::1', 'ip_literal'],
    ['2606:4700::1', 'ip_literal'],
    ['[2606:4700::1]', 'ip_literal'],
    ['foo.123', 'numeric_tld'],
    ['*.example.com', 'wildcard'],
    ['*', 'wildcard'],
    ['shop.*.example.com', 'wildcard'],
    ['https://shop.example.com', 'not_a_hostname'],
    ['shop.example.com/path', 'not_a_hostname'],
    ['user@shop.example.com', 'not_a_hostname'],
    ['shop.example.com:443', 'not_a_hostname'],
    ['co.uk', 'public_suffix'],
    ['CO.UK.', 'public_suffix'],
    ['github.io', 'public_suffix'],
    ['s3.amazonaws.com', 'public_suffix'],
    ['hostgate.io', 'service_domain'],
    ['HOSTGATE.IO.', 'service_domain'],
    ['edge.hostgate.io', 'service_domain'],
    ['a.b.hostgate.io', 'service_domain'],
  ];
  it.each(cases)('%j → %s', (input, reason) => {
    const result = normalizeHostname(input, opts);
    expect(result).toMatchObject({ ok: false, reason });
    if (result.ok) return;
    // Messages are shown to end users: a full sentence, never empty.
    expect(result.message).toMatch(/^[A-Z"*a-z0-9].{15,}\.$/s);
  });

  it('refuses huge input before parsing it', () => {
    expect(normalizeHostname('x'.repeat(5000), opts)).toMatchObject({ ok: false, reason: 'too_long' });
  });

  it('normalises the service domain too (case, trailing dot, IDN)', () => {
    expect(normalizeHostname('app.bücher.example', { serviceDomain: 'BÜCHER.example.' })).toMatchObject({ ok: false, reason: 'service_domain' });
    expect(normalizeHostname('app.xn--bcher-kva.example', { serviceDomain: 'bücher.example' })).toMatchObject({ ok: false, reason: 'service_domain' });
  });

  it('is idempotent on accepted names', () => {
    for (const input of ['Bücher.example', 'Shop.Customer.co.uk.', 'foo.github.io']) {
      const first = normalizeHostname(input, opts);
      if (!first.ok) throw new Error(`unexpected refusal of ${input}`);
      expect(normalizeHostname(first.hostname, opts)).toEqual(first);
    }
  });
});

describe('spoofing: mixed scripts and whole-script confusables (issue 14)', () => {
  const opts = { serviceDomain: 'hostgate.test' };
  it.each([
    ['pаypal.com', 'mixed_script'], // Cyrillic а among Latin letters
    ['xn--pypal-4ve.com', 'mixed_script'], // the same, already in punycode
    ['παypal.com', 'mixed_script'], // Greek and Latin
    ['shop.gооgle.com', 'mixed_script'], // Cyrillic о twice, in a subdomain's parent label
    ['аррӏе.com', 'confusable'], // all Cyrillic, every letter a Latin look-alike
  ])('refuses %s (%s)', (input, reason) => {
    const r = normalizeHostname(input, opts);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toBe(reason);
      expect(r.message).toMatch(/spoofing/);
    }
  });
  it.each(['münchen.de', '日本語.jp', 'ドメイン名例.jp', 'abc中文.com', '한국어.kr', 'ελληνικά.gr', 'пример.рф', 'аррӏе.ru', 'shop-1.example.com'])('accepts %s (one script, or a CJK combination, or Cyrillic under a Cyrillic TLD)', (input) => {
    expect(normalizeHostname(input, opts).ok).toBe(true);
  });
});
