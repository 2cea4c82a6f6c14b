// @hostgate/sdk: the official TypeScript client of the Hostgate API. See sdk/README.md.
export { Hostgate, Hostgate as default } from "./client.js";
export { HostgateError, HostgateInvalidRequestError, HostgateAuthenticationError, HostgatePermissionError, HostgateNotFoundError, HostgateConflictError, HostgateRateLimitError, HostgateInternalError, HostgateUnavailableError, HostgateConnectionError, HostgateTimeoutError, } from "./errors.js";
export { PageList } from "./pagination.js";
export * from "./types.js";
export { webhooks, WebhookVerificationError, EVENT_KINDS, SIGNATURE_HEADER, EVENT_ID_HEADER, DEFAULT_TOLERANCE_SECONDS } from "./webhooks.js";
export { VERSION } from "./version.js";
