// Hostgate webhooks for receivers: verify the `Service-Signature` header of a delivery and get the
// event back. Dependency-free (node:crypto only), so it can be copied into any Node service.
//
//   import { verifyWebhook } from './hostgate/sdk/webhooks.ts';
//   app.post('/hostgate', express.raw({ type: 'application/json' }), (req, res) => {
//     const event = verifyWebhook(req.body, req.headers['service-signature'], process.env.HOSTGATE_WEBHOOK_SECRET);
//     …
//   });
//
// The header is `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`; each `v1` is the hex HMAC-SHA256, keyed
// with an endpoint secret (the whole `whsec_…` string), of `<t>.<raw body>`. While a secret is
// being rotated a delivery carries one `v1` per live secret, so either secret verifies it.
// Verification needs the raw body exactly as received: a body parsed and re-serialized is a
// different text and will not verify.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Service-Signature';
export const EVENT_ID_HEADER = 'Service-Event-Id';
/** How far a signature's timestamp may be from now, either way (the spec's default). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookEventKind =
  | 'hostname.created' | 'hostname.verified' | 'hostname.active' | 'hostname.failed'
  | 'hostname.suspended' | 'hostname.deleting' | 'hostname.deleted' | 'hostname.dns_broken'
  | 'hostname.updated'
  | 'hostname.certificate_renewed' | 'hostname.certificate_expiring' | 'hostname.certificate_failed';

/** The JSON body of every delivery. `id` (`evt_…`) is the same on every retry of one event. */
export interface WebhookEvent {
  id: string;
  event: WebhookEventKind;
  /** ISO 8601 with offset: when the event happened (not when it was sent). */
  created_at: string;
  data: {
    id: string;
    hostname: string;
    status: string;
    destination_id: string;
    external_customer_id: string | null;
    /** Your metadata of the domain (PATCH /v1/domains/{id}); null when none is set. */
    metadata: Record<string, string> | null;
    /** `hostname.updated` only: the fields that changed (destination_id, metadata, redirect, external_customer_id, tls). */
    changes?: string[];
    /** `hostname.certificate_*` events only: the certificate (timestamps ISO 8601). */
    certificate?: { serial: string; issuer: string; source: 'managed' | 'custom'; not_before: string; not_after: string; renews_at: string };
    /** `hostname.certificate_expiring` only: 14 or 3. */
    days_left?: number;
    /** `hostname.certificate_failed` only: why the renewal fails. */
    problem?: { code: string; message: string };
  };
}

export type WebhookVerificationErrorCode =
  | 'missing_header' | 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature' | 'invalid_payload';

export class WebhookVerificationError extends Error {
  readonly code: WebhookVerificationErrorCode;
  constructor(code: WebhookVerificationErrorCode, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
  }
}

export interface VerifyOptions {
  /** Maximum distance between the signature's timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in unix seconds (tests). */
  now?: number;
}

/**
 * The raw request body: a string, or its bytes (a Node `Buffer` is a `Uint8Array`). Typed without
 * Node's `Buffer`, so the declarations type-check in a project without `@types/node`.
 */
export type RawBody = string | Uint8Array;

const MAX_HEADER_LENGTH = 8192;
const HEX_SIGNATURE = /^[0-9a-f]{64}$/;
const TIMESTAMP = /^\d{1,12}$/;

function rawBytes(body: RawBody): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('verifyWebhook needs the raw request body (string, Buffer or Uint8Array), not a parsed object: read the body unparsed, e.g. express.raw({ type: "application/json" })');
}

/** The hex HMAC-SHA256 of `<timestamp>.<body>` keyed with `secret`. */
export function computeSignature(body: RawBody, secret: string, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBytes(body)).digest('hex');
}

/**
 * The `Service-Signature` value for `body`: `t=<timestamp>,v1=<sig>` with one `v1` per secret
 * (newest first). Used by Hostgate to sign deliveries, and by receivers to build test requests.
 */
