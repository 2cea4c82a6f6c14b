// The CA transport bounds a whole exchange, not only silences: a CA that answers a byte at a time
// (never idle long enough for an idle timeout) still fails the attempt at the deadline, retryably.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAcmeRequest } from '../acme/transport.ts';

describe('ACME transport deadline', () => {
  let server: http.Server;
  let base: string;
  const agent = new http.Agent({ keepAlive: false });
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/drip') {
        // One byte every 100 ms for 5 s: never 300 ms without a byte.
        let sent = 0;
        const timer = setInterval(() => {
          if (++sent >= 50 || res.destroyed) { clearInterval(timer); res.end(' '); return; }
          res.write(' ');
        }, 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const request = createAcmeRequest({
    agentFor: () => agent,
    timeoutMs: 600,
    userAgent: 'test',
    problemError: () => null,
    connectionError: (code) => Object.assign(new Error(`could not reach the ACME server (${code})`), { code }),
  });

  it('answers within the deadline as usual', async () => {
    expect((await request(`${base}/ok`, 'GET')).data).toEqual({ ok: true });
  });

  it('a dripping answer fails with ETIMEDOUT at the deadline, not when the CA finishes', async () => {
    const started = Date.now();
    await expect(request(`${base}/drip`, 'GET')).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(550);
    // The server would have taken 5 s.
    expect(took).toBeLessThan(3_000);
  });
});
