import { isIP } from 'node:net';
import path from 'node:path';
import { allCaaIdentities, parseAcmeDirectories, parseBudget, type AcmeDirectory } from './acme-directories.ts';
import { ConfigError, readEnv, type RawConfig } from './env.ts';

export { ConfigError } from './env.ts';

export interface EncryptionKey { id: string; key: Buffer }

/**
 * The typed configuration, grouped by the process or area that reads it. Every variable of
 * config/env.ts lands in exactly one place here; nothing outside config/ reads the environment.
 */
export interface Config {
  // --- Every process ---
  env: RawConfig['HOSTGATE_ENV'];
  logLevel: RawConfig['LOG_LEVEL'];
  dataDir: string;
  encryptionKeys: EncryptionKey[];
  /** Loopback/private destination and webhook targets allowed (tests and local stacks only). */
  allowPrivateTargets: boolean;
  /**
   * Postgres. The four timeouts bound the processes that answer requests, the API and the edge's
   * HTTP listener (requestDbLimits below; docs/api-decisions.md, "Bounded waits").
   */
  db: { url: string | undefined; poolSize: number; statementTimeoutMs: number; connectTimeoutMs: number; acquireTimeoutMs: number; idleInTransactionTimeoutMs: number };
  temporal: { address: string | undefined; namespace: string; taskQueue: string | undefined; cliPath: string | undefined };

  // --- Public names every process agrees on ---
  publicUrl: string;
  /** Origin serving the widget script (`{cdn_url}` of the spec); the API itself by default. */
  cdnUrl: string;
  /** The API origin the widget script calls by default: '' when it is served by the API itself. */
  widgetApiOrigin: string;
  serviceDomain: string;
  cnameTarget: string;
  edgeIpv4: string[];
  edgeIpv6: string[];

  // --- API process (api/server.ts) ---
  api: {
    /** HOSTGATE_HOST, which the edge's HTTP listener shares (edge.httpHost). */
    host: string;
    port: number;
    /** Milliseconds a client has to send a whole request (slower senders get 408). */
    requestTimeoutMs: number;
    /** Requests per API key (api/plugins/api-key-auth.ts). */
    rateLimit: { perSecond: number; burst: number };
    /** Proxies whose X-Forwarded-For is believed (Fastify `trustProxy`); empty: request.ip is the socket peer. */
    trustedProxies: string[];
    /** Failed authentications per client address (api/auth-failure-limit.ts). */
    authFailureLimit: { perSecond: number; burst: number };
    /** How long an authenticated key is kept in memory; 0: no cache (api/api-key-cache.ts). */
    keyCacheTtlMs: number;
  };