export function signatureHeader(body: RawBody, secrets: string | readonly string[], timestamp: number = Math.floor(Date.now() / 1000)): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new TypeError('signatureHeader needs at least one secret');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new TypeError('timestamp must be a non-negative integer (unix seconds)');
  return [`t=${timestamp}`, ...list.map((s) => `v1=${computeSignature(body, s, timestamp)}`)].join(',');
}

/** Splits the header into its timestamp and `v1` signatures; unknown schemes (v0, v2…) are ignored. */
function parseHeader(header: string | readonly string[] | null | undefined): { timestamp: number; signatures: Buffer[] } {
  if (header === undefined || header === null || (typeof header !== 'string' && !Array.isArray(header))) {
    throw new WebhookVerificationError('missing_header', `no ${SIGNATURE_HEADER} header`);
  }
  const text = typeof header === 'string' ? header : header.join(',');
  if (text.trim() === '') throw new WebhookVerificationError('missing_header', `the ${SIGNATURE_HEADER} header is empty`);
  if (text.length > MAX_HEADER_LENGTH) throw new WebhookVerificationError('malformed_header', `the ${SIGNATURE_HEADER} header is too long`);
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new WebhookVerificationError('malformed_header', `malformed ${SIGNATURE_HEADER} element ${JSON.stringify(part.trim().slice(0, 40))}: expected key=value`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== null) throw new WebhookVerificationError('malformed_header', `${SIGNATURE_HEADER} has more than one timestamp`);
      if (!TIMESTAMP.test(value)) throw new WebhookVerificationError('malformed_header', `${SIGNATURE_HEADER} timestamp is not unix seconds`);
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!HEX_SIGNATURE.test(value)) throw new WebhookVerificationError('malformed_header', `${SIGNATURE_HEADER} v1 signature is not 64 lowercase hex digits`);
      signatures.push(Buffer.from(value, 'hex'));
    }
  }
  if (timestamp === null) throw new WebhookVerificationError('malformed_header', `${SIGNATURE_HEADER} has no timestamp (t=…)`);
  if (signatures.length === 0) throw new WebhookVerificationError('malformed_header', `${SIGNATURE_HEADER} has no v1 signature`);
  return { timestamp, signatures };
}

/**
 * Verifies a delivery and returns its event. Throws `WebhookVerificationError` (answer 400 and
 * do not process the body) when the header is missing or malformed, its timestamp is more than
 * `toleranceSeconds` away from now (stale or from the future), or no `v1` signature matches any of
 * the given secrets. Signatures are compared in constant time.
 */
export function verifyWebhook(
  rawBody: RawBody,
  header: string | readonly string[] | null | undefined,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent {
  const { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS } = options;
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) throw new TypeError('toleranceSeconds must be a non-negative number');
  const secrets = (typeof secret === 'string' ? [secret] : [...secret]).filter((s) => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs the endpoint secret (whsec_…)');
  const body = rawBytes(rawBody);
  const { timestamp, signatures } = parseHeader(header);

  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_outside_tolerance', `the signature timestamp is ${now > timestamp ? 'older' : 'newer'} than the ${toleranceSeconds} s tolerance allows (possible replay or clock skew)`);
  }
  let matched = false;
  for (const s of secrets) {
    const expected = Buffer.from(computeSignature(body, s, timestamp), 'hex');
    // Every comparison runs, whatever matched first: timing says nothing about which one did.
    for (const candidate of signatures) {
      if (timingSafeEqual(expected, candidate)) matched = true;
    }
  }
  if (!matched) throw new WebhookVerificationError('no_matching_signature', 'no signature matches the secret: check the endpoint secret, and that the body is the raw, unmodified request body');

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the signed body is not JSON');
  }
  if (!event || typeof event !== 'object' || typeof (event as WebhookEvent).id !== 'string' || typeof (event as WebhookEvent).event !== 'string') {
    throw new WebhookVerificationError('invalid_payload', 'the signed body is not a Hostgate event');
  }
  return event as WebhookEvent;
}
