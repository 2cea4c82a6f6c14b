// The real API app over a test database and the shared Temporal server, plus helpers to make
// organizations and keys. Requests go through `app.inject` (no sockets, same code path).
import type { Config } from '../../config/index.ts';
import { loadConfig } from '../../config/index.ts';
import { buildApp, type App } from '../../api/app.ts';
import { apiKeysRepository, type Scope, scopes } from '../../db/repositories/api-keys.ts';
import { organizationsRepository } from '../../db/repositories/organizations.ts';
import { createLogger } from '../../logging/logger.ts';
import { createOutboxDispatcher, type OutboxDispatcher } from '../../temporal/outbox-dispatcher.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { createTestTemporal, type TestTemporal } from './temporal.ts';

export const testEncryptionKeys = 'test1:' + Buffer.alloc(32, 7).toString('base64');

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    HOSTGATE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HOSTGATE_ENCRYPTION_KEYS: testEncryptionKeys,
    HOSTGATE_SERVICE_DOMAIN: 'hostgate.test',
    HOSTGATE_CNAME_TARGET: 'edge.hostgate.test',
    HOSTGATE_EDGE_IPV4: '127.0.0.1',
    // Tests never query the public internet: unless a test runs its own DNS server, lookups go
    // to a closed loopback port and fail at once (the domain simply stays pending_dns).
    HOSTGATE_DNS_SERVERS: '127.0.0.1:1',
    // Tests of the lifecycle alone run no edge: a certificate activates its domain at once. The
    // edge tests set `required` and run the real agent and HAProxy (test/edge-lifecycle.test.ts).
    HOSTGATE_EDGE_DEPLOYMENT: 'skip',
    // Every injected request comes from 127.0.0.1, and suites send many unknown keys on purpose
    // (fuzzing, error catalogues): a budget they cannot spend. test/auth-failure-limit.test.ts
    // runs the production default (20).
    HOSTGATE_AUTH_FAILURE_BURST: '1000000',
    ...overrides,
  });
}

export interface TestApp {
  app: App;
  config: Config;
  database: TestDatabase;
  temporal: TestTemporal;
  dispatcher: OutboxDispatcher;
  close(): Promise<void>;
}

export async function createTestApp(options: { config?: Record<string, string> } = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const temporal = await createTestTemporal();
  // DATABASE_URL as in production: the API's key cache listens for revocations on it (api/api-key-cache.ts).
  const config = testConfig({ TEMPORAL_TASK_QUEUE: temporal.taskQueue, DATABASE_URL: database.url, ...options.config });
  const logger = createLogger('silent', 'test-api');
  const dispatcher = createOutboxDispatcher({ db: database.db, client: temporal.client, taskQueue: temporal.taskQueue, logger });
  const app = await buildApp({ config, db: database.db, temporal: { client: temporal.client }, dispatcher, logger });
  await app.ready();
  return {
    app, config, database, temporal, dispatcher,
    async close() {
      await app.close();
      await dispatcher.stop();
      await temporal.close();
      await database.drop();
    },
  };
}

export async function createOrgWithKey(t: { database: TestDatabase }, keyScopes: readonly Scope[] = scopes, name = 'Test org') {
  const org = await organizationsRepository(t.database.db).create({ name, allowedReturnOrigins: ['https://vendor.example'] });
  const { secret } = await apiKeysRepository(t.database.db).create({ organizationId: org.id, scopes: keyScopes });
  return { org, key: secret, auth: { authorization: `Bearer ${secret}` } };
}
