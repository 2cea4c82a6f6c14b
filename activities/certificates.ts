// Certificate activities: ACME (RFC 8555) through acme-client, one step per activity so Temporal
// can retry each on its own, and every step resumable after a crash. Postgres holds the state:
// the account (key sealed), the order (URL, status, the certificate key sealed before the CSR is
// sent), the HTTP-01 key authorizations the challenge listener in edge/ serves, and finally the
// certificate. A re-run reads that state and continues instead of starting over; the certificate
// row is unique per (domain, serial), so a re-run after a crash never stores a second one.
//
// CA errors are classified (`classifyAcmeError`): rate limits, 5xx, bad nonces and connection
// failures throw a retryable `CaUnavailable` whose nextRetryDelay is the CA's Retry-After;
// refusals (rejected identifier, CAA, failed validation, malformed, bad CSR) throw a
// non-retryable `CertificateRefused` carrying `{ code }` for `verification.problem`.
import { generateKeyPair, createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { createSecureContext, rootCertificates } from 'node:tls';
import { setTimeout as delay } from 'node:timers/promises';
import { AsyncLocalStorage } from 'node:async_hooks';
import { promisify } from 'node:util';
import { asyncLocalStorage } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import acme, { type Authorization, type Client, type Order } from 'acme-client';
import { Type, type Static } from 'typebox';
import type { Config } from '../config/index.ts';
import { newId } from '../db/ids.ts';
import { row, sql, type Db } from '../db/pool.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import type { Logger } from '../logging/logger.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { createCsrPem } from '../security/csr.ts';
import { createAcmeRequest, type AcmeResponse } from './acme-transport.ts';
import type { DomainState } from './domain.ts';

export interface CertificateActivityDeps {
  db: Db;
  secretBox: SecretBox;
  config: Config;
  logger: Logger;
  /** Called while waiting on the CA; defaults to Temporal's heartbeat inside an activity, else nothing. */
  heartbeat?: (details?: unknown) => void;
  /** How long one activity waits for the CA to validate or issue before failing retryably (ms). */
  waitTimeoutMs?: number;
  /** Sees every response from the CA (tests count rejected nonces). */
  observeCaResponse?: (response: AcmeResponse) => void;
  /** Longest pause between two polls of an order (ms). */
  maxPollIntervalMs?: number;
}

export interface IssuedCertificate { certificateId: string; serial: string; notBefore: string; notAfter: string; state?: DomainState }

export interface FinalizeInput {
  domainId: string;
  orderUrl: string;
  /**
   * After storing: `activateFromSeq` moves the domain to `active` if its row is still at that
   * sequence (first certificate), clearing `verification.problem` with the move; `{}` only clears
   * the problem (renewal). Absent (histories from before this option): nothing more happens.
   */
  then?: { activateFromSeq?: number };
}

/** AAD binding a sealed certificate key to its row; the TLS edge opens it with the same context. */
export function certificateKeyContext(certificateId: string): string {
  return `certificate:${certificateId}:private_key`;
}
/** AAD of the ACME account key (acme_accounts) and of an order's certificate key (acme_orders). */
export const accountKeyContext = (directoryUrl: string) => `acme_account:${directoryUrl}:private_key`;
export const orderKeyContext = (orderUrl: string) => `acme_order:${orderUrl}:private_key`;

// ---------------------------------------------------------------------------------------------
// Error classification

export interface AcmeProblem { type?: string; detail?: string; status?: number; subproblems?: AcmeProblem[] }

export type AcmeErrorClass =
  | { kind: 'retryable'; message: string; retryAfterSeconds?: number }
  | { kind: 'permanent'; code: string; message: string; acmeType?: string };

/** An error response from the CA (status ≥ 400), with its problem document and Retry-After. */
export class CaProblemError extends Error {
  readonly status: number;
  readonly problem: AcmeProblem | null;
  readonly retryAfterSeconds: number | undefined;
  constructor(status: number, problem: AcmeProblem | null, retryAfterSeconds: number | undefined, url: string | undefined) {
    super(`ACME server answered ${status}${problem?.type ? ` ${problem.type}` : ''}${problem?.detail ? `: ${problem.detail}` : ''}${url ? ` (${url})` : ''}`);
    this.name = 'CaProblemError';
    this.status = status;
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The CA could not be reached (refused, reset, timed out, TLS failure). */
export class CaConnectionError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'CaConnectionError';
    this.code = code;
  }
}

const ACME_ERROR = 'urn:ietf:params:acme:error:';
const RETRYABLE_TYPES = new Set(['rateLimited', 'serverInternal', 'badNonce', 'orderNotReady', 'accountDoesNotExist']);
// Validation problems (connection, dns, tls, unauthorized, incorrectResponse) describe the CA's
// attempt to reach the customer's hostname: they end the order, so they are refusals, not outages.
const PERMANENT: Record<string, { code: string; message: string }> = {
  rejectedIdentifier: { code: 'rejected_identifier', message: 'The certificate authority will not issue a certificate for this hostname' },
  unsupportedIdentifier: { code: 'rejected_identifier', message: 'The certificate authority does not support this hostname' },
  caa: { code: 'caa_forbids_ca', message: "A CAA record of this hostname does not allow our certificate authority to issue for it" },
  unauthorized: { code: 'challenge_failed', message: 'The certificate authority could not confirm that this hostname points to us' },
  incorrectResponse: { code: 'challenge_failed', message: 'The certificate authority got a wrong answer to its HTTP-01 challenge for this hostname' },
  connection: { code: 'challenge_unreachable', message: 'The certificate authority could not connect to this hostname to validate it' },
  tls: { code: 'challenge_unreachable', message: 'The certificate authority could not connect to this hostname to validate it' },
  dns: { code: 'challenge_dns_failed', message: 'The certificate authority could not look up this hostname in DNS' },
  badCSR: { code: 'bad_csr', message: 'The certificate authority refused our certificate request' },
  badPublicKey: { code: 'bad_csr', message: 'The certificate authority refused our certificate key' },
  malformed: { code: 'ca_request_malformed', message: 'The certificate authority refused our request as malformed' },
  userActionRequired: { code: 'ca_account_action_required', message: 'Our account with the certificate authority needs attention' },
  externalAccountRequired: { code: 'ca_account_action_required', message: 'The certificate authority requires an external account binding' },
  invalidContact: { code: 'ca_account_action_required', message: 'The certificate authority refused our contact address' },
  unsupportedContact: { code: 'ca_account_action_required', message: 'The certificate authority refused our contact address' },
};
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'EADDRNOTAVAIL', 'ERR_SOCKET_CONNECTION_TIMEOUT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED']);

