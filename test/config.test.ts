import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { declaredVariables } from '../config/env.ts';
import { ConfigError, loadConfig, type Config } from '../config/index.ts';

/** The problems loadConfig names for `env` (none: []). */
function problemsOf(env: Record<string, string>): string[] {
  try { loadConfig(env); } catch (error) { if (error instanceof ConfigError) return error.problems; throw error; }
  return [];
}

describe('configuration', () => {
  it('applies defaults and derives values', () => {
    const config = loadConfig({});
    expect(config.api.port).toBe(3000);
    expect(config.cnameTarget).toBe('edge.hostgate.localhost');
    expect(config.temporal.namespace).toBe('default');
    expect(config.allowPrivateTargets).toBe(false);
    expect(config.api.rateLimit).toEqual({ perSecond: 50, burst: 100 });
  });

  it('names every bad variable and what it expects', () => {
    let error: unknown;
    try {
      loadConfig({ HOSTGATE_API_PORT: 'eighty', LOG_LEVEL: 'loud', HOSTGATE_ALLOW_PRIVATE_TARGETS: 'maybe', DATABASE_URL: 'mysql://x' });
    } catch (e) { error = e; }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/HOSTGATE_API_PORT="eighty" is not valid: expected a TCP port/);
    expect(problems).toMatch(/LOG_LEVEL="loud" is not valid: expected one of fatal/);
    expect(problems).toMatch(/HOSTGATE_ALLOW_PRIVATE_TARGETS="maybe" is not valid: expected true or false/);
    // URLs may carry passwords: the value is not echoed.
    expect(problems).toMatch(/DATABASE_URL="<redacted>" is not valid: expected a postgres:\/\/ connection URL/);
  });

  it('HOSTGATE_TRUSTED_PROXIES: none by default; IPs, CIDRs and named ranges accepted; a bad entry is named', () => {
    expect(loadConfig({}).api.trustedProxies).toEqual([]);
    expect(loadConfig({}).api.authFailureLimit).toEqual({ perSecond: 1, burst: 20 });
    expect(loadConfig({ HOSTGATE_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8,fd00::/8,::1,loopback' }).api.trustedProxies).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1', 'loopback']);
    for (const bad of ['10.0.0.0/33', '300.1.1.1', 'proxy.internal', '10.0.0.1/8/1', 'fd00::/129', '10.0.0.0/']) {
      let error: unknown;
      try { loadConfig({ HOSTGATE_TRUSTED_PROXIES: `127.0.0.1,${bad}` }); } catch (e) { error = e; }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n')).toContain(`HOSTGATE_TRUSTED_PROXIES: ${JSON.stringify(bad)} is not valid`);
    }
    // Characters no address has are refused by the variable's pattern, naming it too.
    expect(() => loadConfig({ HOSTGATE_TRUSTED_PROXIES: '10.0.0.1;rm' })).toThrow(/HOSTGATE_TRUSTED_PROXIES=.*is not valid/);
  });

  it('rejects an encryption key of the wrong length', () => {
    expect(() => loadConfig({ HOSTGATE_ENCRYPTION_KEYS: `k1:${Buffer.alloc(16).toString('base64')}=========================` })).toThrow(ConfigError);
    expect(() => loadConfig({ HOSTGATE_ENCRYPTION_KEYS: `k1:${Buffer.alloc(24).toString('base64')}` })).toThrow(/HOSTGATE_ENCRYPTION_KEYS/);
    expect(loadConfig({ HOSTGATE_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}` }).encryptionKeys[0]?.id).toBe('k1');
  });

  it('production needs a billing provider chosen: Stripe, or the local one on purpose', () => {
    // The local provider's checkout page activates a plan with no payment.
    expect(() => loadConfig({ HOSTGATE_ENV: 'production' })).toThrow(/HOSTGATE_ENV=production needs a billing provider: set STRIPE_SECRET_KEY[\s\S]*HOSTGATE_BILLING_PROVIDER=local/);
    expect(loadConfig({ HOSTGATE_ENV: 'production', HOSTGATE_BILLING_PROVIDER: 'local' }).billing.stripe).toBeNull();
    const stripe = { STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', STRIPE_PRICE_STARTER: 'price_a', STRIPE_PRICE_GROWTH: 'price_b', STRIPE_PRICE_SCALE: 'price_c' };
    expect(loadConfig({ HOSTGATE_ENV: 'production', ...stripe }).billing.stripe?.secretKey).toBe('sk_live_x');
    expect(() => loadConfig({ HOSTGATE_ENV: 'production', HOSTGATE_BILLING_PROVIDER: 'local', ...stripe })).toThrow(/both set/);
    expect(() => loadConfig({ HOSTGATE_BILLING_PROVIDER: 'stripe' })).toThrow(/HOSTGATE_BILLING_PROVIDER=stripe needs STRIPE_SECRET_KEY/);
    // Outside production the local provider stays the default (npm start, tests).
    expect(loadConfig({}).billing.stripe).toBeNull();
  });

  it('requires what a process cannot run without', () => {
    expect(() => loadConfig({}, ['database', 'temporal'])).toThrow(/DATABASE_URL is required[\s\S]*TEMPORAL_ADDRESS is required/);
  });

  it('stops the api process with exit code 78 and a message naming the variable', () => {
    const result = spawnSync(process.execPath, ['api/server.ts'], { env: { PATH: process.env.PATH, HOSTGATE_API_PORT: '99999' }, encoding: 'utf8' });
    expect(result.status).toBe(78);
    expect(result.stderr).toMatch(/HOSTGATE_API_PORT="99999" is not valid/);
  });

  // --- Every variable is typed: each reaches the Config, so no process reads the environment ---

  /** Valid, non-default values of the string variables (numbers, booleans and choices are derived from their schemas). */
  const samples: Record<string, string> = {
    HOSTGATE_ENV: 'test', // production would also need a billing provider
    DATABASE_URL: 'postgres://u@db.example:5432/hg',
    TEMPORAL_ADDRESS: 'temporal.example:7233',
    TEMPORAL_NAMESPACE: 'ns1',
    TEMPORAL_TASK_QUEUE: 'queue1',
    TEMPORAL_CLI_PATH: '/opt/temporal',
    HOSTGATE_DATA_DIR: '/var/lib/hostgate',
    HOSTGATE_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    HOSTGATE_HOST: '0.0.0.0',
    HOSTGATE_PUBLIC_URL: 'https://api.example.com',
    HOSTGATE_CDN_URL: 'https://cdn.example.com',
    HOSTGATE_WIDGET_API_ORIGIN: 'https://widget-api.example.com',
    HOSTGATE_SERVICE_DOMAIN: 'example.net',
    HOSTGATE_CNAME_TARGET: 'edge.example.net',
    HOSTGATE_EDGE_IPV4: '192.0.2.1',
    HOSTGATE_EDGE_IPV6: '2001:db8::1',
    HOSTGATE_TRUSTED_PROXIES: '10.0.0.0/8',
    HOSTGATE_WORKFLOW_BUNDLE: '/opt/bundle.js',
    HOSTGATE_DNS_SERVERS: '192.0.2.53',
    HOSTGATE_ACME_DIRECTORY_URL: 'https://acme.example/directory',
    HOSTGATE_ACME_CA_BUNDLE: '/etc/ca.pem',
    HOSTGATE_CUSTOM_CERT_CA_FILE: '/etc/customer-cas.pem',
    HOSTGATE_ACME_EMAIL: 'ops@example.com',
    HOSTGATE_ACME_CAA_IDENTITIES: 'pki.goog',
    HOSTGATE_ACME_BUDGET: '5/20s',
    HOSTGATE_ACME_DIRECTORIES: '[{"name": "gts", "url": "https://dv.acme-v02.api.pki.goog/directory", "caa": ["pki.goog"]}]',
    HOSTGATE_CHALLENGE_ZONE: 'acme.example.com',
    HOSTGATE_CHALLENGE_DNS_SERVER: '192.0.2.53:5353',
    STRIPE_SECRET_KEY: 'sk_test_b',
    STRIPE_WEBHOOK_SECRET: 'whsec_b',
    STRIPE_PRICE_STARTER: 'price_b1',
    STRIPE_PRICE_GROWTH: 'price_b2',
    STRIPE_PRICE_SCALE: 'price_b3',
    STRIPE_API_BASE: 'https://stripe.example',
    HOSTGATE_EDGE_ID: 'edge-7',
    HOSTGATE_EDGE_BIND_ADDRESS: '0.0.0.0',
    HOSTGATE_EDGE_STATE_DIR: '/var/lib/hostgate-edge',
    HOSTGATE_EDGE_HAPROXY_BIN: '/usr/local/sbin/haproxy',
    HOSTGATE_EDGE_ORIGIN_CA_FILE: '/etc/origin-ca.pem',
    HOSTGATE_EDGE_RESOLVERS: '192.0.2.53:53',
    HOSTGATE_METRICS_HOST: '0.0.0.0',
  };
  // HOSTGATE_BILLING_PROVIDER only checks STRIPE_SECRET_KEY (the typed result, config.billing.stripe,
  // is the key's): its test is 'production needs a billing provider chosen' above.
  const checksOnly = new Set(['HOSTGATE_BILLING_PROVIDER']);
  // The Stripe variables count only together (a key needs its prices and webhook secret).
  const stripeBase = { STRIPE_SECRET_KEY: 'sk_test_a', STRIPE_WEBHOOK_SECRET: 'whsec_a', STRIPE_PRICE_STARTER: 'price_a1', STRIPE_PRICE_GROWTH: 'price_a2', STRIPE_PRICE_SCALE: 'price_a3' };

  function sampleOf(name: string): string | undefined {
    if (samples[name] !== undefined) return samples[name];
    const { schema, default: fallback } = declaredVariables[name]!;
    const s = schema as { type?: string; minimum?: number; anyOf?: { const?: unknown }[] };
    if (s.type === 'integer') return String(String(s.minimum ?? 0) === fallback ? (s.minimum ?? 0) + 1 : (s.minimum ?? 0));
    if (s.type === 'boolean') return fallback === 'true' ? 'false' : 'true';
    if (s.anyOf) return s.anyOf.map((c) => String(c.const)).find((v) => v !== fallback);
    return undefined;
  }

  /** Paths whose values differ between two configs (undefined and absent count as different from 0 or ''). */
  function differences(a: unknown, b: unknown, at = 'config'): string[] {
    if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b) ? [] : [at];
    if (a && b && typeof a === 'object' && typeof b === 'object') {
      const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
      return [...keys].flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`));
    }
    return Object.is(a, b) ? [] : [at];
  }

  it.each(Object.keys(declaredVariables).filter((name) => !checksOnly.has(name)))('%s reaches the typed Config', (name) => {
    const sample = sampleOf(name);
    expect([name, sample]).toEqual([name, expect.any(String)]); // a new string variable needs a sample above
    const base: Record<string, string> = name.startsWith('STRIPE_') ? { ...stripeBase } : {};
    const changed = differences(loadConfig(base), loadConfig({ ...base, [name]: sample! }));
    expect([name, changed.length > 0]).toEqual([name, true]);
  });

  it('the edge agent, HAProxy and HTTP listener settings: defaults and each variable typed (config.edge)', () => {
    expect(loadConfig({ HOSTGATE_DATA_DIR: '/srv/hg' }).edge).toEqual({
      httpHost: '127.0.0.1', httpPort: 8080,
      id: 'edge-local', httpsPort: 8443, bindAddress: '127.0.0.1', stateDir: path.join('/srv/hg', 'edge'),
      haproxyBin: '/usr/sbin/haproxy', originCaFile: '@system-ca', resolvers: [], originDnsRefreshMs: 30000, hstsMaxAge: 0, threads: 0,
      bandwidthIntervalMs: 60000, trafficLogPort: -1, analyticsFlushMs: 10000, pollIntervalMs: 5000, reconcileIntervalMs: 60000, heartbeatIntervalMs: 10000, healthPort: 0, healthMaxLagMs: 30000, socketTimeoutMs: 5000, startTimeoutMs: 300000, bootFirstHosts: 2000,
    } satisfies Config['edge']);
    expect(loadConfig({
      HOSTGATE_HOST: '0.0.0.0', HOSTGATE_HTTP_PORT: '80',
      HOSTGATE_EDGE_ID: 'edge-2', HOSTGATE_EDGE_HTTPS_PORT: '443', HOSTGATE_EDGE_BIND_ADDRESS: '::', HOSTGATE_EDGE_STATE_DIR: '/run/edge',
      HOSTGATE_EDGE_HAPROXY_BIN: '/opt/haproxy', HOSTGATE_EDGE_ORIGIN_CA_FILE: '/etc/ca.pem', HOSTGATE_EDGE_RESOLVERS: '10.0.0.2:53,10.0.0.3:53',
      HOSTGATE_EDGE_ORIGIN_DNS_REFRESH_MS: '2000', HOSTGATE_EDGE_HSTS_MAX_AGE: '31536000', HOSTGATE_EDGE_THREADS: '4',
      HOSTGATE_EDGE_BANDWIDTH_INTERVAL_MS: '1000', HOSTGATE_EDGE_POLL_INTERVAL_MS: '2000', HOSTGATE_EDGE_RECONCILE_INTERVAL_MS: '3000',
      HOSTGATE_EDGE_HEARTBEAT_INTERVAL_MS: '4000', HOSTGATE_EDGE_HEALTH_PORT: '8081', HOSTGATE_EDGE_HEALTH_MAX_LAG_MS: '9000', HOSTGATE_EDGE_SOCKET_TIMEOUT_MS: '6000', HOSTGATE_EDGE_START_TIMEOUT_MS: '7000', HOSTGATE_EDGE_BOOT_FIRST_HOSTS: '100',
      HOSTGATE_EDGE_TRAFFIC_LOG_PORT: '5140', HOSTGATE_EDGE_ANALYTICS_FLUSH_MS: '500',
    }).edge).toEqual({
      httpHost: '0.0.0.0', httpPort: 80,
      id: 'edge-2', httpsPort: 443, bindAddress: '::', stateDir: '/run/edge',
      haproxyBin: '/opt/haproxy', originCaFile: '/etc/ca.pem', resolvers: ['10.0.0.2:53', '10.0.0.3:53'], originDnsRefreshMs: 2000, hstsMaxAge: 31536000, threads: 4,
      bandwidthIntervalMs: 1000, trafficLogPort: 5140, analyticsFlushMs: 500, pollIntervalMs: 2000, reconcileIntervalMs: 3000, heartbeatIntervalMs: 4000, healthPort: 8081, healthMaxLagMs: 9000, socketTimeoutMs: 6000, startTimeoutMs: 7000, bootFirstHosts: 100,
    } satisfies Config['edge']);
    expect(loadConfig({ HOSTGATE_EDGE_TRAFFIC_LOG: 'off', HOSTGATE_EDGE_TRAFFIC_LOG_PORT: '5140' }).edge.trafficLogPort).toBe(0);
  });

  it('the local stack settings: its ports, and the metrics ports it gives its children (a variable set wins, 0: off)', () => {
    expect(loadConfig({}).localStack).toEqual({ postgresPort: 5433, temporalPort: 7233, temporalUiPort: 8233, pdnsPort: 5354, metricsPorts: { api: 9464, worker: 9465, workerSdk: 9466, edge: 9467 }, edgeHealthPort: 8490 });
    const set = loadConfig({ HOSTGATE_POSTGRES_PORT: '15433', HOSTGATE_TEMPORAL_PORT: '17233', HOSTGATE_TEMPORAL_UI_PORT: '18233', HOSTGATE_API_METRICS_PORT: '0', HOSTGATE_EDGE_METRICS_PORT: '19467' });
    expect(set.localStack).toEqual({ postgresPort: 15433, temporalPort: 17233, temporalUiPort: 18233, pdnsPort: 5354, metricsPorts: { api: 0, worker: 9465, workerSdk: 9466, edge: 19467 }, edgeHealthPort: 8490 });
    // Outside `npm start` an unset metrics port stays off.
    expect(set.metrics).toEqual({ host: '127.0.0.1', apiPort: 0, workerPort: 0, workerSdkPort: 0, edgePort: 19467 });
  });

  it.each([
    ['HOSTGATE_EDGE_ID', 'Edge 1', /expected a stable id of this edge node/],
    ['HOSTGATE_EDGE_HTTPS_PORT', '70000', /expected a TCP port/],
    ['HOSTGATE_EDGE_BIND_ADDRESS', 'localhost', /expected the address HAProxy binds HTTPS on/],
    ['HOSTGATE_EDGE_RESOLVERS', 'dns.example:53', /expected comma-separated ip:port DNS servers/],
    ['HOSTGATE_EDGE_ORIGIN_DNS_REFRESH_MS', '999', /expected at most this many milliseconds/],
    ['HOSTGATE_EDGE_HSTS_MAX_AGE', '-1', /expected seconds of Strict-Transport-Security/],
    ['HOSTGATE_EDGE_THREADS', '65', /expected HAProxy worker threads/],
    ['HOSTGATE_EDGE_BANDWIDTH_INTERVAL_MS', '99', /expected milliseconds between two readings/],
    ['HOSTGATE_EDGE_POLL_INTERVAL_MS', 'often', /expected milliseconds between two polls/],
    ['HOSTGATE_EDGE_RECONCILE_INTERVAL_MS', '999', /expected milliseconds between two full comparisons/],
    ['HOSTGATE_EDGE_HEARTBEAT_INTERVAL_MS', '600001', /expected milliseconds between two heartbeats/],
    ['HOSTGATE_EDGE_HEALTH_PORT', '65536', /expected a TCP port for the edge's health endpoint/],
    ['HOSTGATE_EDGE_HEALTH_MAX_LAG_MS', '999', /expected milliseconds the edge's last complete read/],
    ['HOSTGATE_EDGE_SOCKET_TIMEOUT_MS', '1.5', /expected milliseconds one HAProxy runtime-API command may take/],
    ['HOSTGATE_EDGE_START_TIMEOUT_MS', '999', /expected milliseconds HAProxy may take to start/],
    ['HOSTGATE_HTTP_PORT', '0', /expected a TCP port/],
    ['HOSTGATE_POSTGRES_PORT', 'x', /expected a TCP port \(1-65535\) for the embedded Postgres/],
    ['HOSTGATE_TEMPORAL_PORT', '65536', /expected a TCP port \(1-65535\) for the local Temporal dev server/],
    ['HOSTGATE_TEMPORAL_UI_PORT', '-1', /expected a TCP port \(1-65535\) for the Temporal Web UI/],
    ['HOSTGATE_API_METRICS_PORT', '-1', /expected a TCP port for the API's \/metrics/],
  ])('%s=%s is refused with a message naming it', (name, value, expected) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toEqual([expect.stringContaining(`${name}=${JSON.stringify(value)} is not valid`)]);
    expect(problems[0]).toMatch(expected);
  });

  it('stops the edge agent (exit 78) and `npm start` (exit 78, before starting anything) on a bad edge or local-stack variable, naming it', () => {
    const agent = spawnSync(process.execPath, ['edge/agent-main.ts'], { env: { PATH: process.env.PATH, HOSTGATE_EDGE_POLL_INTERVAL_MS: 'often' }, encoding: 'utf8', timeout: 30_000 });
    expect(agent.status).toBe(78);
    expect(agent.stderr).toMatch(/HOSTGATE_EDGE_POLL_INTERVAL_MS="often" is not valid: expected milliseconds between two polls/);
    // Every port it would start something on is refused, so nothing can start even if one check slipped.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hg-config-'));
    try {
      const start = spawnSync(process.execPath, ['local-stack/start.ts'], {
        env: { PATH: process.env.PATH, HOSTGATE_DATA_DIR: dataDir, HOSTGATE_POSTGRES_PORT: 'x', HOSTGATE_TEMPORAL_PORT: '0', HOSTGATE_TEMPORAL_UI_PORT: '65536', HOSTGATE_API_PORT: '0', HOSTGATE_HTTP_PORT: '0', HOSTGATE_EDGE_HTTPS_PORT: '0' },
        encoding: 'utf8', timeout: 30_000,
      });
      expect(start.status).toBe(78);
      for (const name of ['HOSTGATE_POSTGRES_PORT', 'HOSTGATE_TEMPORAL_PORT', 'HOSTGATE_TEMPORAL_UI_PORT', 'HOSTGATE_EDGE_HTTPS_PORT']) expect(start.stderr).toContain(`${name}=`);
      expect(start.stdout).not.toMatch(/\[1\/6\]/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
