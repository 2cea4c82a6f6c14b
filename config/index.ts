import { isIP } from 'node:net';
import { ConfigError, readEnv, type RawConfig } from './env.ts';

export { ConfigError } from './env.ts';

export interface EncryptionKey { id: string; key: Buffer }

export interface Config {
  env: RawConfig['HOSTGATE_ENV'];
  raw: RawConfig;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  temporal: { address: string | undefined; namespace: string; taskQueue: string | undefined; cliPath: string | undefined };
  dataDir: string;
  host: string;
  apiPort: number;
  publicUrl: string;
  /** Origin serving the widget script (`{cdn_url}` of the spec); the API itself by default. */
  cdnUrl: string;
  /** The API origin the widget script calls by default: '' when it is served by the API itself. */
  widgetApiOrigin: string;
  serviceDomain: string;
  cnameTarget: string;
  edgeIpv4: string[];
  edgeIpv6: string[];
  encryptionKeys: EncryptionKey[];
  rateLimit: { perSecond: number; burst: number };
  /** Proxies whose X-Forwarded-For is believed (Fastify `trustProxy`); empty: request.ip is the socket peer. */
  trustedProxies: string[];
  /** Failed authentications per client address (api/auth-failure-limit.ts). */
  authFailureLimit: { perSecond: number; burst: number };
  allowPrivateTargets: boolean;
  webhooks: { timeoutMs: number };
  /** Concurrency of one worker process (Temporal worker slots). */
  worker: { workflowTaskSlots: number; activitySlots: number; localActivitySlots: number; maxCachedWorkflows: number | undefined; bundlePath: string | undefined };
  httpPort: number;
  dns: { servers: string[] };
  acme: { directoryUrl: string; caBundlePath: string | undefined; email: string | undefined; caaIdentities: string[] };
  /** `required`: a domain is active only once an edge serves its certificate; `skip`: on issuance. */
  edgeDeployment: 'required' | 'skip';
  /** Zero-downtime moves (docs/zero-downtime-moves.md): off when no challenge zone is set. */
  moves: {
    challengeZone: string | undefined;
    challengeDnsServer: string;
    limits: { pendingValidations: number; ordersPer3h: number; certsPerDomainWeek: number; failedValidationsPerHour: number };
  };
  /** Seconds after which an issued certificate no edge serves is shown as a problem. */
  edgeDeployOverdueSeconds: number;
  logLevel: RawConfig['LOG_LEVEL'];
  /** Client-side bounds on the API's Postgres calls and on receiving a request (docs/api-decisions.md, "Bounded waits"). */
  limits: { dbStatementTimeoutMs: number; dbConnectTimeoutMs: number; dbAcquireTimeoutMs: number; dbIdleInTransactionTimeoutMs: number; requestTimeoutMs: number };
  /** Payment provider: Stripe when a secret key is set, else the built-in local one. */
  billing: {
    graceHours: number;
    stripe: { secretKey: string; webhookSecret: string | undefined; prices: Record<'starter' | 'growth' | 'scale', string | undefined>; apiBase: string | undefined } | null;
  };
  // Issue 14 (reliability).
  /** Bounds on DNS lookups (activities/dns-check.ts). */
  dnsLimits: { queryTimeoutMs: number; tries: number; localBudgetMs: number; localConcurrency: number; backgroundBudgetMs: number };
  /** Slots of the DNS task queue's worker (worker/dns-worker.ts). */
  dnsActivitySlots: number;
  /** How long rows are kept (workflows/maintenance/). */
  retention: { outboxDays: number; eventsDays: number; widgetSessionsDays: number; batch: number };
  /** Prometheus endpoints (metrics/); a port of 0 is off. */
  metrics: { host: string; apiPort: number; workerPort: number; workerSdkPort: number; edgePort: number };
}

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
  problems.push(...trusted.problems);
  if (problems.length) throw new ConfigError(problems);
  const serviceDomain = raw.HOSTGATE_SERVICE_DOMAIN;
  const publicUrl = raw.HOSTGATE_PUBLIC_URL ?? `http://localhost:${raw.HOSTGATE_API_PORT}`;
  const cdnUrl = raw.HOSTGATE_CDN_URL ?? publicUrl;
  return {
    env: raw.HOSTGATE_ENV,
    raw,
    databaseUrl: raw.DATABASE_URL,
    databasePoolSize: raw.DATABASE_POOL_SIZE,
    temporal: { address: raw.TEMPORAL_ADDRESS, namespace: raw.TEMPORAL_NAMESPACE, taskQueue: raw.TEMPORAL_TASK_QUEUE, cliPath: raw.TEMPORAL_CLI_PATH },
    dataDir: raw.HOSTGATE_DATA_DIR,
    host: raw.HOSTGATE_HOST,
    apiPort: raw.HOSTGATE_API_PORT,
    publicUrl,
    cdnUrl,
    widgetApiOrigin: raw.HOSTGATE_WIDGET_API_ORIGIN ?? (cdnUrl !== publicUrl ? publicUrl : ''),
    serviceDomain,
    cnameTarget: raw.HOSTGATE_CNAME_TARGET ?? `edge.${serviceDomain}`,
    edgeIpv4: list(raw.HOSTGATE_EDGE_IPV4),
    edgeIpv6: list(raw.HOSTGATE_EDGE_IPV6),
    encryptionKeys,
    rateLimit: { perSecond: raw.HOSTGATE_RATE_LIMIT_PER_SECOND, burst: raw.HOSTGATE_RATE_LIMIT_BURST },
    trustedProxies: trusted.proxies,
    authFailureLimit: { perSecond: raw.HOSTGATE_AUTH_FAILURE_PER_SECOND, burst: raw.HOSTGATE_AUTH_FAILURE_BURST },
    allowPrivateTargets: raw.HOSTGATE_ALLOW_PRIVATE_TARGETS,
    webhooks: { timeoutMs: raw.HOSTGATE_WEBHOOK_TIMEOUT_MS },
    worker: { workflowTaskSlots: raw.HOSTGATE_WORKER_WORKFLOW_TASK_SLOTS, activitySlots: raw.HOSTGATE_WORKER_ACTIVITY_SLOTS, localActivitySlots: raw.HOSTGATE_WORKER_LOCAL_ACTIVITY_SLOTS, maxCachedWorkflows: raw.HOSTGATE_WORKER_MAX_CACHED_WORKFLOWS, bundlePath: raw.HOSTGATE_WORKFLOW_BUNDLE },
    httpPort: raw.HOSTGATE_HTTP_PORT,
    dns: { servers: list(raw.HOSTGATE_DNS_SERVERS) },
    edgeDeployment: raw.HOSTGATE_EDGE_DEPLOYMENT,
    moves: {
      challengeZone: raw.HOSTGATE_CHALLENGE_ZONE,
      challengeDnsServer: raw.HOSTGATE_CHALLENGE_DNS_SERVER,
      limits: { pendingValidations: raw.HOSTGATE_LIMIT_PENDING_VALIDATIONS, ordersPer3h: raw.HOSTGATE_LIMIT_ORDERS_PER_3H, certsPerDomainWeek: raw.HOSTGATE_LIMIT_CERTS_PER_DOMAIN_WEEK, failedValidationsPerHour: raw.HOSTGATE_LIMIT_FAILED_VALIDATIONS_PER_HOUR },
    },
    edgeDeployOverdueSeconds: raw.HOSTGATE_EDGE_DEPLOY_OVERDUE_SECONDS,
    acme: { directoryUrl: raw.HOSTGATE_ACME_DIRECTORY_URL, caBundlePath: raw.HOSTGATE_ACME_CA_BUNDLE, email: raw.HOSTGATE_ACME_EMAIL, caaIdentities: list(raw.HOSTGATE_ACME_CAA_IDENTITIES) },
    logLevel: raw.LOG_LEVEL,
    limits: { dbStatementTimeoutMs: raw.HOSTGATE_DB_STATEMENT_TIMEOUT_MS, dbConnectTimeoutMs: raw.HOSTGATE_DB_CONNECT_TIMEOUT_MS, dbAcquireTimeoutMs: raw.HOSTGATE_DB_ACQUIRE_TIMEOUT_MS, dbIdleInTransactionTimeoutMs: raw.HOSTGATE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS, requestTimeoutMs: raw.HOSTGATE_REQUEST_TIMEOUT_MS },
    billing: {
      graceHours: raw.HOSTGATE_BILLING_GRACE_HOURS,
      stripe: raw.STRIPE_SECRET_KEY ? {
        secretKey: raw.STRIPE_SECRET_KEY, webhookSecret: raw.STRIPE_WEBHOOK_SECRET, apiBase: raw.STRIPE_API_BASE,
        prices: { starter: raw.STRIPE_PRICE_STARTER, growth: raw.STRIPE_PRICE_GROWTH, scale: raw.STRIPE_PRICE_SCALE },
      } : null,
    },
    // Issue 14 (reliability).
    dnsLimits: { queryTimeoutMs: raw.HOSTGATE_DNS_QUERY_TIMEOUT_MS, tries: raw.HOSTGATE_DNS_TRIES, localBudgetMs: raw.HOSTGATE_DNS_LOCAL_BUDGET_MS, localConcurrency: raw.HOSTGATE_DNS_LOCAL_CONCURRENCY, backgroundBudgetMs: raw.HOSTGATE_DNS_BACKGROUND_BUDGET_MS },
    dnsActivitySlots: raw.HOSTGATE_WORKER_DNS_ACTIVITY_SLOTS,
    retention: { outboxDays: raw.HOSTGATE_RETENTION_OUTBOX_DAYS, eventsDays: raw.HOSTGATE_RETENTION_EVENTS_DAYS, widgetSessionsDays: raw.HOSTGATE_RETENTION_WIDGET_SESSIONS_DAYS, batch: raw.HOSTGATE_RETENTION_BATCH },
    metrics: { host: raw.HOSTGATE_METRICS_HOST, apiPort: raw.HOSTGATE_API_METRICS_PORT ?? 0, workerPort: raw.HOSTGATE_WORKER_METRICS_PORT ?? 0, workerSdkPort: raw.HOSTGATE_WORKER_SDK_METRICS_PORT ?? 0, edgePort: raw.HOSTGATE_EDGE_METRICS_PORT ?? 0 },
  };
}

/**
 * The Postgres bounds of a process that answers requests (the API, the edge's HTTP listener):
 * every call gives up within them, and the answer is a 503 (docs/api-decisions.md, "Bounded waits").
 */
export function requestDbLimits(config: Config) {
  return {
    maximumPoolSize: config.databasePoolSize,
    statementTimeoutMs: config.limits.dbStatementTimeoutMs,
    connectTimeoutMs: config.limits.dbConnectTimeoutMs,
    acquireTimeoutMs: config.limits.dbAcquireTimeoutMs,
    idleInTransactionTimeoutMs: config.limits.dbIdleInTransactionTimeoutMs,
  };
}
