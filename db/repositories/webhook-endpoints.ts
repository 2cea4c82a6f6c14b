// Webhook endpoints. The signing secret is stored only sealed with SecretBox (AES-256-GCM), bound
// to its row by the AAD context `webhook_endpoint:<id>:secret`; the plaintext is returned once, by
// `create` and `rotateSecret`, and otherwise only to the delivery code through `signingSecrets`.
// A rotation keeps the replaced secret as "previous" for 24 h, so receivers can roll over.
import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import { Type, type Static } from 'typebox';
import type { SecretBox } from '../../security/secret-box.ts';
import { randomToken } from '../../security/tokens.ts';
import { newId } from '../ids.ts';
import { afterCursor, toPage, type Page } from '../pagination.ts';
import { row, sql, type Db } from '../pool.ts';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** How long a rotated-out secret keeps signing beside the new one (decisions.md, "Lists, …"). */
export const PREVIOUS_SECRET_TTL_HOURS = 24;
/** `disabled_reason` when the endpoint was disabled through the API (PATCH enabled=false). */
export const DISABLED_MANUALLY = 'manual';

const Bytes = Type.Refine(Type.Unsafe<Buffer>({}), (v) => Buffer.isBuffer(v), () => 'must be bytea');

export const WebhookEndpointRow = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  secret_enc: Bytes,
  secret_key_id: Type.String(),
  previous_secret_enc: Type.Union([Bytes, Type.Null()]),
  previous_secret_key_id: Type.Union([Type.String(), Type.Null()]),
  previous_secret_expires_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type WebhookEndpointRow = Static<typeof WebhookEndpointRow>;
const Endpoint = row(WebhookEndpointRow);
const columns = sql.fragment`id, organization_id, url, description, events, enabled, disabled_reason, secret_enc, secret_key_id,
  previous_secret_enc, previous_secret_key_id, previous_secret_expires_at, created_at, updated_at`;

export interface WebhookEndpointPatch {
  url?: string | undefined;
  events?: readonly string[] | undefined;
  enabled?: boolean | undefined;
  /** null clears it. */
  description?: string | null | undefined;
}

export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomToken(32);
}

/** The AAD that binds a sealed secret to its endpoint (current and previous use the same one). */
export function secretContext(endpointId: string): string {
  return `webhook_endpoint:${endpointId}:secret`;
}

/**
 * The secrets to sign a delivery with, newest first: the current secret, then the previous one
 * while it has not expired (at `now`). Deliveries carry one `v1=` signature per secret.
 */
export function openSigningSecrets(box: SecretBox, endpoint: WebhookEndpointRow, now: Date = new Date()): string[] {
  const context = secretContext(endpoint.id);
  const secrets = [box.open({ keyId: endpoint.secret_key_id, ciphertext: endpoint.secret_enc }, context).toString('utf8')];
  if (endpoint.previous_secret_enc && endpoint.previous_secret_key_id && endpoint.previous_secret_expires_at
    && Date.parse(endpoint.previous_secret_expires_at) > now.getTime()) {
    secrets.push(box.open({ keyId: endpoint.previous_secret_key_id, ciphertext: endpoint.previous_secret_enc }, context).toString('utf8'));
  }
  return secrets;
}

/**
 * `box` may be given lazily: reads work without encryption keys configured; only the operations
 * that seal or open a secret need them (SecretBox throws a clear error when none are configured).
 */