  // --- Worker process (worker/main.ts) ---
  /** Concurrency of one worker process (Temporal worker slots) and the workflow bundle it loads. */
  worker: {
    workflowTaskSlots: number; activitySlots: number; localActivitySlots: number;
    /** Threads running the main task queue's workflow code (worker/create-worker.ts). */
    workflowThreads: number;
    /** Slots of the DNS task queue's worker (worker/create-worker.ts). */
    dnsActivitySlots: number;
    /** Slots of the webhook task queue's worker (worker/create-worker.ts): delivery workflows only. */
    webhooks: { workflowTaskSlots: number; localActivitySlots: number; activitySlots: number };
    maxCachedWorkflows: number | undefined; bundlePath: string | undefined;
    /** The worker process's memory budget (MiB): the workflow cache is sized from it. */
    memoryMb: number;
    /** The quiet-time GC of each worker thread (worker/idle-gc.ts): period, 0 = never; heap growth that makes it worth it; the RSS (90 % of the memory budget) above which it collects at once. */
    idleGc: { periodMs: number; growthMb: number; highWaterMb: number };
    /** Checks the DNS checker (worker/dns-checker.ts) runs at once. */
    dnsCheckerConcurrency: number;
    /** Whether workflow threads record promise stacks for the `__stack_trace` query (worker/sdk-switches.ts). */
    workflowStackTraces: boolean;
  };
  /** `required`: a domain is active only once an edge serves its certificate; `skip`: on issuance. */
  edgeDeployment: 'required' | 'skip';
  /** Seconds after which an issued certificate no edge serves is shown as a problem. */
  edgeDeployOverdueSeconds: number;
  /** Resolvers used for verification (activities/dns-check.ts); empty: the system's. */
  dns: { servers: string[] };
  /** Bounds on DNS lookups (activities/dns-check.ts). */
  dnsLimits: { queryTimeoutMs: number; tries: number; localBudgetMs: number; localConcurrency: number; backgroundBudgetMs: number };
  /**
   * `directories`: the CAs in the order tried (config/acme-directories.ts). `directoryUrl`,
   * `caBundlePath`: the first's (cli doctor). `caaIdentities`: every CA's, since a CAA record
   * naming any of them lets us issue (the order then goes to a CA it names).
   */
  acme: { directoryUrl: string; caBundlePath: string | undefined; email: string | undefined; caaIdentities: string[]; directories: AcmeDirectory[] };
  /** Zero-downtime moves (docs/zero-downtime-moves.md): off when no challenge zone is set. */
  moves: {
    challengeZone: string | undefined;
    challengeDnsServer: string;
    limits: { pendingValidations: number; ordersPer3h: number; certsPerDomainWeek: number; failedValidationsPerHour: number };
  };
  /** Issuance that cannot run away (model/certificate-lifetime.ts). */
  /** `customCaFile`: extra trust anchors for customers' own certificates (docs/custom-certificates.md). */
  certificates: { ordersPerHour: number; minLifetimeSeconds: number; customCaFile: string | undefined };
  webhooks: {
    timeoutMs: number;
    /** First attempts the worker makes at once ahead of the workflows; 0: none (worker/webhook-first-attempts.ts). */
    directAttempts: number;
  };
  /** Payment provider: Stripe when a secret key is set, else the built-in local one. */
  billing: {
    graceHours: number;
    stripe: { secretKey: string; webhookSecret: string | undefined; prices: Record<'starter' | 'growth' | 'scale', string | undefined>; apiBase: string | undefined } | null;
  };
  /** How long rows are kept (workflows/maintenance/workflows.ts). */
  retention: { outboxDays: number; eventsDays: number; widgetSessionsDays: number; batch: number };

  // --- Edge processes (docs/edge.md) ---
  edge: {
    /** HTTP listener (edge/main.ts): ACME HTTP-01 answers and the redirect to HTTPS; HOSTGATE_HOST, as the API's. */
    httpHost: string;
    httpPort: number;
    /** HTTPS agent and its HAProxy (edge/agent-main.ts, edge/agent/agent.ts). */
    id: string;
    httpsPort: number;
    bindAddress: string;
    /** HAProxy's generated files; <dataDir>/edge unless set. */
    stateDir: string;
    haproxyBin: string;
    /** LD_PRELOAD for HAProxy: 'auto' (jemalloc if installed), 'system', or a library path. */
    haproxyMalloc: string;
    originCaFile: string;
    /** ip:port DNS servers HAProxy resolves origins with; empty: /etc/resolv.conf. */
    resolvers: string[];
    originDnsRefreshMs: number;
    hstsMaxAge: number;
    threads: number;
    bandwidthIntervalMs: number;
    /** Request log → traffic analytics (docs/analytics.md): the agent's loopback TCP port HAProxy's log ring forwards to (-1: a free one, remembered; 0: off) and flush period. */
    trafficLogPort: number;
    analyticsFlushMs: number;
    pollIntervalMs: number;
    reconcileIntervalMs: number;
    heartbeatIntervalMs: number;
    /** Health endpoint (edge/agent/health.ts): its port (0: off) and the lag under which the agent is in sync. */
    healthPort: number;
    healthMaxLagMs: number;
    socketTimeoutMs: number;
    startTimeoutMs: number;
    /** A fresh start with more hostnames serves this many first (0: all at once). */
    bootFirstHosts: number;
  };

