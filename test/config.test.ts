import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../config/index.ts';

describe('configuration', () => {
  it('applies defaults and derives values', () => {
    const config = loadConfig({});
    expect(config.apiPort).toBe(3000);
    expect(config.cnameTarget).toBe('edge.hostgate.localhost');
    expect(config.temporal.namespace).toBe('default');
    expect(config.allowPrivateTargets).toBe(false);
    expect(config.rateLimit).toEqual({ perSecond: 50, burst: 100 });
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
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({}).authFailureLimit).toEqual({ perSecond: 1, burst: 20 });
    expect(loadConfig({ HOSTGATE_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8,fd00::/8,::1,loopback' }).trustedProxies).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1', 'loopback']);
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
});
