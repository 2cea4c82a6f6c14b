// docker-compose.yml stays valid for users although no Docker engine runs here: parsed as YAML
// (anchors and merge keys resolved, as compose does), every reference checked — depends_on,
// volumes, the network — and the multi-instance shape of docs/deploy.md: two APIs and two workers
// (deploy.replicas), two edges with their own id, state volume, host ports and health check.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig } from '../config/index.ts';

interface Service {
  image?: string; build?: string; command?: string[];
  environment?: Record<string, string>;
  ports?: string[]; volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  deploy?: { replicas?: number };
  healthcheck?: { test: string[] };
  networks?: Record<string, unknown>;
}
const compose = parse(readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as {
  services: Record<string, Service>; volumes: Record<string, unknown>; networks?: Record<string, unknown>;
};
const services = compose.services;

describe('docker-compose.yml', () => {
  it('refers only to services, volumes and networks it defines, and every service runs something', () => {
    for (const [name, s] of Object.entries(services)) {
      expect([name, Boolean(s.image || s.build)]).toEqual([name, true]);
      const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
      for (const d of deps) expect([name, d, d in services]).toEqual([name, d, true]);
      for (const v of s.volumes ?? []) {
        const source = v.split(':')[0]!;
        if (!source.startsWith('/') && !source.startsWith('.')) expect([name, source, source in compose.volumes]).toEqual([name, source, true]);
      }
      for (const n of Object.keys(s.networks ?? {})) expect([name, n, n === 'default' || n in (compose.networks ?? {})]).toEqual([name, n, true]);
    }
    // No volume defined and unused (a renamed one left behind).
    const used = new Set(Object.values(services).flatMap((s) => (s.volumes ?? []).map((v) => v.split(':')[0]!)));
    expect(Object.keys(compose.volumes).filter((v) => !used.has(v))).toEqual([]);
  });

  it('runs two APIs and two workers', () => {
    expect(services.api!.deploy?.replicas).toBe(2);
    expect(services.worker!.deploy?.replicas).toBe(2);
    // Replicas cannot share one host port: the API publishes a range as wide as its replicas.
    expect(services.api!.ports).toEqual(['3000-3001:3000']);
  });

  it('runs two edges, each with its own id, state volume, host ports and health check on its health endpoint', () => {
    const edges = ['edge-1', 'edge-2'].map((n) => services[n]!);
    const ids = edges.map((e) => e.environment!.HOSTGATE_EDGE_ID);
    expect(ids).toEqual(['edge-1', 'edge-2']);
    const volumes = edges.map((e) => e.volumes![0]!.split(':')[0]);
    expect(new Set(volumes).size).toBe(2);
    const hostPorts = edges.flatMap((e) => e.ports!.map((p) => p.split(':').slice(0, -1).join(':')));
    expect(new Set(hostPorts).size).toBe(hostPorts.length);
    for (const e of edges) {
      expect(e.command).toEqual(['node', 'edge/agent-main.ts']);
      expect(e.environment!.HOSTGATE_EDGE_HEALTH_PORT).toBe('8490');
      expect(e.healthcheck!.test.join(' ')).toContain('http://127.0.0.1:8490/healthz');
      // The merged environment is the service's whole one (the shared settings reach each edge).
      expect(e.environment!.DATABASE_URL).toBe(services.api!.environment!.DATABASE_URL);
      // Each edge's settings load as the agent loads them.
      const env = Object.fromEntries(Object.entries(e.environment!).filter(([, v]) => typeof v === 'string' && !v.includes('${')));
      const config = loadConfig({ ...env, HOSTGATE_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`, HOSTGATE_BILLING_PROVIDER: 'local' });
      expect(config.edge).toMatchObject({ id: e.environment!.HOSTGATE_EDGE_ID, healthPort: 8490, httpsPort: 8443 });
    }
  });
});
