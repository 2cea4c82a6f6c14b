import { describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { createServer, request } from 'node:http';
import { BlockList, type AddressInfo } from 'node:net';
import {
  createGuardedLookup, GLOBAL_UNICAST_IPV6, GUARDED_LOOKUPS_AT_ONCE, guardedLookupsInFlight, isPublicAddress, NON_PUBLIC_GLOBAL_IPV6_CIDRS, ownEdgeHost, parseDestinationUrl, parseWebhookUrl,
  resolvesToPrivate, sameAddress,
  resolvePublicAddress, UnsafeAddressError, type PromiseLookup,
} from '../security/outbound-url.ts';

describe('isPublicAddress', () => {
  const publicAddresses = [
    '8.8.8.8', '1.1.1.1', '93.184.216.34', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0',
    '192.167.255.255', '192.169.0.0', '198.17.255.255', '198.20.0.0', '223.255.255.255', '169.253.255.255',
    '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '[2606:4700::1]', '2001:200::1',
    '::ffff:8.8.8.8', '::ffff:808:808', '0:0:0:0:0:ffff:0808:0808', '64:ff9b::8.8.8.8', '64:ff9b::808:808',
    '2002:808:808::1',
  ];
  it.each(publicAddresses)('%s is public', (ip) => expect(isPublicAddress(ip)).toBe(true));

  const nonPublic = [
    // IPv4
    '0.0.0.0', '0.1.2.3', '127.0.0.1', '127.255.255.254', '10.0.0.1', '10.255.255.255', '172.16.0.1',
    '172.31.255.255', '192.168.0.1', '192.168.255.255', '169.254.0.1', '169.254.169.254', '100.64.0.1',
    '100.100.100.200', '100.127.255.255', '192.0.0.192', '192.0.2.1', '198.51.100.1', '203.0.113.1',
    '198.18.0.1', '198.19.255.255', '192.88.99.1', '224.0.0.1', '239.255.255.250', '240.0.0.1',
    '255.255.255.255',
    // IPv6
    '::', '::1', '0:0:0:0:0:0:0:1', '[::1]', 'fc00::1', 'fd00::1', 'fd00:ec2::254', 'fe80::1', 'febf::1',
    'ff02::1', 'ff05::1:3', '2001:db8::1', '3fff::1', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '100::1', '64:ff9b:1::1', '::ffff:0:7f00:1',
    // IPv4-mapped/compatible, NAT64 and 6to4 judged by the embedded IPv4
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:7F00:0001', '0:0:0:0:0:ffff:7f00:1', '::ffff:10.0.0.1',
    '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::127.0.0.1', '::7f00:1', '::ffff:0.0.0.0',
    '64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::', '2002:a00:1::1',
    '2002:a9fe:a9fe::',
    // Not an address in canonical form, or scoped: never public
    '127.1', '0x7f.0.0.1', '2130706433', '017700000001', 'localhost', 'example.com', '', 'fe80::1%eth0',
    '2606:4700::1%1', '1.2.3.4.5', '256.1.1.1',
  ];
  it.each(nonPublic)('%s is not public', (ip) => expect(isPublicAddress(ip)).toBe(false));
});

describe('sameAddress and ownEdgeHost (edge addresses written in any valid form)', () => {
  it('compares addresses, not their text', () => {
    expect(sameAddress('2A05:D014:0:0::10', '2a05:d014::10')).toBe(true);
    expect(sameAddress('[2a05:d014::10]', '2a05:d014:0:0:0:0:0:10')).toBe(true);
    expect(sameAddress('2a05:d014::10', '2a05:d014::11')).toBe(false);
    expect(sameAddress('192.0.2.1', '192.0.2.1')).toBe(true);
    expect(sameAddress('not-an-ip', 'not-an-ip')).toBe(false);
    const edge = { serviceDomain: 'hostgate.example', cnameTarget: 'edge.hostgate.example', ipv4: ['203.0.113.7'], ipv6: ['2A05:D014:0:0::10'] };
    expect(ownEdgeHost('[2a05:d014::10]', edge)).toMatch(/an address of this service's edge/);
    expect(ownEdgeHost('2a05:d014::10', edge)).toMatch(/an address of this service's edge/);
    expect(ownEdgeHost('[2a05:d014::11]', edge)).toBeNull();
  });

  it('refuses a name resolving to an edge address written differently in the configuration', async () => {
    const lookup = fakeLookup({ 'alias.example.com': [{ address: '2a05:d014::10', family: 6 }] });
    await expect(resolvePublicAddress('alias.example.com', { allowPrivate: false, lookup, forbidden: ['2A05:D014:0:0::10'] })).rejects.toThrow(/an address of this service's edge/);
  });
});

describe('the edge\'s IPv6 origin rule (HAProxy ACL ranges) agrees with isPublicAddress', () => {
  const list = (cidrs: readonly string[]) => {
    const b = new BlockList();
    for (const c of cidrs) { const [net, bits] = c.split('/'); b.addSubnet(net!, Number(bits), 'ipv6'); }
    return b;
  };
  const allowed = list([GLOBAL_UNICAST_IPV6]);
  const refused = list(NON_PUBLIC_GLOBAL_IPV6_CIDRS);
  const edgeServes = (ip: string) => allowed.check(ip, 'ipv6') && !refused.check(ip, 'ipv6');
  const hex = (n: number) => Math.floor(Math.random() * n).toString(16);

  it('on 100,000 random global unicast addresses, 6to4 addresses of every non-public IPv4 range, and the ranges outside 2000::/3', () => {
    const samples: string[] = [];
    for (let i = 0; i < 100_000; i++) samples.push([(0x2000 + Math.floor(Math.random() * 0x2000)).toString(16), ...Array.from({ length: 7 }, () => hex(0x10000))].join(':'));
    for (const v4 of ['10.1.2.3', '127.0.0.1', '169.254.169.254', '192.168.1.1', '8.8.8.8', '100.64.0.1']) {
      const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
      samples.push(`2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::1`);
    }
    samples.push('2001:db8::1', '2001::1', '3fff::1', 'fd00:ec2::254', 'fe80::1', '::1', 'ff02::1', '4000::1', '8000::1');
    const disagree = samples.filter((ip) => edgeServes(ip) !== isPublicAddress(ip));
    expect(disagree).toEqual([]);
    expect(edgeServes('2606:4700:4700::1111')).toBe(true);
    expect(edgeServes('fd00:ec2::254')).toBe(false);
    expect(edgeServes('2002:a01:203::1')).toBe(false);
  });
});

describe('parseDestinationUrl', () => {
  const strict = { allowPrivate: false };
  const good: [input: string, url: string, host: string, port: 443 | 8443][] = [
    ['https://app.example.com', 'https://app.example.com', 'app.example.com', 443],
    ['https://app.example.com/', 'https://app.example.com', 'app.example.com', 443],
    ['https://app.example.com:443', 'https://app.example.com', 'app.example.com', 443],
    ['https://app.example.com:8443', 'https://app.example.com:8443', 'app.example.com', 8443],
    ['  HTTPS://App.Example.COM:8443/  ', 'https://app.example.com:8443', 'app.example.com', 8443],
    ['https://app.example.com.', 'https://app.example.com', 'app.example.com', 443],
    ['https://Bücher.example', 'https://xn--bcher-kva.example', 'xn--bcher-kva.example', 443],
    ['https://8.8.8.8', 'https://8.8.8.8', '8.8.8.8', 443],
    ['https://[2606:4700:4700::1111]:8443', 'https://[2606:4700:4700::1111]:8443', '2606:4700:4700::1111', 8443],
    ['https://[2606:4700:4700:0:0:0:0:1111]', 'https://[2606:4700:4700::1111]', '2606:4700:4700::1111', 443],
  ];
  it.each(good)('%j → %s', (input, url, host, port) => {
    expect(parseDestinationUrl(input, strict)).toEqual({ ok: true, url, host, port });
  });

  const bad: [input: string, message: RegExp][] = [
    ['', /required/],
    ['app.example.com', /not a valid URL|https:\/\//],
    ['app.example.com:8443', /https:\/\//],
    ['http://app.example.com', /https:\/\//],
    ['ftp://app.example.com', /https:\/\//],
    ['https://app.example.com:444', /443 or 8443/],
    ['https://app.example.com:80', /443 or 8443/],
    ['https://app.example.com:99999', /not a valid URL/],
    ['https://user:pw@app.example.com', /username or password/],
    ['https://user@app.example.com', /username or password/],
    ['https://@app.example.com', /username or password/],
    ['https://app.example.com/path', /path/],
    ['https://app.example.com//', /path/],
    ['https://app.example.com?q', /query/],
    ['https://app.example.com/?', /query/],
    ['https://app.example.com#f', /fragment/],
    ['https://app.example.com/#', /fragment/],
    ['https://app.exa\tmple.com', /spaces or control/],
    ['https://app.example.com\n.evil.com', /spaces or control/],
    ['https://app_1.example.com', /not a valid DNS name/],
    ['https://a..b.com', /not a valid DNS name/],
    ['https://-a.example.com', /not a valid DNS name/],
    [`https://${'a'.repeat(64)}.example.com`, /not a valid DNS name/],
    ['https://127.0.0.1', /not a public IP address/],
    ['https://127.1', /not a public IP address/],
    ['https://2130706433', /not a public IP address/],
    ['https://0x7f.0.0.1', /not a public IP address/],
    ['https://10.0.0.1', /not a public IP address/],
    ['https://192.168.1.1:8443', /not a public IP address/],
    ['https://169.254.169.254', /not a public IP address/],
    ['https://100.64.0.1', /not a public IP address/],
    ['https://0.0.0.0', /not a public IP address/],
    ['https://[::1]', /not a public IP address/],
    ['https://[::]', /not a public IP address/],
    ['https://[::ffff:127.0.0.1]', /not a public IP address/],
    ['https://[::ffff:7f00:1]', /not a public IP address/],
    ['https://[fd00:ec2::254]', /not a public IP address/],
    ['https://[fe80::1]', /not a public IP address/],
    ['https://[64:ff9b::a9fe:a9fe]', /not a public IP address/],
    ['https://localhost', /not a public DNS name/],
    ['https://localhost:8443', /not a public DNS name/],
    ['https://origin', /not a public DNS name/],
    ['https://app.localhost', /local or internal name/],
    ['https://LOCALHOST.', /not a public DNS name/],
    ['https://metadata.google.internal', /local or internal name/],
    ['https://printer.local', /local or internal name/],
    ['https://router.home.arpa', /local or internal name/],
  ];
  it.each(bad)('%j is refused', (input, message) => {
    const result = parseDestinationUrl(input, strict);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it('allows private hosts only with allowPrivate, and still enforces the URL shape', () => {
    const lax = { allowPrivate: true };
    expect(parseDestinationUrl('https://127.0.0.1:8443', lax)).toEqual({ ok: true, url: 'https://127.0.0.1:8443', host: '127.0.0.1', port: 8443 });
    expect(parseDestinationUrl('https://localhost', lax)).toEqual({ ok: true, url: 'https://localhost', host: 'localhost', port: 443 });
    expect(parseDestinationUrl('https://origin:8443', lax)).toMatchObject({ ok: true, url: 'https://origin:8443' });
    expect(parseDestinationUrl('https://[::1]', lax)).toEqual({ ok: true, url: 'https://[::1]', host: '::1', port: 443 });
    expect(parseDestinationUrl('https://app.internal', lax)).toMatchObject({ ok: true });
    expect(parseDestinationUrl('http://localhost', lax)).toMatchObject({ ok: false });
    expect(parseDestinationUrl('https://localhost:3000', lax)).toMatchObject({ ok: false });
    expect(parseDestinationUrl('https://localhost/x', lax)).toMatchObject({ ok: false });
  });
});

describe('parseWebhookUrl', () => {
  const strict = { allowPrivate: false };
  it.each([
    ['https://hooks.example.com', 'https://hooks.example.com/'],
    ['https://hooks.example.com/hostgate/events?token=abc&x=1', 'https://hooks.example.com/hostgate/events?token=abc&x=1'],
    ['https://Hooks.Example.com:9443/In', 'https://hooks.example.com:9443/In'],
    ['https://hooks.example.com:443/x', 'https://hooks.example.com/x'],
    ['https://8.8.8.8:8080/hook', 'https://8.8.8.8:8080/hook'],
    ['https://bücher.example/hook', 'https://xn--bcher-kva.example/hook'],
  ])('%j → %s', (input, url) => {
    expect(parseWebhookUrl(input, strict)).toEqual({ ok: true, url });
  });

  it.each([
    ['', /required/],
    ['hooks.example.com/x', /not a valid URL|https:\/\//],
    ['http://hooks.example.com/x', /https:\/\//],
    ['ws://hooks.example.com/x', /https:\/\//],
    ['https://user:pw@hooks.example.com/x', /username or password/],
    ['https://hooks.example.com/x#frag', /fragment/],
    ['https://hooks.example.com:0/x', /port/],
    ['https://127.0.0.1/hook', /not a public IP address/],
    ['https://10.1.2.3:8080/hook', /not a public IP address/],
    ['https://169.254.169.254/latest/meta-data', /not a public IP address/],
    ['https://[::ffff:7f00:1]/hook', /not a public IP address/],
    ['https://[::ffff:127.0.0.1]/hook', /not a public IP address/],
    ['https://100.64.0.1/hook', /not a public IP address/],
    ['https://localhost/hook', /not a public DNS name/],
    ['https://svc.cluster.local/hook', /local or internal name/],
  ])('%j is refused', (input, message) => {
    const result = parseWebhookUrl(input, strict);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it('refuses URLs over 2048 characters', () => {
    expect(parseWebhookUrl(`https://hooks.example.com/${'a'.repeat(3000)}`, strict)).toMatchObject({ ok: false, message: expect.stringMatching(/at most 2048/) });
  });

  it('allows http and private hosts with allowPrivate (local receivers in tests)', () => {
    const lax = { allowPrivate: true };
    expect(parseWebhookUrl('http://127.0.0.1:4000/hook', lax)).toEqual({ ok: true, url: 'http://127.0.0.1:4000/hook' });
    expect(parseWebhookUrl('http://localhost:4000/hook', lax)).toEqual({ ok: true, url: 'http://localhost:4000/hook' });
    expect(parseWebhookUrl('ftp://localhost/hook', lax)).toMatchObject({ ok: false });
    expect(parseWebhookUrl('http://user:pw@localhost/hook', lax)).toMatchObject({ ok: false });
  });
});

// A stand-in for the public internet (unreachable here): fixed answers per name.
function fakeLookup(answers: Record<string, LookupAddress[]>): PromiseLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string, options?: { all?: boolean; family?: number | string }) => {
    calls.push(hostname);
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const family = options?.family === 4 || options?.family === 'IPv4' ? 4 : options?.family === 6 || options?.family === 'IPv6' ? 6 : 0;
    const filtered = family ? found.filter((a) => a.family === family) : found;
    return options?.all ? filtered : filtered[0];
  };
  return Object.assign(lookup as unknown as PromiseLookup, { calls });
}

const answers: Record<string, LookupAddress[]> = {
  'public.example.com': [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }],
  'mixed.example.com': [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }],
  'mixed6.example.com': [{ address: '93.184.216.34', family: 4 }, { address: '::ffff:127.0.0.1', family: 6 }],
  'rebind.example.com': [{ address: '169.254.169.254', family: 4 }],
  'loopback.example.com': [{ address: '127.0.0.1', family: 4 }],
  'empty.example.com': [],
};

describe('resolvePublicAddress', () => {
  it('asks the system resolver for the absolute name: /etc/hosts and resolv.conf search domains do not apply', async () => {
    // /etc/hosts maps localhost to loopback (the next test shows it); asked as `localhost.` it is
    // unknown, so an internal name cannot be reached nor its address reported back in a refusal.
    const error = await resolvePublicAddress('localhost', { allowPrivate: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ENOTFOUND', hostname: 'localhost.' });
    expect(await resolvesToPrivate('localhost', { allowPrivate: false })).toBeNull();
  });

  it('returns a loopback address for localhost when private targets are allowed', async () => {
    const result = await resolvePublicAddress('localhost', { allowPrivate: true });
    expect(['127.0.0.1', '::1']).toContain(result.address);
    expect(result.family).toBe(result.address === '::1' ? 6 : 4);
  });

  it('returns the first answer when every answer is public', async () => {
    const lookup = fakeLookup(answers);
    await expect(resolvePublicAddress('public.example.com', { allowPrivate: false, lookup })).resolves.toEqual({ address: '93.184.216.34', family: 4 });
  });

  it('refuses a name when any answer is not public, even if the first one is', async () => {
    const lookup = fakeLookup(answers);
    await expect(resolvePublicAddress('mixed.example.com', { allowPrivate: false, lookup })).rejects.toThrow(/mixed\.example\.com resolves to 10\.0\.0\.5, which is not a public address/);
    await expect(resolvePublicAddress('mixed6.example.com', { allowPrivate: false, lookup })).rejects.toThrow(/::ffff:127\.0\.0\.1/);
    await expect(resolvePublicAddress('rebind.example.com', { allowPrivate: false, lookup })).rejects.toBeInstanceOf(UnsafeAddressError);
    await expect(resolvePublicAddress('mixed.example.com', { allowPrivate: true, lookup })).resolves.toEqual({ address: '93.184.216.34', family: 4 });
  });

  it('checks IP literals without a lookup', async () => {
    const lookup = fakeLookup(answers);
    await expect(resolvePublicAddress('8.8.8.8', { allowPrivate: false, lookup })).resolves.toEqual({ address: '8.8.8.8', family: 4 });
    await expect(resolvePublicAddress('[2606:4700::1]', { allowPrivate: false, lookup })).resolves.toEqual({ address: '2606:4700::1', family: 6 });
    await expect(resolvePublicAddress('127.0.0.1', { allowPrivate: false, lookup })).rejects.toThrow(/127\.0\.0\.1 is not a public address/);
    await expect(resolvePublicAddress('[::ffff:7f00:1]', { allowPrivate: false, lookup })).rejects.toThrow(UnsafeAddressError);
    await expect(resolvePublicAddress('::1', { allowPrivate: true, lookup })).resolves.toEqual({ address: '::1', family: 6 });
    expect(lookup.calls).toEqual([]);
  });

  it('fails clearly on names without answers', async () => {
    const lookup = fakeLookup(answers);
    await expect(resolvePublicAddress('empty.example.com', { allowPrivate: false, lookup })).rejects.toThrow(/did not resolve to any address/);
    await expect(resolvePublicAddress('missing.example.com', { allowPrivate: false, lookup })).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('createGuardedLookup', () => {
  function callLookup(fn: ReturnType<typeof createGuardedLookup>, hostname: string, options: { all?: boolean; family?: number }) {
    return new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family: unknown }>((resolve) => {
      fn(hostname, options, (err, address, family) => resolve({ err, address, family }));
    });
  }

  it('answers in both callback shapes (all and single) for public names', async () => {
    const guarded = createGuardedLookup({ allowPrivate: false, lookup: fakeLookup(answers) });
    expect(await callLookup(guarded, 'public.example.com', {})).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await callLookup(guarded, 'public.example.com', { all: true })).toEqual({ err: null, address: answers['public.example.com'], family: undefined });
    expect(await callLookup(guarded, 'public.example.com', { family: 6 })).toEqual({ err: null, address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
  });

  it('passes an UnsafeAddressError to the callback for non-public answers', async () => {
    const guarded = createGuardedLookup({ allowPrivate: false, lookup: fakeLookup(answers) });
    const mixed = await callLookup(guarded, 'mixed.example.com', { all: true });
    expect(mixed.err).toBeInstanceOf(UnsafeAddressError);
    const loopback = await callLookup(guarded, 'loopback.example.com', {});
    expect(loopback.err?.message).toMatch(/not a public address/);
    // The system resolver is asked for `localhost.`: not in /etc/hosts that way, so not found.
    const real = await callLookup(createGuardedLookup({ allowPrivate: false }), 'localhost', {});
    expect(real.err).toMatchObject({ code: 'ENOTFOUND' });
  });

  // Loopback only: a local server stands in for a webhook receiver behind a name that resolves to it.
  it('stops http.request before it connects to a non-public address, and lets it through with allowPrivate', async () => {
    let connections = 0;
    const server = createServer((_req, res) => res.end('ok'));
    server.on('connection', () => { connections++; });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const get = (allowPrivate: boolean, hostname: string) => new Promise<number>((resolve, reject) => {
      const lookup = createGuardedLookup({ allowPrivate, lookup: fakeLookup(answers) });
      const req = request({ hostname, port, path: '/', lookup, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); });
      req.on('error', reject);
      req.end();
    });
    try {
      await expect(get(false, 'loopback.example.com')).rejects.toMatchObject({ name: 'UnsafeAddressError', code: 'ERR_UNSAFE_ADDRESS' });
      expect(connections).toBe(0);
      await expect(get(true, 'loopback.example.com')).resolves.toBe(200);
      expect(connections).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('customer lookups and the thread pool', () => {
  it(`at most ${GUARDED_LOOKUPS_AT_ONCE} wait on DNS at once; one more gives up after queueing 5 s, and the slots come back when DNS answers`, async () => {
    // Lookups that DNS never answers (getaddrinfo holding a thread) until the test lets them go.
    const pending: (() => void)[] = [];
    const hanging = ((hostname: string) => new Promise((resolve) => {
      pending.push(() => resolve([{ address: '93.184.216.34', family: 4 }]));
    })) as unknown as PromiseLookup;
    const opts = { allowPrivate: false, lookup: hanging };
    const held = Array.from({ length: GUARDED_LOOKUPS_AT_ONCE }, (_, i) => resolvePublicAddress(`never${i}.example.com`, opts));
    try {
      await new Promise((r) => setImmediate(r));
      expect(pending).toHaveLength(GUARDED_LOOKUPS_AT_ONCE);
      expect(guardedLookupsInFlight()).toBe(GUARDED_LOOKUPS_AT_ONCE);
      const started = Date.now();
      await expect(resolvePublicAddress('one-more.example.com', opts)).rejects.toMatchObject({ code: 'ELOOKUPBUSY' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
      // It never reached the resolver.
      expect(pending).toHaveLength(GUARDED_LOOKUPS_AT_ONCE);
    } finally {
      for (const answer of pending) answer();
      await Promise.all(held);
    }
    expect(guardedLookupsInFlight()).toBe(0);
    expect(await resolvePublicAddress('public.example.com', { allowPrivate: false, lookup: fakeLookup(answers) })).toEqual({ address: '93.184.216.34', family: 4 });
  }, 15_000);
});
