// The edge agent's settings, from the service configuration: what the template needs (where it
// binds, which origins are forbidden) and the agent's own intervals and bounds.
import type { Config } from '../../config/index.ts';
import { GLOBAL_UNICAST_IPV6, NON_PUBLIC_GLOBAL_IPV6_CIDRS, NON_PUBLIC_IPV4_CIDRS } from '../../security/outbound-url.ts';
import type { TemplateValues } from './haproxy-files.ts';

export interface AgentSettings extends TemplateValues {
  edgeId: string;
  stateDir: string;
  haproxyBin: string;
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
    databaseUrl: config.db.url,
    bindAddress: e.bindAddress,
    httpsPort: e.httpsPort,
    originCaFile: e.originCaFile,
    resolvers: e.resolvers,
    hstsMaxAge: e.hstsMaxAge,
    threads: e.threads,
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