  // --- Observability ---
  /** Prometheus endpoints (metrics/); a port of 0 is off. */
  metrics: { host: string; apiPort: number; workerPort: number; workerSdkPort: number; edgePort: number };

  // --- Local stack (`npm start`, local-stack/start.ts) ---
  localStack: {
    /** Ports of the embedded Postgres and the Temporal dev server it starts when DATABASE_URL / TEMPORAL_ADDRESS are unset. */
    postgresPort: number;
    temporalPort: number;
    temporalUiPort: number;
    /** Loopback port of the PowerDNS it runs for the local challenge zone (moves on by default locally). */
    pdnsPort: number;
    /** The metrics ports it gives its children: each variable when set (0: off), else LOCAL_METRICS_PORTS. */
    metricsPorts: { api: number; worker: number; workerSdk: number; edge: number };
    /** The first edge's health endpoint: HOSTGATE_EDGE_HEALTH_PORT when set (0: off), else LOCAL_EDGE_HEALTH_PORT; edge i gets it + i − 1. */
    edgeHealthPort: number;
  };
}

/** Where `npm start` serves the edge's health endpoint unless told otherwise (docs/edge.md, "Several edges"). */
export const LOCAL_EDGE_HEALTH_PORT = 8490;

/**
 * The share of HOSTGATE_WORKER_MEMORY_MB above which a worker thread collects at once, mid-burst
 * too (worker/idle-gc.ts): room for the collection to take effect before the budget is reached.
 */
export const IDLE_GC_HIGH_WATER_SHARE = 0.9;

/** Where `npm start` serves each process's metrics unless told otherwise (docs/operations.md, "Metrics"). */
export const LOCAL_METRICS_PORTS = { api: 9464, worker: 9465, workerSdk: 9466, edge: 9467 } as const;

function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

