import { Type, type Static } from 'typebox';
import { newApiKeySecret, sha256 } from '../../security/tokens.ts';
import { listenToChannel, type ChannelListener } from '../channel-listener.ts';
import { newId } from '../ids.ts';
import { row, sql, type Db } from '../pool.ts';

export const scopes = ['destinations:write', 'domains:write', 'webhooks:write', 'widget:write', 'billing:write'] as const;
export type Scope = (typeof scopes)[number];

export function isScope(value: string): value is Scope {
  return (scopes as readonly string[]).includes(value);
}

export const ApiKeyRow = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  display_prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
});
export type ApiKeyRow = Static<typeof ApiKeyRow>;

const Key = row(ApiKeyRow);
const columns = sql.fragment`id, organization_id, name, display_prefix, scopes, created_at, last_used_at, revoked_at`;

export function apiKeysRepository(db: Db) {
  return {
    /** Creates a key and returns its secret. The secret is not stored and cannot be shown again. */
    async create(input: { organizationId: string; scopes: readonly Scope[]; name?: string }): Promise<{ key: ApiKeyRow; secret: string }> {
      const secret = newApiKeySecret();
      const key = await db.one(sql.type(Key)`
        insert into api_keys (id, organization_id, name, display_prefix, secret_hash, scopes)
        values (${newId('apiKey')}, ${input.organizationId}, ${input.name ?? null}, ${secret.slice(0, 12)},
                ${sql.binary(sha256(secret))}, ${sql.array([...new Set(input.scopes)], 'text')})
        returning ${columns}`);
      return { key, secret };
    },
    /** Finds a live key by its secret (hash lookup; the secret itself never reaches the database). */
    async authenticate(secret: string): Promise<ApiKeyRow | null> {
      return db.maybeOne(sql.type(Key)`
        select ${columns} from api_keys where secret_hash = ${sql.binary(sha256(secret))} and revoked_at is null`);
    },
    async list(organizationId?: string): Promise<readonly ApiKeyRow[]> {
      const where = organizationId ? sql.fragment`where organization_id = ${organizationId}` : sql.fragment``;
      return db.any(sql.type(Key)`select ${columns} from api_keys ${where} order by created_at, id`);
    },
    async revoke(id: string): Promise<ApiKeyRow | null> {
      return db.maybeOne(sql.type(Key)`
        update api_keys set revoked_at = coalesce(revoked_at, hg_now()) where id = ${id} returning ${columns}`);
    },
  };
}

/** Migration 024's triggers notify a key's id here when it is revoked, changed or deleted (at commit). */
export const API_KEYS_CHANNEL = 'hostgate_api_keys';

/** LISTEN for changed keys on a connection of its own (db/channel-listener.ts); the payload is a key id. */
export function listenForApiKeyChanges(databaseUrl: string, handlers: {
  onKeyChanged: (keyId: string) => void;
  onListening: () => void;
  onLost: (error: unknown) => void;
}): ChannelListener {
  return listenToChannel(databaseUrl, API_KEYS_CHANNEL, {
    onPayload: handlers.onKeyChanged,
    onListening: handlers.onListening,
    onLost: handlers.onLost,
  }, { applicationName: 'hostgate-api-key-feed' });
}
