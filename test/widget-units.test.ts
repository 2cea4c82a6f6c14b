// The widget's pure parts, in Node: its hostname check mirrors the server's rules (same verdict,
// same normal form, same reason wherever no Public Suffix List or server setting is involved),
// every string exists in both languages, and the build refuses a script over its size budget.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { normalizeHostname } from '../model/hostname.ts';
import { checkHostname } from '../widget/hostname.ts';
import { format, langOf, reasonKey, translations } from '../widget/localize.ts';
import { buildWidget, WIDGET_GZIP_BUDGET_BYTES } from '../widget/build.ts';

const SERVER_ONLY = new Set(['public_suffix', 'service_domain']);

const samples = [
  'shop.example.com', 'SHOP.Example.COM.', '  shop.example.com  ', 'example.com', 'a.b.c.d.example.co.uk', 'xn--bcher-kva.example',
  'bücher.example', 'ÉCOLE.example.fr', '点心.example', 'münchen.de', '', '   ', 'localhost', 'com', 'co.uk', 'github.io', 'hostgate.test',
  'x.hostgate.test', '127.0.0.1', '127.1', '10.1', '0x7f.1', '1.2.3.4.', '[::1]', '::1', 'fe80::1', 'shop.example.com:443', 'a:b',
  'https://shop.example.com', 'http://shop.example.com/path', 'shop.example.com/path', 'user@shop.example.com', 'shop.example.com?x',
  'shop.example.com#x', 'a\\b.example', '*.example.com', 'shop.*.example', 'shop_1.example.com', 'shop example.com', 'shop!.example',
  'a..b.example', '.example.com', 'example..', `${'a'.repeat(63)}.example`, `${'a'.repeat(64)}.example`, `${'a.'.repeat(126)}com`,
  `${'abcdefghi.'.repeat(26)}com`, '-shop.example', 'shop-.example', 'ab--cd.example', 'shop.123', 'shop.example.1', 'shop.0x1f',
  'a.b', 'x.y.z', 'xn--p1ai', 'shop.xn--p1ai', 'shop\u00a0.example', 'shop\t.example', 'ex\u0000ample.com', 'ｓｈｏｐ.example',
  'shop.example.com..', 'e'.repeat(2000),
];

describe('widget hostname check', () => {
  it.each(samples.map((s) => [JSON.stringify(s).slice(0, 60), s]))('agrees with the server on %s', (_label, input) => {
    const server = normalizeHostname(input, { serviceDomain: 'hostgate.test' });
    const client = checkHostname(input);
    if (server.ok) {
      expect(client).toEqual({ ok: true, hostname: server.hostname });
    } else if (SERVER_ONLY.has(server.reason)) {
      // Needs the Public Suffix List or the server's own domain: the client lets it through.
      expect(client.ok).toBe(true);
    } else {
      expect(client).toEqual({ ok: false, reason: server.reason });
    }
  });

  it('never refuses what the server accepts, over generated names', () => {
    const labels = ['shop', 'a', 'x1', 'my-shop', 'xn--bcher-kva', 'bücher', '0', '9lives'];
    for (const a of labels) for (const b of labels) for (const tld of ['com', 'fr', 'co.uk', 'example']) {
      const name = `${a}.${b}.${tld}`;
      const server = normalizeHostname(name, { serviceDomain: 'hostgate.test' });
      if (server.ok) expect([name, checkHostname(name)]).toEqual([name, { ok: true, hostname: server.hostname }]);
    }
  });
});

describe('widget strings', () => {
  it('exist in English and French for every key, with the same placeholders', () => {
    const keys = Object.keys(translations.en);
    expect(Object.keys(translations.fr).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      const en = translations.en[key as keyof typeof translations.en];
      const fr = translations.fr[key as keyof typeof translations.fr];
      expect([key, fr.trim().length > 0]).toEqual([key, true]);
      const holes = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect([key, holes(fr)]).toEqual([key, holes(en)]);
    }
  });

  it('falls back to English, fills placeholders, and names every refusal reason', () => {
    expect(langOf('fr-CA')).toBe('fr');
    expect(langOf('de')).toBe('en');
    expect(langOf(undefined)).toBe('en');
    expect(format('fr', 'statusIs', { status: 'actif' })).toBe('Statut : actif');
    for (const reason of ['empty', 'too_long', 'not_a_hostname', 'ip_literal', 'wildcard', 'invalid_characters', 'invalid_idn', 'empty_label', 'label_too_long', 'invalid_hyphen', 'numeric_tld', 'single_label', 'service_domain', 'public_suffix']) {
      expect(translations.fr[reasonKey(reason)]).toEqual(expect.any(String));
    }
  });
});

describe('widget build', () => {
  it('writes the script, a versioned copy (each with brotli and gzip copies) and a manifest within the 16 KiB budget', async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'hg-widget-'));
    try {
      const manifest = await buildWidget({ outDir: out, apiOrigin: 'https://api.hostgate.example' });
      const scripts = [manifest.versioned_file, 'service-widget.js'];
      expect(readdirSync(out).sort()).toEqual(['manifest.json', ...scripts.flatMap((f) => [f, `${f}.br`, `${f}.gz`])].sort());
      expect(manifest.versioned_file).toMatch(/^service-widget\.[0-9a-f]{12}\.js$/);
      expect(manifest.integrity).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
      expect(manifest.gzip_bytes).toBeLessThanOrEqual(WIDGET_GZIP_BUDGET_BYTES);
      expect(WIDGET_GZIP_BUDGET_BYTES).toBe(16 * 1024);
      const { readFileSync } = await import('node:fs');
      const code = readFileSync(path.join(out, 'service-widget.js'));
      expect(gzipSync(code, { level: 9 }).length).toBe(manifest.gzip_bytes);
      expect(code.toString()).toContain('"https://api.hostgate.example"');
      for (const f of scripts) {
        expect(brotliDecompressSync(readFileSync(path.join(out, `${f}.br`))).equals(code)).toBe(true);
        expect(gunzipSync(readFileSync(path.join(out, `${f}.gz`))).equals(code)).toBe(true);
      }
      expect(readFileSync(path.join(out, 'service-widget.js.br')).length).toBeLessThan(manifest.gzip_bytes);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
