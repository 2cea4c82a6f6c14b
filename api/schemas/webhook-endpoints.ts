import { Type } from 'typebox';
import { eventKinds } from '../../model/domain-status.ts';
import { IdParams, named, StringEnum, Timestamp } from './common.ts';

const eventsDescription = `Subscribed event kinds: ["*"] (every event) or a list of ${eventKinds.map((k) => `\`${k}\``).join(', ')}`;

/** An entry of an endpoint's `events`: an event kind, or `*` for every kind. */
export const SubscribedEvent = named('SubscribedEvent', StringEnum([...eventKinds, '*'], { description: 'An event kind, or `*` for every kind (alone)' }));

const endpointFields = {
  id: Type.String({ description: 'Identifier (whe_…)' }),
  url: Type.String({ description: 'HTTPS URL deliveries are POSTed to' }),
  description: Type.Union([Type.String(), Type.Null()], { description: 'Your note about the endpoint; null when none' }),
  events: Type.Array(SubscribedEvent, { description: eventsDescription }),
  enabled: Type.Boolean({ description: 'False: no deliveries are made' }),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the endpoint is disabled: `manual` (PATCH enabled=false) or set by delivery (e.g. `gone`: the endpoint answered 410 Gone); null when enabled' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

// The resource as every read answers it: no secret (responses are serialized through this
// schema, so a field absent here never leaves the API).
export const WebhookEndpoint = named('WebhookEndpoint', Type.Object(endpointFields, { description: 'Where Hostgate POSTs signed events (never shows its secret)' }));

const Secret = Type.String({ pattern: '^whsec_[0-9a-z]{32}$', description: 'Signing secret (whsec_…). Shown only in this response: store it now.' });

/** The creation response: the endpoint plus its secret, shown once. */
export const WebhookEndpointWithSecret = named('WebhookEndpointWithSecret', Type.Object({
  ...endpointFields,
  secret: Secret,
}, { description: 'A new webhook endpoint with its signing secret (shown only once)' }));

/** The rotate-secret response: the endpoint, its new secret, and until when the old one still signs. */
export const RotatedWebhookEndpoint = named('RotatedWebhookEndpoint', Type.Object({
  ...endpointFields,
  secret: Secret,
  previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'Until then deliveries carry a second `v1=` signature made with the previous secret' }),
}, { description: 'A webhook endpoint with its new signing secret (shown only once)' }));

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'https URL with any port, path and query; no credentials or fragment; the host must be public' });
// Unknown kinds are named by the route's own check (with the known ones in `details`) before the
// schema's enum would refuse them: api/routes/webhook-endpoints.ts.
const Events = (description: string) => Type.Array(SubscribedEvent, { minItems: 1, maxItems: 32, uniqueItems: true, description });
const Description = Type.String({ maxLength: 500, description: 'Your note about the endpoint (up to 500 characters)' });

export const CreateWebhookEndpointBody = Type.Object({
  url: Url,
  events: Type.Optional(Events(`${eventsDescription}. Default ["*"]`)),
  description: Type.Optional(Description),
}, { additionalProperties: false });

export const UpdateWebhookEndpointBody = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(Events(`${eventsDescription}. Narrowing it cancels the pending deliveries of the kinds dropped`)),
  enabled: Type.Optional(Type.Boolean({ description: 'true re-enables (and clears disabled_reason); false pauses deliveries' })),
  description: Type.Optional(Type.Union([Description, Type.Null()], { description: 'null clears it' })),
}, { additionalProperties: false, description: 'At least one field' });

export const WebhookEndpointIdParams = IdParams('webhook endpoint');