function isProblem(value: unknown): value is AcmeProblem {
  return typeof value === 'object' && value !== null && typeof (value as AcmeProblem).type === 'string';
}

function shortType(type: string | undefined): string | undefined {
  return type?.startsWith(ACME_ERROR) ? type.slice(ACME_ERROR.length) : type;
}

/** Classifies a problem document (from a response, an order or a challenge) and its HTTP status. */
function classifyProblem(problem: AcmeProblem | null, status: number | undefined, retryAfterSeconds: number | undefined): AcmeErrorClass {
  const type = shortType(problem?.type);
  const detail = problem?.detail?.replace(/\s+/g, ' ').trim();
  const httpStatus = status ?? problem?.status;
  const retry = (what: string): AcmeErrorClass => ({
    kind: 'retryable', message: `${what}${detail ? `: ${detail}` : ''}`, ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
  });
  if (type === 'compound' && problem?.subproblems?.length) {
    // The first permanent subproblem decides; all-retryable stays retryable.
    const classes = problem.subproblems.map((p) => classifyProblem(p, undefined, retryAfterSeconds));
    return classes.find((c) => c.kind === 'permanent') ?? classes[0]!;
  }
  if (type && RETRYABLE_TYPES.has(type)) return retry(`The certificate authority asked us to retry (${type})`);
  if (httpStatus !== undefined && (httpStatus === 429 || httpStatus >= 500)) return retry(`The certificate authority is unavailable (HTTP ${httpStatus})`);
  const known = type ? PERMANENT[type] : undefined;
  const base = known ?? { code: 'certificate_refused', message: 'The certificate authority refused the certificate' };
  return { kind: 'permanent', code: base.code, message: detail ? `${base.message}: ${detail}` : base.message, ...(problem?.type ? { acmeType: problem.type } : {}) };
}

/**
 * Maps what an ACME call threw (or a problem document found on an order or challenge) to
 * retryable / permanent. Unknown errors are retryable: the activity's retry policy bounds them.
 */
export function classifyAcmeError(error: unknown): AcmeErrorClass {
  if (error instanceof CaProblemError) return classifyProblem(error.problem, error.status, error.retryAfterSeconds);
  if (error instanceof CaConnectionError) return { kind: 'retryable', message: error.message };
  if (isProblem(error)) return classifyProblem(error, undefined, undefined);
  const e = error as { code?: unknown; message?: unknown; response?: { status?: number; data?: unknown; headers?: Record<string, unknown> } } | null;
  if (e?.response?.status) {
    return classifyProblem(isProblem(e.response.data) ? e.response.data : null, e.response.status, parseRetryAfter(e.response.headers?.['retry-after']));
  }
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (typeof e?.code === 'string' && NETWORK_CODES.has(e.code)) return { kind: 'retryable', message: `Could not reach the certificate authority (${e.code}): ${message}` };
  return { kind: 'retryable', message: `ACME request failed: ${message}` };
}

/** Retry-After as seconds (delta-seconds or an HTTP date), undefined when absent or past. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) > 0 ? Number(trimmed) : undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  const seconds = Math.ceil((at - now) / 1000);
  return seconds > 0 ? seconds : undefined;
}

/** The Temporal failure for a classified error: CertificateRefused (final) or CaUnavailable. */
export function acmeFailure(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  const c = classifyAcmeError(error);
  const cause = error instanceof Error ? error : undefined;
  if (c.kind === 'permanent') {
    return ApplicationFailure.create({ nonRetryable: true, type: 'CertificateRefused', message: c.message, details: [{ code: c.code, acmeType: c.acmeType ?? null }], cause });
  }
  return ApplicationFailure.create({
    type: 'CaUnavailable', message: c.message, cause,
    ...(c.retryAfterSeconds ? { nextRetryDelay: `${c.retryAfterSeconds}s` as const } : {}),
  });
}

function refused(code: string, message: string, acmeType?: string): ApplicationFailure {
  return ApplicationFailure.create({ nonRetryable: true, type: 'CertificateRefused', message, details: [{ code, acmeType: acmeType ?? null }] });
}

// ---------------------------------------------------------------------------------------------
// acme-client's HTTP layer is ours (acme-transport.ts), set on each client:
// - no retries inside a request (acme-client's own loop slept up to Retry-After inside it);
//   retries belong to Temporal, where Retry-After becomes nextRetryDelay;
// - error responses become CaProblemError with the problem document and Retry-After, except
//   badNonce, which acme-client retries itself with the fresh nonce;
// - no answer at all becomes CaConnectionError;
// - a configured CA bundle is trusted for the ACME directory's origin only;
// - connections to the CA are kept and shared, a bounded number of them: under a burst of
//   issuances, requests wait a moment for a free connection instead of each paying a TLS
//   handshake (on both sides).

const AGENT_OPTIONS: https.AgentOptions = { keepAlive: true, maxSockets: 32 };
const defaultAgent = new https.Agent(AGENT_OPTIONS);
const plainAgent = new http.Agent(AGENT_OPTIONS);
const trustedOrigins = new Map<string, https.Agent>();
/** Below the activities' heartbeat timeout: a hung request fails the attempt, not the slot. */
const CA_REQUEST_TIMEOUT_MS = 20_000;

