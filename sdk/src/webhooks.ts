// Receiving webhooks: `verify` is the repository's verifier (sdk/webhooks.ts, dependency-free);
// `constructEvent` verifies the same way and also checks the event's shape, returning it typed by
// its kind.
import {
  computeSignature, DEFAULT_TOLERANCE_SECONDS, EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader,
  verifyWebhook, WebhookVerificationError, type RawBody, type VerifyOptions, type WebhookEvent, type WebhookEventKind,
} from '../webhooks.ts';
import type { DomainStatus } from './types.ts';

export { DEFAULT_TOLERANCE_SECONDS, EVENT_ID_HEADER, SIGNATURE_HEADER, WebhookVerificationError };
export type { RawBody, VerifyOptions, WebhookEvent, WebhookEventKind };

type SignatureHeaderValue = string | readonly string[] | null | undefined;

export const EVENT_KINDS: readonly WebhookEventKind[] = [
  'hostname.created', 'hostname.verified', 'hostname.active', 'hostname.failed',
  'hostname.suspended', 'hostname.deleting', 'hostname.deleted', 'hostname.dns_broken',
  'hostname.updated',
  'hostname.certificate_renewed', 'hostname.certificate_expiring', 'hostname.certificate_failed',
];

/** The domain an event is about, as it was when the event happened. */
export interface HostgateEventData {
  id: string;
  hostname: string;
  status: DomainStatus;
  destination_id: string;
  external_customer_id: string | null;
  /** Your metadata of the domain (PATCH /v1/domains/{id}); null when none is set. */
  metadata: Record<string, string> | null;
  /** `hostname.updated` only: the fields that changed. */
  changes?: Array<'destination_id' | 'metadata' | 'redirect' | 'external_customer_id' | 'tls'>;
  /** `hostname.certificate_*` events only: the certificate (timestamps RFC 3339). */
  certificate?: { serial: string; issuer: string; source: 'managed' | 'custom'; not_before: string; not_after: string; renews_at: string };
  /** `hostname.certificate_expiring` only: 14 or 3. */
  days_left?: number;
  /** `hostname.certificate_failed` only: why the renewal fails. */
  problem?: { code: string; message: string };
}

/** A delivery's body, discriminated by `event`: `switch (e.event) { case 'hostname.active': … }`. */
export type HostgateEvent = {
  [K in WebhookEventKind]: { id: string; event: K; created_at: string; data: HostgateEventData };
}[WebhookEventKind];

const isString = (v: unknown): v is string => typeof v === 'string';

function checkEvent(value: WebhookEvent): HostgateEvent {
  const e = value as unknown as Record<string, unknown>;
  const data = e.data as Record<string, unknown> | null | undefined;
  if (!EVENT_KINDS.includes(e.event as WebhookEventKind)) {
    throw new WebhookVerificationError('invalid_payload', `unknown event kind ${JSON.stringify(e.event)}: this SDK knows ${EVENT_KINDS.join(', ')} (a newer SDK may know more)`);
  }
  const ok = isString(e.created_at) && !!data && typeof data === 'object' && isString(data.id) && isString(data.hostname) && isString(data.status)
    && isString(data.destination_id) && (data.external_customer_id === null || isString(data.external_customer_id));
  if (!ok) throw new WebhookVerificationError('invalid_payload', 'the signed body is not a Hostgate event: expected {id, event, created_at, data: {id, hostname, status, destination_id, external_customer_id}}');
  return value as unknown as HostgateEvent;
}

export const webhooks = {
  /**
   * Verifies a delivery's `Service-Signature` against the raw body and the endpoint secret (or
   * secrets, while rotating) and returns the event. Throws `WebhookVerificationError` when the
   * header is missing or malformed, no signature matches, or the timestamp is more than
   * `toleranceSeconds` (default 300) away from now, in the past or in the future.
   */
  verify(rawBody: RawBody, header: SignatureHeaderValue, secret: string | readonly string[], options?: VerifyOptions): WebhookEvent {
    return verifyWebhook(rawBody, header, secret, options);
  },
  /** `verify`, then checks the event's shape: the event typed by its kind. */
  constructEvent(rawBody: RawBody, header: SignatureHeaderValue, secret: string | readonly string[], options?: VerifyOptions): HostgateEvent {
    return checkEvent(verifyWebhook(rawBody, header, secret, options));
  },
  /** A valid `Service-Signature` for `body` (to test your receiver): `t=<timestamp>,v1=<hmac>`. */
  signatureHeader(body: RawBody, secret: string | readonly string[], timestamp?: number): string {
    return signatureHeader(body, secret, timestamp);
  },
  computeSignature,
  SIGNATURE_HEADER,
  EVENT_ID_HEADER,
};
