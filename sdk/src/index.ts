// @hostgate/sdk: the official TypeScript client of the Hostgate API. See sdk/README.md.
export { Hostgate, Hostgate as default } from './client.ts';
export {
  HostgateError, HostgateInvalidRequestError, HostgateAuthenticationError, HostgatePermissionError,
  HostgateNotFoundError, HostgateConflictError, HostgateRateLimitError, HostgateInternalError,
  HostgateUnavailableError, HostgateConnectionError, HostgateTimeoutError,
} from './errors.ts';
export { PageList, type Page } from './pagination.ts';
export type { ClientOptions, ReadOptions, RequestOptions, ResponseMeta, WithResponse, WriteOptions } from './transport.ts';
export type { CheckoutOptions } from './resources/billing.ts';
export * from './types.ts';
export { webhooks, WebhookVerificationError, EVENT_KINDS, SIGNATURE_HEADER, EVENT_ID_HEADER, DEFAULT_TOLERANCE_SECONDS } from './webhooks.ts';
export type { HostgateEvent, HostgateEventData, VerifyOptions, WebhookEvent, WebhookEventKind } from './webhooks.ts';
export type { paths as OpenApiPaths } from './openapi.ts';
export { VERSION } from './version.ts';