function newAcmeRequest(observe?: (response: AcmeResponse) => void) {
  return createAcmeRequest({
    // (Plain http: only ever for local test doubles; configuration requires https:.)
    agentFor: (url) => (url.protocol === 'http:' ? plainAgent : trustedOrigins.get(url.origin) ?? defaultAgent),
    timeoutMs: CA_REQUEST_TIMEOUT_MS,
    userAgent: 'hostgate (acme-client)',
    problemError: (response, url) => {
      if (isProblem(response.data) && response.data.type === `${ACME_ERROR}badNonce`) return null;
      const retryAfter = response.headers['retry-after'];
      return new CaProblemError(response.status, isProblem(response.data) ? response.data : null, parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter), url);
    },
    connectionError: (code) => new CaConnectionError(`could not reach the ACME server${code ? ` (${code})` : ''}`, code),
    observe,
  });
}

// ---------------------------------------------------------------------------------------------
// Nonces. acme-client asks the CA for a fresh nonce (HEAD newNonce) before every signed request,
// doubling the requests; and Pebble closes the connection after a HEAD, so each also cost a new
// TLS handshake. Every CA response carries a fresh Replay-Nonce (RFC 8555 §7.2: clients should use
// it), so they are kept in a small pool and used first; newNonce is asked only when it is empty.

interface AcmeHttp {
  getNonce(): Promise<string>;
  request(url: string, method: string, opts?: object): Promise<{ status: number; headers: Record<string, unknown>; data: unknown }>;
}

/** A nonce older than this is not used (CAs expire them; Let's Encrypt's last minutes). */
const NONCE_MAX_AGE_MS = 30_000;
const NONCE_POOL_SIZE = 64;

function reuseNonces(http: AcmeHttp): void {
  const pool: Array<{ nonce: string; at: number }> = [];
  const request = http.request.bind(http);
  const getNonce = http.getNonce.bind(http);
  http.request = async (url, method, opts) => {
    const response = await request(url, method, opts);
    const nonce = response.headers['replay-nonce'];
    // A badNonce answer's own nonce is used by acme-client's retry at once: pooling it too would
    // hand it out twice.
    const badNonce = isProblem(response.data) && response.data.type === `${ACME_ERROR}badNonce`;
    if (typeof nonce === 'string' && nonce && !badNonce && method.toLowerCase() !== 'head') {
      pool.push({ nonce, at: Date.now() });
      if (pool.length > NONCE_POOL_SIZE) pool.shift();
    }
    return response;
  };
  http.getNonce = async () => {
    for (let entry = pool.pop(); entry; entry = pool.pop()) {
      if (Date.now() - entry.at < NONCE_MAX_AGE_MS) return entry.nonce;
    }
    return getNonce();
  };
}

// ---------------------------------------------------------------------------------------------
// Rows

const Bytes = Type.Refine(Type.Unsafe<Buffer>({}), (v) => Buffer.isBuffer(v), () => 'must be bytea');
const AccountRow = row(Type.Object({ account_url: Type.Union([Type.String(), Type.Null()]), private_key_enc: Bytes, key_id: Type.String() }));
const orderStatuses = ['pending', 'ready', 'processing', 'valid', 'invalid', 'completed', 'abandoned'] as const;
type OrderStatus = (typeof orderStatuses)[number];
const OrderRowSchema = Type.Object({
  order_url: Type.String(),
  domain_id: Type.String(),
  directory_url: Type.String(),
  hostname: Type.String(),
  status: Type.Union(orderStatuses.map((s) => Type.Literal(s))),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  private_key_enc: Type.Union([Bytes, Type.Null()]),
  key_id: Type.Union([Type.String(), Type.Null()]),
  certificate_id: Type.Union([Type.String(), Type.Null()]),
  finalize_url: Type.Union([Type.String(), Type.Null()]),
  challenge_urls: Type.Union([Type.Array(Type.String()), Type.Null()]),
});
const OrderRow = row(OrderRowSchema);
type OrderRow = Static<typeof OrderRowSchema>;
const orderColumns = sql.fragment`order_url, domain_id, directory_url, hostname, status, expires_at, private_key_enc, key_id, certificate_id, finalize_url, challenge_urls`;
const DomainRow = row(Type.Object({ hostname: Type.String(), status: Type.String(), open_order_url: Type.Union([Type.String(), Type.Null()]) }));
const CertificateRow = row(Type.Object({ id: Type.String(), serial: Type.String(), not_before: Type.String(), not_after: Type.String() }));

/** Deadline (epoch ms) for waiting on the CA within one call, when the caller set a budget. */
const waitBudget = new AsyncLocalStorage<number>();

