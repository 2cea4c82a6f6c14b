// The edge agent's settings, from the service configuration: what the template needs (where it
// binds, which origins are forbidden) and the agent's own intervals and bounds.
import os from 'node:os';
import type { Config } from '../../config/index.ts';
import { GLOBAL_UNICAST_IPV6, NON_PUBLIC_GLOBAL_IPV6_CIDRS, NON_PUBLIC_IPV4_CIDRS } from '../../security/outbound-url.ts';
import type { TemplateValues } from './haproxy-files.ts';

export interface AgentSettings extends TemplateValues {
  edgeId: string;
  stateDir: string;
  haproxyBin: string;
  haproxyMalloc: string;
  databaseUrl: string | undefined;
  bandwidthIntervalMs: number;
  analyticsFlushMs: number;
  pollIntervalMs: number;
  reconcileIntervalMs: number;
  heartbeatIntervalMs: number;
  healthMaxLagMs: number;
  originDnsRefreshMs: number;
  socketTimeoutMs: number;
  startTimeoutMs: number;
  /** A fresh start with more hostnames serves this many first, the rest after a reload (0: all at once). */
  bootFirstHosts: number;
}

/**
 * HAProxy's worker threads. Configured > 0: that many. 0 (the default): one thread on an edge of
 * ≤ 2 CPUs, else HAProxy's own default (one per CPU). Measured on 2 cores shared with the agent
 * (docs/analytics.md, "Where HAProxy's share goes"): in HAProxy 2.6 every request-log line takes
 * the log ring's one lock, and with two threads the writers and the ring's forwarder meet on it —
 * the log cost HAProxy 5–6.5 µs a request with 2 threads against 1–1.6 µs with 1; with the log
 * off one thread served as many requests as two (18.8k vs 18.3–19.5k req/s) and as many new TLS
 * connections. Larger edges were not measured here; they keep one thread per CPU.
 */
export function haproxyThreads(configured: number, cpus: number): number {
  if (configured > 0) return configured;
  return cpus <= 2 ? 1 : 0;
}

export function agentSettings(config: Config): AgentSettings {
  const e = config.edge;
  return {
    edgeId: e.id,
    forbiddenOrigins: config.allowPrivateTargets ? null : {
      ipv4: [...NON_PUBLIC_IPV4_CIDRS, ...config.edgeIpv4.map((ip) => `${ip}/32`)],
      ipv6Allowed: GLOBAL_UNICAST_IPV6,
      ipv6: [...NON_PUBLIC_GLOBAL_IPV6_CIDRS, ...config.edgeIpv6.map((ip) => `${ip}/128`)],
    },
    stateDir: e.stateDir,
    haproxyBin: e.haproxyBin,
    haproxyMalloc: e.haproxyMalloc,
    databaseUrl: config.db.url,
    bindAddress: e.bindAddress,
    httpsPort: e.httpsPort,
    originCaFile: e.originCaFile,
    resolvers: e.resolvers,
    hstsMaxAge: e.hstsMaxAge,
    threads: haproxyThreads(e.threads, os.availableParallelism()),
    bandwidthIntervalMs: e.bandwidthIntervalMs,
    trafficLogPort: e.trafficLogPort,
    analyticsFlushMs: e.analyticsFlushMs,
    pollIntervalMs: e.pollIntervalMs,
    reconcileIntervalMs: e.reconcileIntervalMs,
    heartbeatIntervalMs: e.heartbeatIntervalMs,
    healthMaxLagMs: e.healthMaxLagMs,
    originDnsRefreshMs: e.originDnsRefreshMs,
    socketTimeoutMs: e.socketTimeoutMs,
    startTimeoutMs: e.startTimeoutMs,
    bootFirstHosts: e.bootFirstHosts,
  };
}