export function parseEncryptionKeys(value: string | undefined): EncryptionKey[] {
  if (!value) return [];
  return list(value).map((entry) => {
    const [id, b64] = entry.split(':') as [string, string];
    const key = Buffer.from(b64, 'base64');
    if (key.length !== 32) throw new ConfigError([`HOSTGATE_ENCRYPTION_KEYS: key "${id}" is ${key.length} bytes; expected 32 bytes, base64-encoded`]);
    return { id, key };
  });
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** HOSTGATE_TRUSTED_PROXIES entries as Fastify's trustProxy (proxy-addr) takes them: IP, IP/prefix or a named range. */
export function parseTrustedProxies(value: string): { proxies: string[]; problems: string[] } {
  const proxies = list(value);
  const problems: string[] = [];
  for (const entry of proxies) {
    if (PROXY_NAMES.has(entry)) continue;
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (!family || !prefixOk || extra !== undefined) {
      problems.push(`HOSTGATE_TRUSTED_PROXIES: ${JSON.stringify(entry)} is not valid: expected an IP address, a CIDR such as 10.0.0.0/8 or fd00::/8, or one of loopback, linklocal, uniquelocal`);
    }
  }
  return { proxies, problems };
}

/**
 * The CAs to order from: HOSTGATE_ACME_DIRECTORIES, else the single-directory variables as a
 * one-element list (named `default`). Problems go to `problems`; a placeholder keeps the type.
 */
function acmeDirectories(raw: RawConfig, problems: string[]): AcmeDirectory[] {
  if (raw.HOSTGATE_ACME_DIRECTORIES !== undefined) {
    const parsed = parseAcmeDirectories(raw.HOSTGATE_ACME_DIRECTORIES, raw.HOSTGATE_ACME_BUDGET);
    if ('directories' in parsed) return parsed.directories;
    problems.push(...parsed.problems);
  }
  const budget = parseBudget(raw.HOSTGATE_ACME_BUDGET);
  if (typeof budget === 'string') problems.push(`HOSTGATE_ACME_BUDGET: ${budget}`);
  return [{
    name: 'default', directoryUrl: raw.HOSTGATE_ACME_DIRECTORY_URL, caBundlePath: raw.HOSTGATE_ACME_CA_BUNDLE,
    caaIdentities: list(raw.HOSTGATE_ACME_CAA_IDENTITIES), eab: undefined,
    budget: typeof budget === 'string' ? { orders: 250, windowMs: 3 * 3_600_000 } : budget,
  }];
}

/**
 * Validated configuration. `require` names what this process cannot run without, so the message
 * says which variable is missing instead of a connection error later.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, require: ('database' | 'temporal' | 'encryption')[] = []): Config {
  const raw = readEnv(env);
  const problems: string[] = [];
  if (require.includes('database') && !raw.DATABASE_URL) problems.push('DATABASE_URL is required for this process: expected a postgres:// URL (or run `npm start`, which starts an embedded Postgres)');
  if (require.includes('temporal') && !raw.TEMPORAL_ADDRESS) problems.push('TEMPORAL_ADDRESS is required for this process: expected host:port (or run `npm start`, which starts the Temporal dev server)');
  const encryptionKeys = parseEncryptionKeys(raw.HOSTGATE_ENCRYPTION_KEYS);
  if (require.includes('encryption') && encryptionKeys.length === 0) problems.push('HOSTGATE_ENCRYPTION_KEYS is required for this process: expected kid:base64(32 bytes), e.g. k1:$(openssl rand -base64 32)');
  if (raw.STRIPE_SECRET_KEY) {
    // With Stripe, every plan needs its price and the webhook its secret (docs/billing.md).
    for (const name of ['STRIPE_WEBHOOK_SECRET', 'STRIPE_PRICE_STARTER', 'STRIPE_PRICE_GROWTH', 'STRIPE_PRICE_SCALE'] as const) {
      if (!raw[name]) problems.push(`${name} is required when STRIPE_SECRET_KEY is set (see docs/billing.md)`);
    }
  }
  if (raw.HOSTGATE_BILLING_PROVIDER === 'stripe' && !raw.STRIPE_SECRET_KEY) problems.push('HOSTGATE_BILLING_PROVIDER=stripe needs STRIPE_SECRET_KEY (see docs/billing.md)');
  if (raw.HOSTGATE_BILLING_PROVIDER === 'local' && raw.STRIPE_SECRET_KEY) problems.push('HOSTGATE_BILLING_PROVIDER=local and STRIPE_SECRET_KEY are both set: unset one (see docs/billing.md)');
  if (raw.HOSTGATE_ENV === 'production' && !raw.STRIPE_SECRET_KEY && raw.HOSTGATE_BILLING_PROVIDER !== 'local') {
    // The local provider's checkout page activates a plan with no payment: anyone holding a key
    // with billing:write could take any plan for free. In production that must be a choice.
    problems.push('HOSTGATE_ENV=production needs a billing provider: set STRIPE_SECRET_KEY and its prices (see docs/billing.md), or HOSTGATE_BILLING_PROVIDER=local to run the built-in provider on purpose (its checkout page takes no payment: for billing handled outside Hostgate, or a trial)');
  }
  const trusted = parseTrustedProxies(raw.HOSTGATE_TRUSTED_PROXIES);
  const directories = acmeDirectories(raw, problems);
  problems.push(...trusted.problems);
  if (problems.length) throw new ConfigError(problems);
  const serviceDomain = raw.HOSTGATE_SERVICE_DOMAIN;
  const publicUrl = raw.HOSTGATE_PUBLIC_URL ?? `http://localhost:${raw.HOSTGATE_API_PORT}`;
  const cdnUrl = raw.HOSTGATE_CDN_URL ?? publicUrl;
  return {
    env: raw.HOSTGATE_ENV,
    logLevel: raw.LOG_LEVEL,
    dataDir: raw.HOSTGATE_DATA_DIR,
    encryptionKeys,
    allowPrivateTargets: raw.HOSTGATE_ALLOW_PRIVATE_TARGETS,
    db: {
      url: raw.DATABASE_URL, poolSize: raw.DATABASE_POOL_SIZE,
      statementTimeoutMs: raw.HOSTGATE_DB_STATEMENT_TIMEOUT_MS, connectTimeoutMs: raw.HOSTGATE_DB_CONNECT_TIMEOUT_MS,
      acquireTimeoutMs: raw.HOSTGATE_DB_ACQUIRE_TIMEOUT_MS, idleInTransactionTimeoutMs: raw.HOSTGATE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    temporal: { address: raw.TEMPORAL_ADDRESS, namespace: raw.TEMPORAL_NAMESPACE, taskQueue: raw.TEMPORAL_TASK_QUEUE, cliPath: raw.TEMPORAL_CLI_PATH },

    publicUrl,
    cdnUrl,
    widgetApiOrigin: raw.HOSTGATE_WIDGET_API_ORIGIN ?? (cdnUrl !== publicUrl ? publicUrl : ''),
    serviceDomain,
    cnameTarget: raw.HOSTGATE_CNAME_TARGET ?? `edge.${serviceDomain}`,
    edgeIpv4: list(raw.HOSTGATE_EDGE_IPV4),
    edgeIpv6: list(raw.HOSTGATE_EDGE_IPV6),

    api: {
      host: raw.HOSTGATE_HOST,
      port: raw.HOSTGATE_API_PORT,
      requestTimeoutMs: raw.HOSTGATE_REQUEST_TIMEOUT_MS,
      rateLimit: { perSecond: raw.HOSTGATE_RATE_LIMIT_PER_SECOND, burst: raw.HOSTGATE_RATE_LIMIT_BURST },
      trustedProxies: trusted.proxies,
      authFailureLimit: { perSecond: raw.HOSTGATE_AUTH_FAILURE_PER_SECOND, burst: raw.HOSTGATE_AUTH_FAILURE_BURST },
      keyCacheTtlMs: raw.HOSTGATE_API_KEY_CACHE_TTL_MS,
    },

    worker: {
      workflowTaskSlots: raw.HOSTGATE_WORKER_WORKFLOW_TASK_SLOTS, activitySlots: raw.HOSTGATE_WORKER_ACTIVITY_SLOTS, localActivitySlots: raw.HOSTGATE_WORKER_LOCAL_ACTIVITY_SLOTS,
      workflowThreads: raw.HOSTGATE_WORKER_WORKFLOW_THREADS,
      dnsActivitySlots: raw.HOSTGATE_WORKER_DNS_ACTIVITY_SLOTS,
      webhooks: { workflowTaskSlots: raw.HOSTGATE_WORKER_WEBHOOK_WORKFLOW_TASK_SLOTS, localActivitySlots: raw.HOSTGATE_WORKER_WEBHOOK_LOCAL_ACTIVITY_SLOTS, activitySlots: raw.HOSTGATE_WORKER_WEBHOOK_ACTIVITY_SLOTS },
      maxCachedWorkflows: raw.HOSTGATE_WORKER_MAX_CACHED_WORKFLOWS, bundlePath: raw.HOSTGATE_WORKFLOW_BUNDLE,
      memoryMb: raw.HOSTGATE_WORKER_MEMORY_MB, idleGc: { periodMs: raw.HOSTGATE_WORKER_IDLE_GC_MS, growthMb: raw.HOSTGATE_WORKER_IDLE_GC_GROWTH_MB, highWaterMb: Math.floor(raw.HOSTGATE_WORKER_MEMORY_MB * IDLE_GC_HIGH_WATER_SHARE) }, dnsCheckerConcurrency: raw.HOSTGATE_DNS_CHECKER_CONCURRENCY,
      workflowStackTraces: raw.HOSTGATE_WORKER_WORKFLOW_STACK_TRACES === 'on',
    },
    edgeDeployment: raw.HOSTGATE_EDGE_DEPLOYMENT,
    edgeDeployOverdueSeconds: raw.HOSTGATE_EDGE_DEPLOY_OVERDUE_SECONDS,
    dns: { servers: list(raw.HOSTGATE_DNS_SERVERS) },
    dnsLimits: { queryTimeoutMs: raw.HOSTGATE_DNS_QUERY_TIMEOUT_MS, tries: raw.HOSTGATE_DNS_TRIES, localBudgetMs: raw.HOSTGATE_DNS_LOCAL_BUDGET_MS, localConcurrency: raw.HOSTGATE_DNS_LOCAL_CONCURRENCY, backgroundBudgetMs: raw.HOSTGATE_DNS_BACKGROUND_BUDGET_MS },
    acme: { directoryUrl: directories[0]!.directoryUrl, caBundlePath: directories[0]!.caBundlePath, email: raw.HOSTGATE_ACME_EMAIL, caaIdentities: allCaaIdentities(directories), directories },
    moves: {
      challengeZone: raw.HOSTGATE_CHALLENGE_ZONE,
      challengeDnsServer: raw.HOSTGATE_CHALLENGE_DNS_SERVER,
      limits: { pendingValidations: raw.HOSTGATE_LIMIT_PENDING_VALIDATIONS, ordersPer3h: raw.HOSTGATE_LIMIT_ORDERS_PER_3H, certsPerDomainWeek: raw.HOSTGATE_LIMIT_CERTS_PER_DOMAIN_WEEK, failedValidationsPerHour: raw.HOSTGATE_LIMIT_FAILED_VALIDATIONS_PER_HOUR },
    },
    certificates: { ordersPerHour: raw.HOSTGATE_CERT_ORDERS_PER_HOUR, minLifetimeSeconds: raw.HOSTGATE_CERT_MIN_LIFETIME_SECONDS, customCaFile: raw.HOSTGATE_CUSTOM_CERT_CA_FILE },
    webhooks: { timeoutMs: raw.HOSTGATE_WEBHOOK_TIMEOUT_MS, directAttempts: raw.HOSTGATE_WEBHOOK_DIRECT_ATTEMPTS },
    billing: {
      graceHours: raw.HOSTGATE_BILLING_GRACE_HOURS,
      stripe: raw.STRIPE_SECRET_KEY ? {
        secretKey: raw.STRIPE_SECRET_KEY, webhookSecret: raw.STRIPE_WEBHOOK_SECRET, apiBase: raw.STRIPE_API_BASE,
        prices: { starter: raw.STRIPE_PRICE_STARTER, growth: raw.STRIPE_PRICE_GROWTH, scale: raw.STRIPE_PRICE_SCALE },
      } : null,
    },
    retention: { outboxDays: raw.HOSTGATE_RETENTION_OUTBOX_DAYS, eventsDays: raw.HOSTGATE_RETENTION_EVENTS_DAYS, widgetSessionsDays: raw.HOSTGATE_RETENTION_WIDGET_SESSIONS_DAYS, batch: raw.HOSTGATE_RETENTION_BATCH },

    edge: {
      httpHost: raw.HOSTGATE_HOST,
      httpPort: raw.HOSTGATE_HTTP_PORT,
      id: raw.HOSTGATE_EDGE_ID,
      httpsPort: raw.HOSTGATE_EDGE_HTTPS_PORT,
      bindAddress: raw.HOSTGATE_EDGE_BIND_ADDRESS,
      stateDir: raw.HOSTGATE_EDGE_STATE_DIR ?? path.join(raw.HOSTGATE_DATA_DIR, 'edge'),
      haproxyBin: raw.HOSTGATE_EDGE_HAPROXY_BIN,
      haproxyMalloc: raw.HOSTGATE_EDGE_HAPROXY_MALLOC,
      originCaFile: raw.HOSTGATE_EDGE_ORIGIN_CA_FILE,
      resolvers: list(raw.HOSTGATE_EDGE_RESOLVERS),
      originDnsRefreshMs: raw.HOSTGATE_EDGE_ORIGIN_DNS_REFRESH_MS,
      hstsMaxAge: raw.HOSTGATE_EDGE_HSTS_MAX_AGE,
      threads: raw.HOSTGATE_EDGE_THREADS,
      bandwidthIntervalMs: raw.HOSTGATE_EDGE_BANDWIDTH_INTERVAL_MS,
      trafficLogPort: raw.HOSTGATE_EDGE_TRAFFIC_LOG === 'off' ? 0 : (raw.HOSTGATE_EDGE_TRAFFIC_LOG_PORT ?? -1),
      analyticsFlushMs: raw.HOSTGATE_EDGE_ANALYTICS_FLUSH_MS,
      pollIntervalMs: raw.HOSTGATE_EDGE_POLL_INTERVAL_MS,
      reconcileIntervalMs: raw.HOSTGATE_EDGE_RECONCILE_INTERVAL_MS,
      heartbeatIntervalMs: raw.HOSTGATE_EDGE_HEARTBEAT_INTERVAL_MS,
      healthPort: raw.HOSTGATE_EDGE_HEALTH_PORT ?? 0,
      healthMaxLagMs: raw.HOSTGATE_EDGE_HEALTH_MAX_LAG_MS,
      socketTimeoutMs: raw.HOSTGATE_EDGE_SOCKET_TIMEOUT_MS,
      startTimeoutMs: raw.HOSTGATE_EDGE_START_TIMEOUT_MS,
      bootFirstHosts: raw.HOSTGATE_EDGE_BOOT_FIRST_HOSTS,
    },

    metrics: { host: raw.HOSTGATE_METRICS_HOST, apiPort: raw.HOSTGATE_API_METRICS_PORT ?? 0, workerPort: raw.HOSTGATE_WORKER_METRICS_PORT ?? 0, workerSdkPort: raw.HOSTGATE_WORKER_SDK_METRICS_PORT ?? 0, edgePort: raw.HOSTGATE_EDGE_METRICS_PORT ?? 0 },

    localStack: {
      postgresPort: raw.HOSTGATE_POSTGRES_PORT,
      temporalPort: raw.HOSTGATE_TEMPORAL_PORT,
      temporalUiPort: raw.HOSTGATE_TEMPORAL_UI_PORT,
      pdnsPort: raw.HOSTGATE_PDNS_PORT,
      metricsPorts: {
        api: raw.HOSTGATE_API_METRICS_PORT ?? LOCAL_METRICS_PORTS.api,
        worker: raw.HOSTGATE_WORKER_METRICS_PORT ?? LOCAL_METRICS_PORTS.worker,
        workerSdk: raw.HOSTGATE_WORKER_SDK_METRICS_PORT ?? LOCAL_METRICS_PORTS.workerSdk,
        edge: raw.HOSTGATE_EDGE_METRICS_PORT ?? LOCAL_METRICS_PORTS.edge,
      },
      edgeHealthPort: raw.HOSTGATE_EDGE_HEALTH_PORT ?? LOCAL_EDGE_HEALTH_PORT,
    },
  };
}

/**
 * The Postgres bounds of a process that answers requests (the API, the edge's HTTP listener):
 * every call gives up within them, and the answer is a 503 (docs/api-decisions.md, "Bounded waits").
 */
export function requestDbLimits(config: Config) {
  return {
    maximumPoolSize: config.db.poolSize,
    statementTimeoutMs: config.db.statementTimeoutMs,
    connectTimeoutMs: config.db.connectTimeoutMs,
    acquireTimeoutMs: config.db.acquireTimeoutMs,
    idleInTransactionTimeoutMs: config.db.idleInTransactionTimeoutMs,
  };
}