const generateKeyPairAsync = promisify(generateKeyPair);
async function newPrivateKeyPem(): Promise<string> {
  const { privateKey } = await generateKeyPairAsync('ec', { namedCurve: 'P-256', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  return privateKey;
}

function splitPemChain(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

// ---------------------------------------------------------------------------------------------

export function createCertificateActivities(deps: CertificateActivityDeps) {
  const { db, secretBox, config, logger } = deps;
  const domains = domainsRepository(db);
  const directoryUrl = config.acme.directoryUrl;
  const waitTimeoutMs = deps.waitTimeoutMs ?? 120_000;
  const maxPollIntervalMs = deps.maxPollIntervalMs ?? 2_000;
  const acmeRequest = newAcmeRequest(deps.observeCaResponse);

  const heartbeat = deps.heartbeat ?? ((details?: unknown) => { asyncLocalStorage.getStore()?.heartbeat(details); });
  /** Sleeps; inside an activity a cancellation interrupts it (Context.sleep throws CancelledFailure). */
  const pause = (ms: number) => {
    const context = asyncLocalStorage.getStore();
    return context ? context.sleep(ms) : delay(ms);
  };

  let clientPromise: Promise<Client> | null = null;

  async function trustConfiguredCa(): Promise<void> {
    if (!config.acme.caBundlePath) return;
    const origin = new URL(directoryUrl).origin;
    if (trustedOrigins.has(origin)) return;
    const pem = await readFile(config.acme.caBundlePath, 'utf8');
    // One secure context for every connection: with `ca` on the agent, Node would parse the ~150
    // roots again for each new socket (and hash them into the agent's pool key) — under a burst of
    // issuances that was a third of the worker's CPU.
    const secureContext = createSecureContext({ ca: [...rootCertificates, pem] });
    trustedOrigins.set(origin, new https.Agent({ secureContext, ...AGENT_OPTIONS }));
  }

  /** Turns what an ACME call threw into the classified Temporal failure. */
  async function failed(what: string, error: unknown): Promise<ApplicationFailure> {
    if (error instanceof CaConnectionError) {
      error = new CaConnectionError(`Could not reach the certificate authority at ${new URL(directoryUrl).origin}${error.code ? ` (${error.code})` : ''}`, error.code);
    }
    if (error instanceof CaProblemError && shortType(error.problem?.type) === 'accountDoesNotExist') {
      // The CA forgot our account (a test CA restarted): register again on the next attempt.
      clientPromise = null;
      await db.query(sql.unsafe`update acme_accounts set account_url = null where directory_url = ${directoryUrl}`);
    }
    const failure = acmeFailure(error);
    logger.warn({ step: what, type: failure.type, nonRetryable: failure.nonRetryable, err: (error as Error)?.message }, 'ACME call failed');
    return failure;
  }

  /** Runs one ACME call; a failure becomes the classified Temporal failure. */
  async function ca<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw await failed(what, error);
    }
  }

  async function loadAccount(): Promise<{ key: Buffer; accountUrl: string | null }> {
    let account = await db.maybeOne(sql.type(AccountRow)`select account_url, private_key_enc, key_id from acme_accounts where directory_url = ${directoryUrl}`);
    if (!account) {
      const sealed = secretBox.seal(await newPrivateKeyPem(), accountKeyContext(directoryUrl));
      // Concurrent first runs converge on whichever key was inserted first.
      await db.query(sql.unsafe`
        insert into acme_accounts (directory_url, private_key_enc, key_id) values (${directoryUrl}, ${sql.binary(sealed.ciphertext)}, ${sealed.keyId})
        on conflict (directory_url) do nothing`);
      account = await db.one(sql.type(AccountRow)`select account_url, private_key_enc, key_id from acme_accounts where directory_url = ${directoryUrl}`);
    }
    const key = secretBox.open({ keyId: account.key_id, ciphertext: account.private_key_enc }, accountKeyContext(directoryUrl));
    return { key, accountUrl: account.account_url };
  }

  async function buildClient(): Promise<Client> {
    await trustConfiguredCa();
    const { key, accountUrl } = await loadAccount();
    const client = new acme.Client({ directoryUrl, accountKey: key, ...(accountUrl ? { accountUrl } : {}), backoffMin: 200, backoffMax: 2000 });
    // A burst of rejected nonces should not fail a step: acme-client retries badNonce with the
    // fresh nonce from the error response; allow it more tries than its default five.
    (client as unknown as { http: { maxBadNonceRetries: number } }).http.maxBadNonceRetries = 10;
    const http = (client as unknown as { http: AcmeHttp }).http;
    http.request = acmeRequest;
    reuseNonces(http);
    // acme-client keeps the account key as PEM and Node parses it again for every JWS it signs;
    // a parsed KeyObject signs the same bytes without that.
    (client as unknown as { http: { accountKey: unknown } }).http.accountKey = createPrivateKey(key);
    if (!accountUrl) {
      // Same key → same account: registering again after a crash returns the existing one.
      await ca('register account', () => client.createAccount({ termsOfServiceAgreed: true, ...(config.acme.email ? { contact: [`mailto:${config.acme.email}`] } : {}) }));
      const url = client.getAccountUrl();
      await db.query(sql.unsafe`update acme_accounts set account_url = ${url} where directory_url = ${directoryUrl}`);
      logger.info({ directoryUrl, accountUrl: url }, 'ACME account registered');
    }
    return client;
  }

  function getClient(): Promise<Client> {
    clientPromise ??= buildClient().catch((error: unknown) => { clientPromise = null; throw error; });
    return clientPromise;
  }

  async function loadOrder(domainId: string, orderUrl: string): Promise<OrderRow> {
    const order = await db.maybeOne(sql.type(OrderRow)`select ${orderColumns} from acme_orders where order_url = ${orderUrl} and domain_id = ${domainId}`);
    if (!order) throw refused('order_not_found', `No ACME order ${orderUrl} for domain ${domainId}; a new order is needed`);
    return order;
  }

  async function setStatus(orderUrl: string, status: OrderStatus, error: AcmeProblem | null = null): Promise<void> {
    await db.query(sql.unsafe`
      update acme_orders set status = ${status}, error = coalesce(${error ? sql.jsonb(error as never) : null}::jsonb, error), updated_at = hg_now()
      where order_url = ${orderUrl} and status <> 'completed'`);
  }

  /** Ends an order that can no longer succeed: its tokens go, its key is dropped. */
  async function closeOrder(order: OrderRow, status: 'invalid' | 'abandoned', error: AcmeProblem | null): Promise<void> {
    await db.transaction(async (tx) => {
      await tx.query(sql.unsafe`
        update acme_orders set status = ${status}, error = ${error ? sql.jsonb(error as never) : null}::jsonb, private_key_enc = null, key_id = null, updated_at = hg_now()
        where order_url = ${order.order_url} and status <> 'completed'`);
      await tx.query(sql.unsafe`delete from acme_challenges where domain_id = ${order.domain_id}`);
    });
  }

  /** The order as the CA sees it now; a CA that no longer knows it abandons our row. */
  async function fetchOrder(client: Client, order: OrderRow): Promise<Order> {
    try {
      return await client.getOrder({ url: order.order_url } as Order);
    } catch (error) {
      if (error instanceof CaProblemError && error.status === 404) {
        await closeOrder(order, 'abandoned', error.problem);
        throw refused('order_gone', 'The certificate authority no longer knows this order; a new one will be placed');
      }
      throw await failed('fetch order', error);
    }
  }

  type PendingChallenges = { all: Array<{ authz: Authorization; challenge: Authorization['challenges'][number] | undefined }>; rows: Array<{ token: string; keyAuthorization: string; url: string }> };

  /** The order's authorizations and the HTTP-01 key authorization of every pending one. */
  async function pendingChallenges(client: Client, caOrder: Order): Promise<PendingChallenges> {
    const authorizations = await ca('fetch authorizations', () => client.getAuthorizations(caOrder));
    const all = authorizations.map((authz) => ({ authz, challenge: authz.challenges.find((c) => c.type === 'http-01') }));
    const rows: PendingChallenges['rows'] = [];
    for (const { authz, challenge } of all) {
      if (authz.status !== 'pending') continue;
      if (!challenge) throw refused('no_http01_challenge', `The certificate authority offered no HTTP-01 challenge for ${authz.identifier.value}`);
      rows.push({ token: challenge.token, keyAuthorization: await client.getChallengeKeyAuthorization(challenge), url: challenge.url });
    }
    return { all, rows };
  }

  async function insertChallenges(domainId: string, rows: PendingChallenges['rows']): Promise<void> {
    if (rows.length === 0) return;
    await db.query(sql.unsafe`
      insert into acme_challenges (token, key_authorization, domain_id)
      select token, key_authorization, ${domainId} from unnest(${sql.array(rows.map((r) => r.token), 'text')}::text[], ${sql.array(rows.map((r) => r.keyAuthorization), 'text')}::text[]) as c (token, key_authorization)
      on conflict (token) do nothing`);
  }

  /** Stores the key authorization of every pending authorization's HTTP-01 challenge. */
  async function storeChallenges(client: Client, domainId: string, caOrder: Order): Promise<PendingChallenges['all']> {
    const { all: result, rows } = await pendingChallenges(client, caOrder);
    await insertChallenges(domainId, rows);
    return result;
  }

  /** The problem that made an order invalid: the order's own, else the first failed challenge's. */
  async function invalidReason(client: Client, caOrder: Order): Promise<AcmeProblem | null> {
    // The CA puts the validation error on the failed challenge; the order's own is the fallback.
    try {
      const authorizations = await client.getAuthorizations(caOrder);
      for (const authz of authorizations) {
        for (const challenge of authz.challenges) if (isProblem(challenge.error)) return challenge.error;
      }
    } catch { /* fall back to the order's error */ }
    return isProblem(caOrder.error) ? caOrder.error : null;
  }

  async function failInvalid(client: Client, order: OrderRow, caOrder: Order): Promise<never> {
    const problem = await invalidReason(client, caOrder);
    await closeOrder(order, 'invalid', problem);
    const c = classifyProblem(problem, undefined, undefined);
    const permanent = c.kind === 'permanent' ? c : { code: 'challenge_failed', message: `The certificate authority marked the order for ${order.hostname} invalid`, acmeType: problem?.type };
    logger.info({ domainId: order.domain_id, hostname: order.hostname, code: permanent.code }, 'ACME order invalid');
    throw refused(permanent.code, permanent.message, permanent.acmeType);
  }

  /**
   * Polls the order until it leaves `pending` (validation) or `processing` (issuance), with a
   * heartbeat per poll. Past the wait budget it fails retryably; a re-run continues the wait.
   */
  async function waitWhile(client: Client, order: OrderRow, states: readonly string[], what: string, firstPauseMs = 0): Promise<Order> {
    const deadline = Math.min(Date.now() + waitTimeoutMs, waitBudget.getStore() ?? Number.POSITIVE_INFINITY);
    let interval = 50;
    // Right after telling the CA something, asking at once mostly gets the old status back.
    if (firstPauseMs > 0) await pause(firstPauseMs);
    for (;;) {
      const caOrder = await fetchOrder(client, order);
      heartbeat({ orderUrl: order.order_url, status: caOrder.status });
      if (!states.includes(caOrder.status)) return caOrder;
      if (Date.now() >= deadline) {
        throw ApplicationFailure.create({ type: 'CaUnavailable', message: `${what} of ${order.hostname} is still ${caOrder.status}; stopped waiting`, nextRetryDelay: '10s' });
      }
      await pause(interval);
      interval = Math.min(Math.round(interval * 1.5), maxPollIntervalMs);
    }
  }

  /**
   * Answers the challenges whose URLs were stored with the order (their tokens were stored with
   * it too), without reading the order and its authorizations back from the CA first. False when
   * the CA refuses (e.g. a re-run finds a challenge no longer pending): the caller then takes the
   * path that reads the order's state.
   */
  async function answerStoredChallenges(client: Client, order: OrderRow, urls: readonly string[]): Promise<boolean> {
    for (const url of urls) {
      try {
        await client.completeChallenge({ url } as Authorization['challenges'][number]);
      } catch (error) {
        if (error instanceof CaProblemError) {
          logger.info({ domainId: order.domain_id, url, type: error.problem?.type }, 'stored challenge not answerable; reading the order');
          return false;
        }
        throw await failed('answer challenge', error);
      }
    }
    return true;
  }

  /** Moves an order through validation until it is ready, processing or valid. */
  async function validate(client: Client, order: OrderRow): Promise<Order> {
    let caOrder = await fetchOrder(client, order);
    if (caOrder.status === 'pending') {
      // Tokens first (a re-run after they were lost re-stores them), then tell the CA.
      const challenges = await storeChallenges(client, order.domain_id, caOrder);
      for (const { authz, challenge } of challenges) {
        if (authz.status === 'pending' && challenge && challenge.status === 'pending') {
          await ca('answer challenge', () => client.completeChallenge(challenge));
        }
      }
      caOrder = await waitWhile(client, order, ['pending'], 'Validation');
    }
    if (caOrder.status === 'invalid') return failInvalid(client, order, caOrder);
    await setStatus(order.order_url, caOrder.status);
    return caOrder;
  }

  async function storedCertificate(certificateId: string): Promise<IssuedCertificate> {
    const cert = await db.one(sql.type(CertificateRow)`select id, serial, not_before, not_after from certificates where id = ${certificateId}`);
    return { certificateId: cert.id, serial: cert.serial, notBefore: cert.not_before, notAfter: cert.not_after };
  }

  /** The order's certificate key: generated and sealed once, before any CSR leaves. */
  async function orderKey(order: OrderRow): Promise<{ keyPem: string; order: OrderRow }> {
    if (!order.private_key_enc || !order.key_id) {
      const sealed = secretBox.seal(await newPrivateKeyPem(), orderKeyContext(order.order_url));
      // A concurrent attempt that stored its key first wins: then we read and use that one.
      const stored = await db.maybeOne(sql.type(OrderRow)`
        update acme_orders set private_key_enc = ${sql.binary(sealed.ciphertext)}, key_id = ${sealed.keyId}, updated_at = hg_now()
        where order_url = ${order.order_url} and private_key_enc is null returning ${orderColumns}`)
        ?? await db.one(sql.type(OrderRow)`select ${orderColumns} from acme_orders where order_url = ${order.order_url}`);
      if (!stored.private_key_enc || !stored.key_id) throw new Error(`order ${order.order_url} lost its key (status ${stored.status})`);
      order = stored;
    }
    return { keyPem: secretBox.open({ keyId: order.key_id!, ciphertext: order.private_key_enc! }, orderKeyContext(order.order_url)).toString('utf8'), order };
  }

  /**
   * Stores the certificate, completes the order and removes the tokens, all in one transaction,
   * together with what `then` asks for (see FinalizeInput).
   */
  async function store(order: OrderRow, chainPem: string, keyPem: string, then: FinalizeInput['then']): Promise<IssuedCertificate> {
    const chain = splitPemChain(chainPem);
    if (chain.length === 0) throw ApplicationFailure.create({ type: 'CaUnavailable', message: `The certificate download for ${order.hostname} held no certificate` });
    const leaf = new X509Certificate(chain[0]!);
    if (!leaf.checkPrivateKey(createPrivateKey(keyPem))) throw refused('certificate_key_mismatch', `The certificate issued for ${order.hostname} does not match the key we requested it for`);
    if (!leaf.checkHost(order.hostname)) throw refused('certificate_name_mismatch', `The certificate issued does not name ${order.hostname}`);
    const serial = leaf.serialNumber.toLowerCase();
    const notBefore = new Date(leaf.validFrom).toISOString();
    const notAfter = new Date(leaf.validTo).toISOString();
    const issuer = leaf.issuer.split('\n').join(', ');
    const id = newId('certificate');
    const sealed = secretBox.seal(keyPem, certificateKeyContext(id));
    const IdRow = row(Type.Object({ id: Type.String() }));
    // Certificate, order completed, tokens gone: one statement (atomic by itself) when the
    // certificate is new.
    const inserted = await db.maybeOneFirst(sql.type(IdRow)`
      with cert as (
        insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, private_key_enc, key_id)
        values (${id}, ${order.domain_id}, ${serial}, ${issuer}, ${notBefore}, ${notAfter}, ${chain.join('\n') + '\n'}, ${sql.binary(sealed.ciphertext)}, ${sealed.keyId})
        on conflict (domain_id, serial) do nothing returning id
      ), completed as (
        update acme_orders set status = 'completed', certificate_id = cert.id, private_key_enc = null, key_id = null, error = null, updated_at = hg_now()
        from cert where order_url = ${order.order_url}
      ), tokens as (
        delete from acme_challenges where domain_id = ${order.domain_id} and exists (select 1 from cert)
      )
      select id from cert`);
    const certificateId = inserted ?? await db.transaction(async (tx) => {
      // An earlier run stored this very certificate (same serial): complete the order with it.
      const certId = await tx.oneFirst(sql.type(IdRow)`select id from certificates where domain_id = ${order.domain_id} and serial = ${serial}`);
      await tx.query(sql.unsafe`
        update acme_orders set status = 'completed', certificate_id = ${certId}, private_key_enc = null, key_id = null, error = null, updated_at = hg_now()
        where order_url = ${order.order_url}`);
      await tx.query(sql.unsafe`delete from acme_challenges where domain_id = ${order.domain_id}`);
      return certId;
    });
    // After the certificate is stored, not with it: a crash in between leaves a completed order,
    // and the re-run (finalize finds it completed) records this then.
    const state = then ? await afterIssuance(order.domain_id, then) : undefined;
    logger.info({ domainId: order.domain_id, hostname: order.hostname, certificateId, serial, notAfter }, 'certificate stored');
    // Same serial stored by an earlier run: that row's dates are the same certificate's.
    return { certificateId, serial, notBefore, notAfter, ...(state ? { state } : {}) };
  }

  /** What a stored certificate means for its domain: `active` (first one) or the problem cleared. */
  async function afterIssuance(domainId: string, then: NonNullable<FinalizeInput['then']>): Promise<DomainState | undefined> {
    if (then.activateFromSeq === undefined) {
      await domains.setProblem(domainId, null);
      return undefined;
    }
    const moved = await domains.transition(domainId, 'active', 'certificate issued', { expectedSeq: then.activateFromSeq, problem: null });
    if (!moved.domain) throw ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
    return { status: moved.domain.status, seq: moved.domain.status_seq };
  }

  /**
   * Places an order for the domain's hostname and stores its HTTP-01 key authorizations, or
   * returns the order already in flight (a re-run after a crash, or a retry of the workflow).
   */
  async function beginOrder(domainId: string, justMoved?: { hostname: string }): Promise<OrderRow> {
    // Right after this worker moved the domain to pending_certificate, the usual case is no open
    // order: place one at once (a conflicting open order sends us down the full path below).
    if (justMoved) {
      const placed = await placeOrder(domainId, justMoved.hostname);
      if (placed) return placed;
    }
    const found = await db.maybeOne(sql.type(DomainRow)`
      select d.hostname, d.status, (select o.order_url from acme_orders o where o.domain_id = d.id and o.status not in ('invalid', 'completed', 'abandoned')) as open_order_url
      from domains d where d.id = ${domainId}`);
    if (!found || found.status === 'deleted') throw ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
    const { hostname } = found;
    const client = await getClient();
    const open = found.open_order_url ? await db.maybeOne(sql.type(OrderRow)`select ${orderColumns} from acme_orders where order_url = ${found.open_order_url}`) : null;
    if (open) {
      const stale = open.directory_url !== directoryUrl || open.hostname !== hostname
        || (open.expires_at !== null && Date.parse(open.expires_at) < Date.now() + 10 * 60_000);
      if (stale) {
        await closeOrder(open, 'abandoned', null);
      } else {
        let caOrder: Order | null = null;
        try {
          caOrder = await fetchOrder(client, open);
        } catch (error) {
          if (!(error instanceof ApplicationFailure && error.type === 'CertificateRefused')) throw error;
        }
        if (caOrder && caOrder.status !== 'invalid') {
          if (caOrder.status === 'pending') await storeChallenges(client, domainId, caOrder);
          await setStatus(open.order_url, caOrder.status);
          logger.info({ domainId, hostname, orderUrl: open.order_url, status: caOrder.status }, 'resuming ACME order');
          const resumed = { ...open, status: caOrder.status } as OrderRow;
          return resumed;
        }
        if (caOrder) await closeOrder(open, 'invalid', await invalidReason(client, caOrder));
      }
    }

    const placed = await placeOrder(domainId, hostname);
    if (placed) return placed;
    // Another attempt won the race for this domain's one open order: continue with that one.
    const other = await db.maybeOne(sql.type(OrderRow)`
      select ${orderColumns} from acme_orders where domain_id = ${domainId} and status not in ('invalid', 'completed', 'abandoned')`);
    if (other) return other;
    throw new Error(`could not record an ACME order for ${hostname}`);
  }

  /**
   * Places a new order and records it with its URLs and tokens in one statement; null when the
   * domain already has an open order (the row is not written; the CA's new order just expires).
   */
  async function placeOrder(domainId: string, hostname: string): Promise<OrderRow | null> {
    const client = await getClient();
    const caOrder = await ca('create order', () => client.createOrder({ identifiers: [{ type: 'dns', value: hostname }] }));
    // Reading the authorizations tells the CA nothing; with them the row holds every URL the
    // next steps POST to, and the tokens go in right after it.
    const challenges = caOrder.status === 'pending' ? await pendingChallenges(client, caOrder) : null;
    const challengeUrls = challenges ? challenges.rows.map((r) => r.url) : null;
    const tokens = challenges?.rows ?? [];
    const inserted = await db.maybeOne(sql.type(OrderRow)`
      with placed as (
        insert into acme_orders (order_url, domain_id, directory_url, hostname, status, expires_at, finalize_url, challenge_urls)
        values (${caOrder.url}, ${domainId}, ${directoryUrl}, ${hostname}, ${caOrder.status}, ${caOrder.expires ?? null}, ${caOrder.finalize ?? null},
                ${challengeUrls ? sql.array(challengeUrls, 'text') : null}::text[])
        on conflict do nothing returning ${orderColumns}
      ), tokens as (
        insert into acme_challenges (token, key_authorization, domain_id)
        select token, key_authorization, ${domainId}
        from unnest(${sql.array(tokens.map((r) => r.token), 'text')}::text[], ${sql.array(tokens.map((r) => r.keyAuthorization), 'text')}::text[]) as c (token, key_authorization)
        where exists (select 1 from placed)
        on conflict (token) do nothing
      )
      select * from placed`);
    if (inserted) logger.info({ domainId, hostname, orderUrl: caOrder.url }, 'ACME order placed');
    return inserted;
  }

  /** Validation of a loaded order; `record` writes the status reached (the step-by-step path). */
  async function validateOrder(order: OrderRow, record: boolean): Promise<string> {
    if (order.status === 'completed') return 'valid';
    if (order.status === 'invalid' || order.status === 'abandoned') throw refused('order_closed', `The ACME order for ${order.hostname} is ${order.status}; a new order is needed`);
    const client = await getClient();
    if (order.status === 'pending' && order.challenge_urls?.length && await answerStoredChallenges(client, order, order.challenge_urls)) {
      const caOrder = await waitWhile(client, order, ['pending'], 'Validation', 25);
      if (caOrder.status === 'invalid') return failInvalid(client, order, caOrder);
      if (record) await setStatus(order.order_url, caOrder.status);
      return caOrder.status;
    }
    return (await validate(client, order)).status;
  }

  /**
   * Finalizes a ready order with the stored key (created and sealed first), waits for issuance,
   * downloads the chain and stores it once; a re-run returns the stored certificate.
   */
  async function finalize({ domainId, orderUrl, then }: FinalizeInput, validatedReady = false): Promise<IssuedCertificate> {
    // The usual case in one statement: the open order, with its certificate key stored if it had
    // none yet (generated here first; a re-run that finds one keeps that one), and `ready` when
    // the caller just saw the CA say so.
    const candidate = secretBox.seal(await newPrivateKeyPem(), orderKeyContext(orderUrl));
    const keyed = await db.maybeOne(sql.type(OrderRow)`
      update acme_orders set private_key_enc = coalesce(private_key_enc, ${sql.binary(candidate.ciphertext)}), key_id = coalesce(key_id, ${candidate.keyId}),
        status = case when ${validatedReady} and status = 'pending' then 'ready' else status end,
        updated_at = case when private_key_enc is null then hg_now() else updated_at end
      where order_url = ${orderUrl} and domain_id = ${domainId} and status not in ('invalid', 'completed', 'abandoned')
      returning ${orderColumns}`);
    const loaded = keyed ?? await loadOrder(domainId, orderUrl);
    if (loaded.status === 'completed' && loaded.certificate_id) {
      // Stored by an earlier run (its transaction also did `then`; doing it again is a no-op).
      const stored = await storedCertificate(loaded.certificate_id);
      const state = then ? await afterIssuance(domainId, then) : undefined;
      return { ...stored, ...(state ? { state } : {}) };
    }
    if (loaded.status === 'invalid' || loaded.status === 'abandoned') throw refused('order_closed', `The ACME order for ${loaded.hostname} is ${loaded.status}; a new order is needed`);
    const { keyPem, order } = await orderKey(loaded);
    const client = await getClient();

    // Validation left the order `ready` and its finalize URL is known: finalize without asking the
    // CA for the order first. If the CA disagrees (orderNotReady), it is asked below.
    let caOrder: Order = order.status === 'ready' && order.finalize_url
      ? { url: order.order_url, finalize: order.finalize_url, status: 'ready' } as Order
      : await fetchOrder(client, order);
    if (caOrder.status === 'pending') caOrder = await validate(client, order);
    if (caOrder.status === 'invalid') return failInvalid(client, order, caOrder);
    if (caOrder.status === 'ready') {
      const csr = createCsrPem(order.hostname, keyPem);
      try {
        caOrder = await client.finalizeOrder(caOrder, csr);
      } catch (error) {
        // A finalize that reached the CA before we crashed (or raced) leaves it processing/valid.
        if (!(error instanceof CaProblemError && shortType(error.problem?.type) === 'orderNotReady')) throw await failed('finalize order', error);
        caOrder = await fetchOrder(client, order);
        if (caOrder.status === 'pending') caOrder = await validate(client, order);
        if (caOrder.status === 'ready') throw ApplicationFailure.create({ type: 'CaUnavailable', message: `The CA says the order for ${order.hostname} is ready but not ready for finalization`, nextRetryDelay: '5s' });
      }
    }
    if (caOrder.status === 'processing') caOrder = await waitWhile(client, order, ['processing'], 'Issuance', 25);
    if (caOrder.status === 'invalid') return failInvalid(client, order, caOrder);
    if (caOrder.status !== 'valid') throw ApplicationFailure.create({ type: 'CaUnavailable', message: `The ACME order for ${order.hostname} is ${caOrder.status}`, nextRetryDelay: '10s' });
    const finalOrder = caOrder;
    const chainPem = await ca('download certificate', () => client.getCertificate(finalOrder));
    return store(order, chainPem, keyPem, then);
  }



  const activities = {
    /** Registers (or finds) our ACME account for the configured directory. Idempotent. */
    async ensureAcmeAccount(): Promise<{ accountUrl: string }> {
      const client = await getClient();
      return { accountUrl: client.getAccountUrl() };
    },

    /**
     * Places an order for the domain's hostname and stores its HTTP-01 key authorizations, or
     * returns the order already in flight (a re-run after a crash, or a retry of the workflow).
     * Throws CertificateRefused (e.g. rejected_identifier) or CaUnavailable.
     */
    async beginCertificateOrder({ domainId }: { domainId: string }): Promise<{ orderUrl: string }> {
      return { orderUrl: (await beginOrder(domainId)).order_url };
    },

    /**
     * Tells the CA the challenges are ready and waits (heartbeating) until the order is ready.
     * An invalid order throws CertificateRefused with the challenge's problem (challenge_failed,
     * challenge_unreachable, challenge_dns_failed, caa_forbids_ca, …); its tokens are removed.
     */
    async validateCertificateOrder({ domainId, orderUrl }: { domainId: string; orderUrl: string }): Promise<{ status: string }> {
      return { status: await validateOrder(await loadOrder(domainId, orderUrl), true) };
    },

    /**
     * Finalizes a ready order with the stored key (created and sealed first), waits for issuance,
     * downloads the chain and stores it once; a re-run returns the stored certificate. With
     * `then`, also records what the certificate means for the domain (see FinalizeInput).
     */
    async finalizeCertificateOrder(input: FinalizeInput): Promise<IssuedCertificate> {
      return finalize(input);
    },

    /**
     * The three steps above in one call (the workflow's fast path, as one local attempt): order,
     * validation, finalize and store. Each step resumes from Postgres as it does on its own, so
     * when this fails part-way the step-by-step activities continue from where it stopped.
     */
    async issueCertificate({ domainId, then, waitBudgetMs, justMovedHostname }: Omit<FinalizeInput, 'orderUrl'> & {
      /** Bounds the waits on the CA (validation, issuance): past it, CaUnavailable. */
      waitBudgetMs?: number;
      /** The caller moved this domain (this hostname) to pending_certificate a moment ago. */
      justMovedHostname?: string;
    }): Promise<IssuedCertificate & { orderUrl: string }> {
      const run = async () => {
        const order = await beginOrder(domainId, justMovedHostname ? { hostname: justMovedHostname } : undefined);
        // The order row in hand (no reading it back), and `ready` recorded with finalize's first write.
        const status = await validateOrder(order, false);
        return { ...await finalize({ domainId, orderUrl: order.order_url, ...(then ? { then } : {}) }, status === 'ready'), orderUrl: order.order_url };
      };
      return waitBudgetMs === undefined ? run() : waitBudget.run(Date.now() + waitBudgetMs, run);
    },
  };
  return activities;
}

export type CertificateActivities = ReturnType<typeof createCertificateActivities>;