export function webhookEndpointsRepository(db: Db, box: SecretBox | (() => SecretBox)) {
  let resolved: SecretBox | null = typeof box === 'function' ? null : box;
  const secretBox = (): SecretBox => (resolved ??= (box as () => SecretBox)());
  const live = (organizationId: string, id: string) => sql.fragment`id = ${id} and organization_id = ${organizationId} and deleted_at is null`;

  return {
    /** Creates an endpoint; `secret` is the only time the plaintext leaves this module for the API. */
    async create(input: { organizationId: string; url: string; events: readonly string[]; description?: string | null | undefined }, conn: Pick<DatabaseTransactionConnection, 'one'> = db): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
      const id = newId('webhookEndpoint');
      const secret = newWebhookSecret();
      const sealed = secretBox().seal(secret, secretContext(id));
      const endpoint = await conn.one(sql.type(Endpoint)`
        insert into webhook_endpoints (id, organization_id, url, description, events, secret_enc, secret_key_id)
        values (${id}, ${input.organizationId}, ${input.url}, ${input.description ?? null}, ${sql.array([...input.events], 'text')},
                ${sql.binary(sealed.ciphertext)}, ${sealed.keyId})
        returning ${columns}`);
      return { endpoint, secret };
    },

    /** A live endpoint of the organization; another organization's id reads as missing. */
    async get(organizationId: string, id: string): Promise<WebhookEndpointRow | null> {
      return db.maybeOne(sql.type(Endpoint)`select ${columns} from webhook_endpoints where ${live(organizationId, id)}`);
    },

    /** Internal callers only (delivery worker): a live endpoint by id, whatever its organization. */
    async getById(id: string): Promise<WebhookEndpointRow | null> {
      return db.maybeOne(sql.type(Endpoint)`select ${columns} from webhook_endpoints where id = ${id} and deleted_at is null`);
    },

    /** Newest first, keyset pagination on (created_at, id). */
    async list<U>(organizationId: string, page: { limit: number; cursor?: string | undefined }, map: (e: WebhookEndpointRow) => U): Promise<Page<U>> {
      const rows = await db.any(sql.type(Endpoint)`
        select ${columns} from webhook_endpoints
        where organization_id = ${organizationId} and deleted_at is null and ${afterCursor(page.cursor)}
        order by created_at desc, id desc limit ${page.limit + 1}`);
      return toPage(rows, page.limit, map);
    },

    /**
     * Applies the given fields (undefined = unchanged). Enabling clears `disabled_reason`;
     * disabling an enabled endpoint records `manual`, and keeps the reason of one already disabled.
     */
    async update(organizationId: string, id: string, patch: WebhookEndpointPatch, q: CommonQueryMethods = db): Promise<WebhookEndpointRow | null> {
      const sets = [sql.fragment`updated_at = hg_now()`];
      if (patch.url !== undefined) sets.push(sql.fragment`url = ${patch.url}`);
      if (patch.events !== undefined) sets.push(sql.fragment`events = ${sql.array([...patch.events], 'text')}`);
      if (patch.description !== undefined) sets.push(sql.fragment`description = ${patch.description}`);
      if (patch.enabled !== undefined) {
        sets.push(sql.fragment`enabled = ${patch.enabled}`);
        sets.push(patch.enabled
          ? sql.fragment`disabled_reason = null`
          : sql.fragment`disabled_reason = case when enabled then ${DISABLED_MANUALLY} else coalesce(disabled_reason, ${DISABLED_MANUALLY}) end`);
      }
      return q.maybeOne(sql.type(Endpoint)`
        update webhook_endpoints set ${sql.join(sets, sql.fragment`, `)} where ${live(organizationId, id)} returning ${columns}`);
    },

    /** Internal callers only (delivery worker): disables an endpoint, e.g. after a 410 Gone. */
    async disable(id: string, reason: string): Promise<WebhookEndpointRow | null> {
      return db.maybeOne(sql.type(Endpoint)`
        update webhook_endpoints set enabled = false, disabled_reason = ${reason}, updated_at = hg_now()
        where id = ${id} and deleted_at is null returning ${columns}`);
    },

    /** Soft delete; the endpoint then reads as missing and receives no deliveries. */
    async delete(organizationId: string, id: string, q: CommonQueryMethods = db): Promise<WebhookEndpointRow | null> {
      return q.maybeOne(sql.type(Endpoint)`
        update webhook_endpoints set deleted_at = hg_now(), updated_at = hg_now() where ${live(organizationId, id)} returning ${columns}`);
    },

    /**
     * Replaces the secret. The replaced one becomes "previous" and keeps signing for 24 h (a
     * second rotation within that window drops the older previous secret). Returns the new secret.
     */
    async rotateSecret(organizationId: string, id: string, q: CommonQueryMethods = db): Promise<{ endpoint: WebhookEndpointRow; secret: string } | null> {
      const secret = newWebhookSecret();
      const sealed = secretBox().seal(secret, secretContext(id));
      // In UPDATE, the right-hand sides read the row as it was: previous_* take the old secret.
      const endpoint = await q.maybeOne(sql.type(Endpoint)`
        update webhook_endpoints set
          previous_secret_enc = secret_enc,
          previous_secret_key_id = secret_key_id,
          previous_secret_expires_at = hg_now() + make_interval(hours => ${PREVIOUS_SECRET_TTL_HOURS}),
          secret_enc = ${sql.binary(sealed.ciphertext)},
          secret_key_id = ${sealed.keyId},
          updated_at = hg_now()
        where ${live(organizationId, id)} returning ${columns}`);
      return endpoint ? { endpoint, secret } : null;
    },

    /** Current secret first, then the previous one while it has not expired (see openSigningSecrets). */
    signingSecrets(endpoint: WebhookEndpointRow, now: Date = new Date()): string[] {
      return openSigningSecrets(secretBox(), endpoint, now);
    },
  };
}

export type WebhookEndpointsRepository = ReturnType<typeof webhookEndpointsRepository>;
