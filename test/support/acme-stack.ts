// Everything a domain needs to go from pending_dns to active in a test: a DNS server on loopback
// (customers' zones and ours), Pebble validating through it, our challenge listener on Pebble's
// HTTP port, and a config pointing the service at all three.
import type http from 'node:http';
import type { Config } from '../../config/index.ts';
import type { Db } from '../../db/pool.ts';
import { createChallengeServer } from '../../edge/challenge-server.ts';
import { createLogger } from '../../logging/logger.ts';
import { testConfig } from './app.ts';
import { startTestDnsServer, type TestDnsServer } from './dns-server.ts';
import { startPebble, type Pebble } from './pebble.ts';

export const EDGE = 'edge.hostgate.test';

export interface AcmeStack {
  dns: TestDnsServer;
  pebble: Pebble;
  configOverrides: Record<string, string>;
  config: Config;
  /** Starts (or restarts) the challenge listener over the given database. */
  serveChallenges(db: Db): Promise<void>;
  stopChallenges(): Promise<void>;
  close(): Promise<void>;
}

export async function startAcmeStack(options: { nonceReject?: number; certificateValidityPeriod?: number } = {}): Promise<AcmeStack> {
  const dns = await startTestDnsServer();
  dns.set(EDGE, [{ type: 'A', value: '127.0.0.1' }]);
  const pebble = await startPebble({ dnsServer: dns.server, ...options });
  const configOverrides = {
    HOSTGATE_DNS_SERVERS: dns.server,
    HOSTGATE_CNAME_TARGET: EDGE,
    HOSTGATE_EDGE_IPV4: '127.0.0.1',
    HOSTGATE_ACME_DIRECTORY_URL: pebble.directoryUrl,
    HOSTGATE_ACME_CA_BUNDLE: pebble.caBundlePath,
    HOSTGATE_HTTP_PORT: String(pebble.httpPort),
  };
  let server: http.Server | null = null;
  const stack: AcmeStack = {
    dns, pebble, configOverrides, config: testConfig(configOverrides),
    async serveChallenges(db) {
      await stack.stopChallenges();
      const s = createChallengeServer({ db, logger: createLogger('silent', 'test-challenges') });
      await new Promise<void>((resolve) => s.listen(pebble.httpPort, '127.0.0.1', resolve));
      server = s;
    },
    async stopChallenges() {
      const s = server;
      server = null;
      if (s) await new Promise<void>((resolve) => { s.closeAllConnections?.(); s.close(() => resolve()); });
    },
    async close() {
      await stack.stopChallenges();
      await pebble.stop();
      await dns.close();
    },
  };
  return stack;
}
