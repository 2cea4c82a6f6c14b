// The API's key cache (api/api-key-cache.ts, docs/api-decisions.md "Authentication and scopes"):
// a key is served from memory only while the revocation feed (LISTEN hostgate_api_keys, migration
// 024) is up; a key revoked from another connection — the CLI's — is refused by the running API
// within REVOCATION_BOUND_MS, far inside the TTL, so it is the notification that evicts it; with
// the feed's connection cut (a TCP proxy in its path, the API's pool untouched) nothing is cached.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildApp, type App } from '../api/app.ts';
import { createApiKeyCache } from '../api/api-key-cache.ts';
import { run } from '../cli/hostgate.ts';
import { apiKeysRepository, type ApiKeyRow } from '../db/repositories/api-keys.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { createLogger } from '../logging/logger.ts';
import { apiKeyCacheCounts } from '../metrics/http.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';
import { waitFor } from './support/wait.ts';

/** What the API promises for a revocation while its feed is up (docs/api-decisions.md). */
const REVOCATION_BOUND_MS = 1000;
/** Longer than anything below takes: an entry that goes away went because of a notification. */
const TTL_MS = 10_000;

const lookups = apiKeyCacheCounts;

describe('API key cache', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let app: App;
  let orgId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const direct = new URL(database.url);
    proxy = await startTcpProxy(direct.hostname, Number(direct.port || 5432));
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    // The pool (database.db) goes to Postgres directly; only the feed's LISTEN goes through the proxy.
    const config = testConfig({ DATABASE_URL: proxied.toString(), HOSTGATE_API_KEY_CACHE_TTL_MS: String(TTL_MS) });
    app = await buildApp({ config, db: database.db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test-api') });
    await app.ready();
    await waitFor('the key cache to listen', async () => app.apiKeyCache.caching, 10_000, 20);
    orgId = (await organizationsRepository(database.db).create({ name: 'Cached', allowedReturnOrigins: ['https://vendor.example'] })).id;
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await database.drop();
  });

  const newKey = () => apiKeysRepository(database.db).create({ organizationId: orgId, scopes: ['domains:write'] });
  const call = (secret: string) => app.inject({ method: 'GET', url: '/v1/domains', headers: { authorization: `Bearer ${secret}` } });
  const revokeWithCli = (keyId: string) => run(['keys', 'revoke', keyId], () => undefined, { DATABASE_URL: database.url });

  it('serves a known key from memory, and refuses it within the bound once the CLI revoked it from its own connection', async () => {
    const { key, secret } = await newKey();
    const before = await lookups();
    expect((await call(secret)).statusCode).toBe(200);
    expect((await call(secret)).statusCode).toBe(200);
    expect((await call(secret)).statusCode).toBe(200);
    const cached = await lookups();
    expect(cached.miss - before.miss).toBe(1);
    expect(cached.hit - before.hit).toBe(2);

    await revokeWithCli(key.id);
    const revokedAt = Date.now();
    let res = await call(secret);
    while (res.statusCode === 200 && Date.now() - revokedAt < TTL_MS) {
      await new Promise((r) => setTimeout(r, 5));
      res = await call(secret);
    }
    const refusedAfter = Date.now() - revokedAt;
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_api_key');
    expect(refusedAfter).toBeLessThan(REVOCATION_BOUND_MS);
    // Refused from then on: a revoked key is looked up every time, never cached again.
    const after = await lookups();
    expect((await call(secret)).statusCode).toBe(401);
    expect((await call(secret)).statusCode).toBe(401);
    const later = await lookups();
    expect(later.miss - after.miss).toBe(2);
    expect(later.hit - after.hit).toBe(0);
  });

  it('never caches a failed lookup: an unknown key costs a lookup every time', async () => {
    const before = await lookups();
    const size = app.apiKeyCache.size;
    for (let i = 0; i < 3; i++) expect((await call('hg_live_unknownunknownunknownunknownunknown0')).statusCode).toBe(401);
    const after = await lookups();
    expect(after.miss - before.miss).toBe(3);
    expect(after.hit - before.hit).toBe(0);
    expect(app.apiKeyCache.size).toBe(size);
  });

  it('caches nothing while the feed is cut, refuses a key revoked meanwhile at once, and caches again once it reconnects', async () => {
    const { key, secret } = await newKey();
    expect((await call(secret)).statusCode).toBe(200);
    expect(app.apiKeyCache.size).toBeGreaterThan(0);

    await proxy.cut();
    await waitFor('the cache to notice its feed is gone', async () => !app.apiKeyCache.caching, 5_000, 10);
    // The entries went with the feed: a revocation now could not be heard.
    expect(app.apiKeyCache.size).toBe(0);
    const before = await lookups();
    expect((await call(secret)).statusCode).toBe(200);
    expect((await call(secret)).statusCode).toBe(200);
    const off = await lookups();
    expect(off.off - before.off).toBe(2);
    expect(off.hit - before.hit).toBe(0);
    expect(app.apiKeyCache.size).toBe(0);
    // No notification reaches the API now, yet the next request after the revoke is refused.
    await revokeWithCli(key.id);
    expect((await call(secret)).statusCode).toBe(401);

    await proxy.restore();
    await waitFor('the feed to listen again', async () => app.apiKeyCache.caching, 10_000, 20);
    const fresh = await newKey();
    const again = await lookups();
    expect((await call(fresh.secret)).statusCode).toBe(200);
    expect((await call(fresh.secret)).statusCode).toBe(200);
    const on = await lookups();
    expect(on.miss - again.miss).toBe(1);
    expect(on.hit - again.hit).toBe(1);
  });

  it('does not cache a lookup that read the key before a revocation the feed announced while it was in flight', async () => {
    const { key, secret } = await newKey();
    const repo = apiKeysRepository(database.db);
    let revokeDuringLookup = true;
    const cache = createApiKeyCache({
      databaseUrl: database.url, ttlMs: TTL_MS, logger: createLogger('silent', 'test-cache'),
      lookup: async (s): Promise<ApiKeyRow | null> => {
        const found = await repo.authenticate(s);
        if (revokeDuringLookup) {
          revokeDuringLookup = false;
          await revokeWithCli(key.id);
          // Long enough for the notification to arrive before this (stale) answer does.
          await new Promise((r) => setTimeout(r, REVOCATION_BOUND_MS));
        }
        return found;
      },
    });
    cache.start();
    try {
      await waitFor('the cache to listen', async () => cache.caching, 10_000, 20);
      expect((await cache.authenticate(secret))?.id).toBe(key.id); // read before the revoke committed
      expect(cache.size).toBe(0);
      expect(await cache.authenticate(secret)).toBeNull();
    } finally {
      await cache.close();
    }
  });

  it('expires an entry after its TTL, and caches nothing with a TTL of 0', async () => {
    const { secret } = await newKey();
    let clock = 1_000_000;
    let reads = 0;
    const repo = apiKeysRepository(database.db);
    const lookup = (s: string) => { reads++; return repo.authenticate(s); };
    const cache = createApiKeyCache({ databaseUrl: database.url, ttlMs: 2000, logger: createLogger('silent', 'test-cache'), lookup, now: () => clock });
    const none = createApiKeyCache({ databaseUrl: database.url, ttlMs: 0, logger: createLogger('silent', 'test-cache'), lookup });
    cache.start();
    none.start();
    try {
      await waitFor('the cache to listen', async () => cache.caching, 10_000, 20);
      await cache.authenticate(secret);
      clock += 1999;
      await cache.authenticate(secret);
      expect(reads).toBe(1);
      clock += 1;
      await cache.authenticate(secret);
      expect(reads).toBe(2);
      expect(none.caching).toBe(false);
      await none.authenticate(secret);
      await none.authenticate(secret);
      expect(reads).toBe(4);
    } finally {
      await cache.close();
      await none.close();
    }
  });
});
