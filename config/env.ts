// Every environment variable the processes read is declared here, validated once at start-up,
// and turned into a typed Config. A wrong value stops the process with a message naming the
// variable and what it expects, instead of failing later somewhere deep.
import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

const Port = Type.Integer({ minimum: 1, maximum: 65535 });

/** Declared variables: name → schema, default and a human description (shown on error). */
const variables = {
  // Every process
  HOSTGATE_ENV: { schema: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')]), default: 'development', describe: 'one of development, production, test' },
  LOG_LEVEL: { schema: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))), default: 'info', describe: 'one of fatal, error, warn, info, debug, trace, silent' },
  HOSTGATE_DATA_DIR: { schema: Type.String({ minLength: 1 }), default: '.data', describe: 'a directory for local state' },
  HOSTGATE_ENCRYPTION_KEYS: { schema: Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=]{43,44}(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=]{43,44})*$' }), default: undefined, describe: 'comma-separated kid:base64(32 bytes) AES-256-GCM keys, the first encrypts (unset in development: generated under HOSTGATE_DATA_DIR)' },
  HOSTGATE_ALLOW_PRIVATE_TARGETS: { schema: Type.Boolean(), default: 'false', describe: 'true or false: allow loopback/private destination and webhook targets (tests only)' },
  // Postgres (config.db). The timeouts bound the processes that answer requests — the API and the
  // edge's HTTP listener (docs/api-decisions.md, "Bounded waits"): past them a request answers 503
  // with Retry-After instead of waiting for a Postgres that does not answer.
  DATABASE_URL: { schema: Type.String({ pattern: '^postgres(ql)?://' }), default: undefined, describe: 'a postgres:// connection URL (unset: embedded Postgres under HOSTGATE_DATA_DIR)' },
  DATABASE_POOL_SIZE: { schema: Type.Integer({ minimum: 1, maximum: 200 }), default: '10', describe: 'an integer from 1 to 200' },
  HOSTGATE_DB_STATEMENT_TIMEOUT_MS: { schema: Type.Integer({ minimum: 100, maximum: 600000 }), default: '3000', describe: 'an integer from 100 to 600000: milliseconds one API statement may run (statement_timeout; the client gives up 1 s later when Postgres does not answer at all)' },
  HOSTGATE_DB_CONNECT_TIMEOUT_MS: { schema: Type.Integer({ minimum: 100, maximum: 600000 }), default: '2000', describe: 'an integer from 100 to 600000: milliseconds to open a new API connection to Postgres (TCP, startup, authentication)' },
  HOSTGATE_DB_ACQUIRE_TIMEOUT_MS: { schema: Type.Integer({ minimum: 100, maximum: 600000 }), default: '2000', describe: 'an integer from 100 to 600000: milliseconds an API request waits for a free pooled connection' },
  HOSTGATE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: { schema: Type.Integer({ minimum: 100, maximum: 3600000 }), default: '10000', describe: 'an integer from 100 to 3600000: milliseconds Postgres keeps an API session that sits idle inside a transaction (idle_in_transaction_session_timeout)' },
  // Temporal (config.temporal)
  TEMPORAL_ADDRESS: { schema: Type.String({ pattern: '^[^\\s:]+:\\d+$' }), default: undefined, describe: 'host:port of a Temporal frontend (unset: local dev server)' },
  TEMPORAL_NAMESPACE: { schema: Type.String({ minLength: 1 }), default: 'default', describe: 'a Temporal namespace name' },
  TEMPORAL_TASK_QUEUE: { schema: Type.String({ minLength: 1, maxLength: 200 }), default: undefined, describe: 'a task queue name (unset: the versioned default)' },
  TEMPORAL_CLI_PATH: { schema: Type.String({ minLength: 1 }), default: undefined, describe: 'path to the `temporal` CLI binary' },
  // Public names every process agrees on: the API's and the widget script's origins, what customers
  // point DNS at
  HOSTGATE_PUBLIC_URL: { schema: Type.String({ pattern: '^https?://[^/]+$' }), default: undefined, describe: 'the API origin, e.g. https://api.example.com (no path)' },
  HOSTGATE_CDN_URL: { schema: Type.String({ pattern: '^https?://[^/]+$' }), default: undefined, describe: 'the origin that serves the widget script, e.g. https://cdn.example.com (no path; default: HOSTGATE_PUBLIC_URL)' },
  HOSTGATE_WIDGET_API_ORIGIN: { schema: Type.String({ pattern: '^$|^https?://[^/]+$' }), default: undefined, describe: 'the API origin baked into the widget script when it is served from another origin (no path; unset: HOSTGATE_PUBLIC_URL when HOSTGATE_CDN_URL differs from it, else none: the script calls the origin it came from)' },
  HOSTGATE_SERVICE_DOMAIN: { schema: Type.String({ pattern: '^[a-z0-9.-]+$' }), default: 'hostgate.localhost', describe: "the service's own DNS domain (customers cannot claim it)" },
  HOSTGATE_CNAME_TARGET: { schema: Type.String({ pattern: '^[a-z0-9.-]+$' }), default: undefined, describe: 'the hostname customers CNAME to (default edge.<HOSTGATE_SERVICE_DOMAIN>)' },
  HOSTGATE_EDGE_IPV4: { schema: Type.String({ pattern: '^$|^[0-9.,]+$' }), default: '', describe: 'comma-separated IPv4 addresses of the edge (A records for apex domains)' },
  HOSTGATE_EDGE_IPV6: { schema: Type.String({ pattern: '^$|^[0-9a-fA-F:,]+$' }), default: '', describe: 'comma-separated IPv6 addresses of the edge (AAAA records for apex domains)' },
  // API process (config.api; api/server.ts). Failed authentications (docs/api-decisions.md,
  // "Limits") are counted per client address, before the lookup.
  HOSTGATE_HOST: { schema: Type.String({ minLength: 1 }), default: '127.0.0.1', describe: 'the interface the API listens on' },
  HOSTGATE_API_PORT: { schema: Port, default: '3000', describe: 'a TCP port (1-65535)' },
  HOSTGATE_REQUEST_TIMEOUT_MS: { schema: Type.Integer({ minimum: 1000, maximum: 600000 }), default: '10000', describe: 'an integer from 1000 to 600000: milliseconds a client has to send a whole request, headers and body (slower senders get 408)' },
  HOSTGATE_RATE_LIMIT_PER_SECOND: { schema: Type.Integer({ minimum: 1 }), default: '50', describe: 'a positive integer (requests per second per API key)' },
  HOSTGATE_RATE_LIMIT_BURST: { schema: Type.Integer({ minimum: 1 }), default: '100', describe: 'a positive integer (burst size per API key)' },
  HOSTGATE_TRUSTED_PROXIES: { schema: Type.String({ pattern: '^[0-9A-Za-z.:/, ]*$' }), default: '', describe: 'comma-separated IPs or CIDRs (or loopback, linklocal, uniquelocal) of the proxies in front of the API whose X-Forwarded-For names the client (empty: none, the client is the socket peer)' },
  HOSTGATE_AUTH_FAILURE_PER_SECOND: { schema: Type.Integer({ minimum: 1, maximum: 10000 }), default: '1', describe: 'an integer from 1 to 10000: failed authentications per second a client address regains' },
  HOSTGATE_AUTH_FAILURE_BURST: { schema: Type.Integer({ minimum: 1, maximum: 1000000 }), default: '20', describe: 'an integer from 1 to 1000000: failed authentications (unknown or revoked API key or widget token) a client address may make before its requests answer 429 until refilled' },
  HOSTGATE_API_KEY_CACHE_TTL_MS: { schema: Type.Integer({ minimum: 0, maximum: 10000 }), default: '2000', describe: 'an integer from 0 to 10000: milliseconds the API keeps an authenticated key in memory; a revocation evicts it at once (LISTEN), this bounds a lost notification (0: every request looks its key up)' },
  // Worker process (config.worker; worker/main.ts): Temporal worker slots and the workflow bundle
  HOSTGATE_WORKER_WORKFLOW_TASK_SLOTS: { schema: Type.Integer({ minimum: 2, maximum: 2000 }), default: '40', describe: 'an integer from 2 to 2000: workflow tasks one worker runs at once (each holds its slot while its local activities run)' },
  HOSTGATE_WORKER_WORKFLOW_THREADS: { schema: Type.Integer({ minimum: 1, maximum: 16 }), default: '1', describe: "an integer from 1 to 16: threads that run the main task queue's workflow code in one worker (a burst of new domains' first workflow tasks is bound by them; each beyond the first takes 350 MiB of HOSTGATE_WORKER_MEMORY_MB's budget, so fewer workflows stay cached: docs/scale.md)" },
  HOSTGATE_WORKER_ACTIVITY_SLOTS: { schema: Type.Integer({ minimum: 1, maximum: 2000 }), default: '100', describe: 'an integer from 1 to 2000: activities one worker runs at once' },
  HOSTGATE_WORKER_LOCAL_ACTIVITY_SLOTS: { schema: Type.Integer({ minimum: 1, maximum: 2000 }), default: '100', describe: 'an integer from 1 to 2000: local activities one worker runs at once' },
  HOSTGATE_WORKER_DNS_ACTIVITY_SLOTS: { schema: Type.Integer({ minimum: 1, maximum: 2000 }), default: '20', describe: 'an integer from 1 to 2000: periodic DNS checks one worker runs at once (slots of the DNS task queue)' },
  HOSTGATE_WORKER_WEBHOOK_WORKFLOW_TASK_SLOTS: { schema: Type.Integer({ minimum: 2, maximum: 2000 }), default: '40', describe: "an integer from 2 to 2000: webhook delivery workflow tasks one worker runs at once, on the webhook task queue (each holds its slot while its first attempt, a local activity, waits on the receiver)" },
  HOSTGATE_WORKER_WEBHOOK_LOCAL_ACTIVITY_SLOTS: { schema: Type.Integer({ minimum: 1, maximum: 2000 }), default: '40', describe: 'an integer from 1 to 2000: first webhook attempts (local activities) one worker runs at once inside delivery workflow tasks' },
  HOSTGATE_WORKER_WEBHOOK_ACTIVITY_SLOTS: { schema: Type.Integer({ minimum: 1, maximum: 2000 }), default: '100', describe: 'an integer from 1 to 2000: later webhook attempts (activities) one worker runs at once, on the webhook task queue' },
  HOSTGATE_DNS_CHECKER_CONCURRENCY: { schema: Type.Integer({ minimum: 1, maximum: 2000 }), default: '100', describe: "an integer from 1 to 2000: DNS checks of pending domains one worker's DNS checker runs at once (each waits on DNS and Postgres, not on the CPU)" },
  HOSTGATE_WORKER_IDLE_GC_MS: { schema: Type.Integer({ minimum: 0, maximum: 600000 }), default: '5000', describe: 'an integer from 0 to 600000: every this many milliseconds each of the worker\'s threads (its main thread and its workflow threads) looks back; if it was busy less than a quarter of that time and its heap grew by HOSTGATE_WORKER_IDLE_GC_GROWTH_MB, it runs one full GC that gives the memory back; while the process is over 90 % of HOSTGATE_WORKER_MEMORY_MB, a thread whose heap grew by as much collects at once, at most once this often (0: never; docs/scale.md)' },
  HOSTGATE_WORKER_IDLE_GC_GROWTH_MB: { schema: Type.Integer({ minimum: 1, maximum: 65536 }), default: '64', describe: 'an integer from 1 to 65536: MiB a worker thread\'s heap must grow by since its last collection before a quiet period collects it (HOSTGATE_WORKER_IDLE_GC_MS)' },
  HOSTGATE_WORKER_MEMORY_MB: { schema: Type.Integer({ minimum: 256, maximum: 1048576 }), default: '1024', describe: 'an integer from 256: MiB of memory one worker process may use; the number of workflows it keeps in memory between tasks is derived from it (worker/create-worker.ts, docs/scale.md)' },
  HOSTGATE_WORKER_WORKFLOW_STACK_TRACES: { schema: Type.Union([Type.Literal('on'), Type.Literal('off')]), default: 'off', describe: "on or off: whether the worker records a stack for every promise workflow code creates, for the Temporal Web UI's Stack Trace tab (the `__stack_trace` query); on costs ≈ a third of the workflow thread's time (docs/scale.md)" },
  HOSTGATE_WORKER_MAX_CACHED_WORKFLOWS: { schema: Type.Integer({ minimum: 0, maximum: 1000000 }), default: undefined, describe: "an integer: workflows one worker keeps in memory between tasks (unset: derived from HOSTGATE_WORKER_MEMORY_MB); below the number of open workflows, a task of a workflow not kept replays its run" },
  HOSTGATE_WORKFLOW_BUNDLE: { schema: Type.String({ minLength: 1 }), default: undefined, describe: 'path of the prebuilt workflow bundle the worker loads (unset: dist/workflow-bundle.js, rebuilt when older than the sources)' },
  // Domain lifecycle: when a domain with a certificate becomes active
  HOSTGATE_EDGE_DEPLOYMENT: { schema: Type.Union([Type.Literal('required'), Type.Literal('skip')]), default: 'required', describe: "required or skip: whether a domain becomes active only once an edge agent serves its certificate (skip: on issuance — for deployments without Hostgate's edge, and tests of the lifecycle alone)" },
  HOSTGATE_EDGE_DEPLOY_OVERDUE_SECONDS: { schema: Type.Integer({ minimum: 1, maximum: 86400 }), default: '60', describe: 'an integer from 1 to 86400: seconds after which a stored certificate no edge serves yet shows as the problem edge_not_deployed' },
  // DNS verification (config.dns, config.dnsLimits; activities/dns-check.ts): resolvers and the
  // bounds of a lookup
  HOSTGATE_DNS_SERVERS: { schema: Type.String({ pattern: '^$|^[0-9a-fA-F.:\\[\\],]+$' }), default: '', describe: "comma-separated DNS servers (ip or ip:port) for verification (empty: the system's resolvers)" },
  HOSTGATE_DNS_QUERY_TIMEOUT_MS: { schema: Type.Integer({ minimum: 100, maximum: 30000 }), default: '2000', describe: 'an integer from 100 to 30000: milliseconds one DNS query try may take at most (c-ares shortens later tries to 5x the recent answer time of the server, see docs/operations.md)' },
  HOSTGATE_DNS_TRIES: { schema: Type.Integer({ minimum: 1, maximum: 5 }), default: '2', describe: 'an integer from 1 to 5: tries per DNS query and server' },
  HOSTGATE_DNS_LOCAL_BUDGET_MS: { schema: Type.Integer({ minimum: 200, maximum: 20000 }), default: '3000', describe: 'an integer from 200 to 20000: milliseconds a DNS check run inside a workflow task (verify, re-checks) may take in all, waiting for its turn included; past it the check reports lookup_failed' },
  HOSTGATE_DNS_LOCAL_CONCURRENCY: { schema: Type.Integer({ minimum: 1, maximum: 1000 }), default: '10', describe: 'an integer from 1 to 1000: DNS checks one worker runs inside workflow tasks at once (each holds a workflow-task slot)' },
  HOSTGATE_DNS_BACKGROUND_BUDGET_MS: { schema: Type.Integer({ minimum: 1000, maximum: 60000 }), default: '15000', describe: 'an integer from 1000 to 60000: milliseconds a periodic DNS check (a regular activity on the DNS task queue) may take in all' },
  // Certificates (config.acme)
  HOSTGATE_ACME_DIRECTORY_URL: { schema: Type.String({ pattern: '^https://' }), default: 'https://acme-v02.api.letsencrypt.org/directory', describe: "an https:// ACME directory URL (Let's Encrypt by default)" },
  HOSTGATE_ACME_CA_BUNDLE: { schema: Type.String({ minLength: 1 }), default: undefined, describe: 'path to a PEM file to trust for the ACME directory connection (test CAs such as Pebble)' },
  HOSTGATE_ACME_EMAIL: { schema: Type.String({ pattern: '^[^@\\s]+@[^@\\s]+$' }), default: undefined, describe: 'a contact email for the ACME account' },
  HOSTGATE_ACME_CAA_IDENTITIES: { schema: Type.String({ pattern: '^[a-z0-9.,-]+$' }), default: 'letsencrypt.org', describe: 'comma-separated CAA issuer domains of our CA (a CAA record must name one of them)' },
  HOSTGATE_ACME_BUDGET: { schema: Type.String({ pattern: '^\\d{1,6}/\\d{1,6}[smhd]$' }), default: '250/3h', describe: "<orders>/<window> such as 250/3h: new ACME orders per account per window, shared by every worker (Let's Encrypt allows 300/3h); the budget of a CA in HOSTGATE_ACME_DIRECTORIES without its own" },
  HOSTGATE_ACME_DIRECTORIES: { schema: Type.String({ minLength: 2 }), default: undefined, describe: 'a JSON list of certificate authorities, tried in order: [{"name", "url", "caa": [...], "ca_bundle"?, "eab_kid"?, "eab_hmac"?, "budget"?: "250/3h"}] (docs/deploy.md, "Certificate authorities"); unset: HOSTGATE_ACME_DIRECTORY_URL and its companions as the one CA' },
  // Zero-downtime moves (config.moves; docs/zero-downtime-moves.md): ownership by TXT, certificates
  // by DNS-01 through a delegated CNAME
  HOSTGATE_CHALLENGE_ZONE: { schema: Type.String({ pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$' }), default: undefined, describe: 'the DNS zone our PowerDNS serves for delegated DNS-01 challenges, e.g. acme.hostgate.example (lower case; unset: zero-downtime moves are off)' },
  HOSTGATE_CHALLENGE_DNS_SERVER: { schema: Type.String({ pattern: '^[0-9a-fA-F.:\\[\\]]+:\\d+$' }), default: '127.0.0.1:53', describe: 'ip:port of our PowerDNS server for the challenge zone (each published TXT is checked there before the CA is told)' },
  HOSTGATE_LIMIT_PENDING_VALIDATIONS: { schema: Type.Integer({ minimum: 1, maximum: 300 }), default: '50', describe: "an integer from 1 to 300: an organization's domains in certificate pre-validation at once (Let's Encrypt: 300 pending authorizations per account)" },
  HOSTGATE_LIMIT_ORDERS_PER_3H: { schema: Type.Integer({ minimum: 1, maximum: 299 }), default: '100', describe: "an integer from 1 to 299: certificate orders per organization per 3 hours (Let's Encrypt: 300 per account)" },
  HOSTGATE_LIMIT_CERTS_PER_DOMAIN_WEEK: { schema: Type.Integer({ minimum: 1, maximum: 49 }), default: '20', describe: "an integer from 1 to 49: certificates per organization and registered domain per 7 days (Let's Encrypt: 50)" },
  HOSTGATE_LIMIT_FAILED_VALIDATIONS_PER_HOUR: { schema: Type.Integer({ minimum: 1, maximum: 4 }), default: '3', describe: "an integer from 1 to 4: failed validations per hostname per hour before we stop asking (Let's Encrypt: 5)" },
  // Certificate issuance (config.certificates; docs/api-decisions.md, "Certificate lifecycle")
  HOSTGATE_CERT_ORDERS_PER_HOUR: { schema: Type.Integer({ minimum: 1, maximum: 100 }), default: '5', describe: 'an integer from 1 to 100: ACME orders per domain per hour, whatever asks for them (the brake that keeps a renewal loop from reaching the CA)' },
  HOSTGATE_CERT_MIN_LIFETIME_SECONDS: { schema: Type.Integer({ minimum: 1, maximum: 34300800 }), default: '3600', describe: 'an integer from 1 to 34300800: certificates living shorter than this many seconds are flagged (history, logs) and renewed at the brake pace' },
  HOSTGATE_CUSTOM_CERT_CA_FILE: { schema: Type.String({ minLength: 1 }), default: undefined, describe: "path to a PEM file of CA certificates that customers' own certificates may chain to, besides the public roots (docs/custom-certificates.md)" },
  // Webhooks (config.webhooks)
  HOSTGATE_WEBHOOK_DIRECT_ATTEMPTS: { schema: Type.Integer({ minimum: 0, maximum: 1000 }), default: '32', describe: "an integer from 0 to 1000: first webhook attempts the worker makes at once, ahead of each delivery's workflow (docs/api-decisions.md, Attempts; 0 leaves every attempt to the workflows)" },
  HOSTGATE_WEBHOOK_TIMEOUT_MS: { schema: Type.Integer({ minimum: 100, maximum: 60000 }), default: '15000', describe: 'an integer from 100 to 60000: milliseconds a webhook receiver has to answer (docs/api-decisions.md: 15 s)' },
  // Billing (config.billing; docs/billing.md). No STRIPE_SECRET_KEY: the built-in local provider.
  HOSTGATE_BILLING_PROVIDER: { schema: Type.Union([Type.Literal('stripe'), Type.Literal('local')]), default: undefined, describe: "stripe or local; unset: stripe when STRIPE_SECRET_KEY is set, else local — except with HOSTGATE_ENV=production, where the local provider (whose checkout page takes no payment) must be chosen on purpose" },
  STRIPE_SECRET_KEY: { schema: Type.String({ pattern: '^(sk|rk)_[A-Za-z0-9_]+$' }), default: undefined, describe: 'a Stripe secret key (sk_… or rk_…); unset: the built-in local billing provider' },
  STRIPE_WEBHOOK_SECRET: { schema: Type.String({ pattern: '^whsec_[A-Za-z0-9_]+$' }), default: undefined, describe: "the signing secret of the Stripe webhook endpoint (whsec_…)" },
  STRIPE_PRICE_STARTER: { schema: Type.String({ pattern: '^price_[A-Za-z0-9_]+$' }), default: undefined, describe: 'the Stripe price id (price_…) of the starter plan' },
  STRIPE_PRICE_GROWTH: { schema: Type.String({ pattern: '^price_[A-Za-z0-9_]+$' }), default: undefined, describe: 'the Stripe price id (price_…) of the growth plan' },
  STRIPE_PRICE_SCALE: { schema: Type.String({ pattern: '^price_[A-Za-z0-9_]+$' }), default: undefined, describe: 'the Stripe price id (price_…) of the scale plan' },
  STRIPE_API_BASE: { schema: Type.String({ pattern: '^https?://[^/]+$' }), default: undefined, describe: "the origin of Stripe's API (tests point it at a fake); unset: https://api.stripe.com" },
  HOSTGATE_BILLING_GRACE_HOURS: { schema: Type.Integer({ minimum: 1, maximum: 2160 }), default: '168', describe: 'an integer from 1 to 2160: hours a past_due subscription keeps its domains before they are suspended' },
  // Retention (config.retention; workflows/maintenance/): how long rows are kept
  HOSTGATE_RETENTION_OUTBOX_DAYS: { schema: Type.Integer({ minimum: 1, maximum: 3650 }), default: '7', describe: 'an integer from 1 to 3650: days a dispatched workflow outbox row is kept' },
  HOSTGATE_RETENTION_EVENTS_DAYS: { schema: Type.Integer({ minimum: 1, maximum: 3650 }), default: '30', describe: 'an integer from 1 to 3650: days events, finished webhook deliveries and their attempts are kept' },
  HOSTGATE_RETENTION_WIDGET_SESSIONS_DAYS: { schema: Type.Integer({ minimum: 0, maximum: 3650 }), default: '7', describe: 'an integer from 0 to 3650: days an expired widget session is kept after it expired' },
  HOSTGATE_RETENTION_BATCH: { schema: Type.Integer({ minimum: 10, maximum: 100000 }), default: '1000', describe: 'an integer from 10 to 100000: rows one retention statement deletes at most' },
  // Edge (config.edge; docs/edge.md): the HTTP listener (edge/main.ts), then the HTTPS agent and its
  // HAProxy (edge/agent-main.ts)
  HOSTGATE_HTTP_PORT: { schema: Port, default: '8080', describe: 'a TCP port (1-65535) for the HTTP listener that answers ACME HTTP-01 challenges and redirects to HTTPS (80 in production)' },
  HOSTGATE_EDGE_ID: { schema: Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{0,62}$' }), default: 'edge-local', describe: 'a stable id of this edge node (lower-case letters, digits, ".", "_", "-")' },
  HOSTGATE_EDGE_HTTPS_PORT: { schema: Port, default: '8443', describe: 'a TCP port (1-65535) HAProxy serves HTTPS on (443 in production)' },
  HOSTGATE_EDGE_BIND_ADDRESS: { schema: Type.String({ pattern: '^[0-9a-fA-F.:]+$' }), default: '127.0.0.1', describe: 'the address HAProxy binds HTTPS on (0.0.0.0 in production)' },
  HOSTGATE_EDGE_STATE_DIR: { schema: Type.String({ minLength: 1 }), default: undefined, describe: "a directory for HAProxy's generated files (default: <HOSTGATE_DATA_DIR>/edge)" },
  HOSTGATE_EDGE_HAPROXY_MALLOC: { schema: Type.String({ pattern: '^(auto|system|/.+)$' }), default: 'auto', describe: "HAProxy's memory allocator: auto (jemalloc when Debian's libjemalloc2 is installed: 14 % less memory per certificate), system, or the path of an allocator library to preload" },
  HOSTGATE_EDGE_HAPROXY_BIN: { schema: Type.String({ minLength: 1 }), default: '/usr/sbin/haproxy', describe: 'path to the haproxy binary (Debian: apt-get install haproxy)' },
  HOSTGATE_EDGE_ORIGIN_CA_FILE: { schema: Type.String({ minLength: 1 }), default: '@system-ca', describe: "a PEM file of CAs trusted for origin certificates (@system-ca: the system's)" },
  HOSTGATE_EDGE_RESOLVERS: { schema: Type.String({ pattern: '^$|^[0-9a-fA-F.:\\[\\],]+$' }), default: '', describe: 'comma-separated ip:port DNS servers HAProxy resolves origins with (empty: /etc/resolv.conf)' },
  HOSTGATE_EDGE_ORIGIN_DNS_REFRESH_MS: { schema: Type.Integer({ minimum: 1000, maximum: 3600000 }), default: '30000', describe: "at most this many milliseconds between two lookups of an origin's address by the edge agent (the record's TTL when shorter, but never under 5 s or this value)" },
  HOSTGATE_EDGE_HSTS_MAX_AGE: { schema: Type.Integer({ minimum: 0, maximum: 63072000 }), default: '0', describe: 'seconds of Strict-Transport-Security sent on every response (0: no HSTS header)' },
  HOSTGATE_EDGE_THREADS: { schema: Type.Integer({ minimum: 0, maximum: 64 }), default: '0', describe: "HAProxy worker threads (0: 1 on an edge of ≤ 2 CPUs, else one per CPU)" },
  HOSTGATE_EDGE_BANDWIDTH_INTERVAL_MS: { schema: Type.Integer({ minimum: 100, maximum: 3600000 }), default: '60000', describe: 'milliseconds between two readings of the per-host byte counters' },
  HOSTGATE_EDGE_TRAFFIC_LOG: { schema: Type.Union([Type.Literal('on'), Type.Literal('off')]), default: 'on', describe: 'on or off: whether HAProxy sends one log line per request to the agent for traffic analytics (docs/analytics.md)' },
  HOSTGATE_EDGE_TRAFFIC_LOG_PORT: { schema: Type.Integer({ minimum: 1, maximum: 65535 }), default: undefined, describe: "the loopback TCP port (1-65535) the agent receives HAProxy's request log on (forwarded from HAProxy's log ring) (unset: a free one, remembered in the state directory)" },
  HOSTGATE_EDGE_ANALYTICS_FLUSH_MS: { schema: Type.Integer({ minimum: 100, maximum: 60000 }), default: '10000', describe: "milliseconds between two flushes of the agent's traffic counters to Postgres" },
  HOSTGATE_EDGE_POLL_INTERVAL_MS: { schema: Type.Integer({ minimum: 100, maximum: 600000 }), default: '5000', describe: 'milliseconds between two polls for changed domains (the fallback of LISTEN/NOTIFY)' },
  HOSTGATE_EDGE_RECONCILE_INTERVAL_MS: { schema: Type.Integer({ minimum: 1000, maximum: 3600000 }), default: '60000', describe: 'milliseconds between two full comparisons of HAProxy with Postgres' },
  HOSTGATE_EDGE_HEARTBEAT_INTERVAL_MS: { schema: Type.Integer({ minimum: 100, maximum: 600000 }), default: '10000', describe: "milliseconds between two heartbeats of this edge in edge_nodes" },
  HOSTGATE_EDGE_HEALTH_PORT: { schema: Type.Integer({ minimum: 0, maximum: 65535 }), default: undefined, describe: "a TCP port for the edge's health endpoint on HOSTGATE_EDGE_BIND_ADDRESS (200 in sync, 503 otherwise; 0 or unset: off; `npm start` sets 8490)" },
  HOSTGATE_EDGE_HEALTH_MAX_LAG_MS: { schema: Type.Integer({ minimum: 1000, maximum: 3600000 }), default: '30000', describe: "milliseconds the edge's last complete read of Postgres may be old for it to count as in sync (keep it above the poll interval)" },
  HOSTGATE_EDGE_SOCKET_TIMEOUT_MS: { schema: Type.Integer({ minimum: 100, maximum: 600000 }), default: '5000', describe: "milliseconds one HAProxy runtime-API command may take" },
  HOSTGATE_EDGE_BOOT_FIRST_HOSTS: { schema: Type.Integer({ minimum: 0, maximum: 1000000 }), default: '2000', describe: 'at a fresh start with more hostnames than this, HAProxy starts serving the busiest this many and loads the rest in a reload behind them (0: load all before serving)' },
  HOSTGATE_EDGE_START_TIMEOUT_MS: { schema: Type.Integer({ minimum: 1000, maximum: 3600000 }), default: '300000', describe: 'milliseconds HAProxy may take to start or reload (grows with the number of certificates)' },
  // Prometheus endpoints (config.metrics; docs/operations.md, "Metrics")
  HOSTGATE_METRICS_HOST: { schema: Type.String({ minLength: 1 }), default: '127.0.0.1', describe: 'the interface the Prometheus endpoints listen on (loopback by default: not public)' },
  HOSTGATE_API_METRICS_PORT: { schema: Type.Integer({ minimum: 0, maximum: 65535 }), default: undefined, describe: "a TCP port for the API's /metrics (0 or unset: off; `npm start` sets 9464)" },
  HOSTGATE_WORKER_METRICS_PORT: { schema: Type.Integer({ minimum: 0, maximum: 65535 }), default: undefined, describe: "a TCP port for the worker's /metrics (0 or unset: off; `npm start` sets 9465)" },
  HOSTGATE_WORKER_SDK_METRICS_PORT: { schema: Type.Integer({ minimum: 0, maximum: 65535 }), default: undefined, describe: "a TCP port for the Temporal SDK's own Prometheus metrics in the worker (0 or unset: off; `npm start` sets 9466)" },
  HOSTGATE_EDGE_METRICS_PORT: { schema: Type.Integer({ minimum: 0, maximum: 65535 }), default: undefined, describe: "a TCP port for the edge listener's /metrics (0 or unset: off; `npm start` sets 9467)" },
  // Local stack (config.localStack; `npm start`, local-stack/start.ts): ports of what it starts
  // itself
  HOSTGATE_POSTGRES_PORT: { schema: Port, default: '5433', describe: 'a TCP port (1-65535) for the embedded Postgres' },
  HOSTGATE_TEMPORAL_PORT: { schema: Port, default: '7233', describe: 'a TCP port (1-65535) for the local Temporal dev server' },
  HOSTGATE_TEMPORAL_UI_PORT: { schema: Port, default: '8233', describe: 'a TCP port (1-65535) for the Temporal Web UI' },
  HOSTGATE_PDNS_PORT: { schema: Port, default: '5354', describe: 'a TCP/UDP port (1-65535) on 127.0.0.1 for the PowerDNS `npm start` runs for the local challenge zone (zero-downtime moves)' },
} as const satisfies Record<string, { schema: TSchema; default: string | undefined; describe: string }>;

type Vars = typeof variables;
export type RawConfig = { [K in keyof Vars]: Vars[K]['default'] extends string ? Static<Vars[K]['schema']> : Static<Vars[K]['schema']> | undefined };

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

function coerce(schema: TSchema, raw: string): unknown {
  const type = (schema as { type?: string }).type;
  if (type === 'integer' || type === 'number') return raw.trim() === '' ? raw : Number(raw);
  if (type === 'boolean') return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
  return raw;
}

/** Reads and validates the environment; throws ConfigError listing every bad variable. */
export function readEnv(env: NodeJS.ProcessEnv = process.env): RawConfig {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(variables) as [string, { schema: TSchema; default: string | undefined; describe: string }][]) {
    const raw = env[name] !== undefined && env[name] !== '' ? env[name] : spec.default;
    if (raw === undefined) continue;
    const value = coerce(spec.schema, raw);
    if (!Compile(spec.schema).Check(value)) {
      problems.push(`${name}=${JSON.stringify(name.includes('KEY') || name.includes('SECRET') || name.includes('URL') ? '<redacted>' : raw)} is not valid: expected ${spec.describe}`);
      continue;
    }
    out[name] = value;
  }
  if (problems.length) throw new ConfigError(problems);
  return out as RawConfig;
}

/** Every declared variable with its schema, default and description (test/config.test.ts checks each reaches the typed Config). */
export const declaredVariables: Record<string, { schema: TSchema; default: string | undefined; describe: string }> = variables;
