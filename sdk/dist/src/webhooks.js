// Receiving webhooks: `verify` is the repository's verifier (sdk/webhooks.ts, dependency-free);
// `constructEvent` verifies the same way and also checks the event's shape, returning it typed by
// its kind.
import { computeSignature, DEFAULT_TOLERANCE_SECONDS, EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader, verifyWebhook, WebhookVerificationError, } from "../webhooks.js";
export { DEFAULT_TOLERANCE_SECONDS, EVENT_ID_HEADER, SIGNATURE_HEADER, WebhookVerificationError };
export const EVENT_KINDS = [
    'hostname.created', 'hostname.verified', 'hostname.active', 'hostname.failed',
    'hostname.suspended', 'hostname.deleting', 'hostname.deleted', 'hostname.dns_broken',
    'hostname.updated',
    'hostname.certificate_renewed', 'hostname.certificate_expiring', 'hostname.certificate_failed',
];
const isString = (v) => typeof v === 'string';
function checkEvent(value) {
    const e = value;
    const data = e.data;
    if (!EVENT_KINDS.includes(e.event)) {
        throw new WebhookVerificationError('invalid_payload', `unknown event kind ${JSON.stringify(e.event)}: this SDK knows ${EVENT_KINDS.join(', ')} (a newer SDK may know more)`);
    }
    const ok = isString(e.created_at) && !!data && typeof data === 'object' && isString(data.id) && isString(data.hostname) && isString(data.status)
        && isString(data.destination_id) && (data.external_customer_id === null || isString(data.external_customer_id));
    if (!ok)
        throw new WebhookVerificationError('invalid_payload', 'the signed body is not a Hostgate event: expected {id, event, created_at, data: {id, hostname, status, destination_id, external_customer_id}}');
    return value;
}
export const webhooks = {
    /**
     * Verifies a delivery's `Service-Signature` against the raw body and the endpoint secret (or
     * secrets, while rotating) and returns the event. Throws `WebhookVerificationError` when the
     * header is missing or malformed, no signature matches, or the timestamp is more than
     * `toleranceSeconds` (default 300) away from now, in the past or in the future.
     */
    verify(rawBody, header, secret, options) {
        return verifyWebhook(rawBody, header, secret, options);
    },
    /** `verify`, then checks the event's shape: the event typed by its kind. */
    constructEvent(rawBody, header, secret, options) {
        return checkEvent(verifyWebhook(rawBody, header, secret, options));
    },
    /** A valid `Service-Signature` for `body` (to test your receiver): `t=<timestamp>,v1=<hmac>`. */
    signatureHeader(body, secret, timestamp) {
        return signatureHeader(body, secret, timestamp);
    },
    computeSignature,
    SIGNATURE_HEADER,
    EVENT_ID_HEADER,
};
