// Widget sessions: a short-lived bearer token for the browser, bound to an organization, an
// external customer, an origin allowlist and (optionally) a destination. Only the SHA-256 of the
// token is stored; lookups go through the unique index on the hash. Also the queries on `domains`
// that are about widget sessions: which domains a session sees, and handing one over.
import type { DatabaseTransactionConnection } from 'slonik';
import { Type, type Static } from 'typebox';
import { newWidgetToken, sha256 } from '../../security/tokens.ts';
import { newId } from '../ids.ts';
import { afterCursor, toPage, type Page, type PageRequest } from '../pagination.ts';
import { row, sql, type Db } from '../pool.ts';
import { DomainRow } from './domains.ts';

/** Token lifetime (spec: 1800 seconds). */
export const WIDGET_TOKEN_TTL_SECONDS = 1800;

export const WidgetSessionRow = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  external_customer_id: Type.String(),
  allowed_origins: Type.Union([Type.Array(Type.String()), Type.Null()]),
  destination_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  expires_at: Type.String(),
});
export type WidgetSessionRow = Static<typeof WidgetSessionRow>;

const Session = row(WidgetSessionRow);
const Authenticated = row(Type.Object({ ...WidgetSessionRow.properties, expired: Type.Boolean(), key_revoked: Type.Boolean() }));
const Exists = row(Type.Object({ exists: Type.Boolean() }));
const columns = sql.fragment`id, organization_id, external_customer_id, allowed_origins, destination_id, created_at, expires_at`;
const CustomerDomain = row(DomainRow);
const domainColumns = sql.join(Object.keys(DomainRow.properties).map((c) => sql.identifier([c])), sql.fragment`, `);

export function widgetSessionsRepository(db: Db) {
  return {
    /** Creates a session and returns its token, which is not stored and cannot be shown again. */
    /** `apiKeyId`: the key that asks (revoking it ends the session); null for the development demo's. */
    async create(input: { organizationId: string; externalCustomerId: string; allowedOrigins: readonly string[] | null; destinationId: string | null; apiKeyId: string | null; ttlSeconds?: number }, conn: Pick<DatabaseTransactionConnection, 'one'> = db): Promise<{ session: WidgetSessionRow; token: string }> {
      const token = newWidgetToken();
      const origins = input.allowedOrigins === null ? null : sql.array([...new Set(input.allowedOrigins)], 'text');
      const session = await conn.one(sql.type(Session)`
        insert into widget_sessions (id, organization_id, token_hash, external_customer_id, allowed_origins, destination_id, api_key_id, expires_at)
        values (${newId('widgetSession')}, ${input.organizationId}, ${sql.binary(sha256(token))}, ${input.externalCustomerId},
                ${origins}, ${input.destinationId}, ${input.apiKeyId}, hg_now() + make_interval(secs => ${input.ttlSeconds ?? WIDGET_TOKEN_TTL_SECONDS}))
        returning ${columns}`);
      return { session, token };
    },

    /**
     * The session of a token, expired or not, and whether the API key that created it has been
     * revoked since (the caller answers each differently); null when unknown.
     */
    async authenticate(token: string): Promise<(WidgetSessionRow & { expired: boolean; key_revoked: boolean }) | null> {
      return db.maybeOne(sql.type(Authenticated)`
        select ${sql.join(['id', 'organization_id', 'external_customer_id', 'allowed_origins', 'destination_id', 'created_at', 'expires_at'].map((c) => sql.identifier(['s', c])), sql.fragment`, `)},
          s.expires_at <= hg_now() as expired, coalesce(k.revoked_at is not null, false) as key_revoked
        from widget_sessions s left join api_keys k on k.id = s.api_key_id
        where s.token_hash = ${sql.binary(sha256(token))}`);
    },

    async get(id: string): Promise<WidgetSessionRow | null> {
      return db.maybeOne(sql.type(Session)`select ${columns} from widget_sessions where id = ${id}`);
    },

    /**
     * The domains a widget session may see (docs/api-decisions.md, "Widget", resume): those
     * created through any widget session of the same organization and external customer (the
     * vendor's server vouches for the customer each time it creates a session), except deleted
     * ones; newest first, one keyset page.
     */
    async customerDomains(organizationId: string, externalCustomerId: string, page: PageRequest): Promise<Page<DomainRow>> {
      const rows = await db.any(sql.type(CustomerDomain)`
        select ${domainColumns} from domains
        where organization_id = ${organizationId} and external_customer_id = ${externalCustomerId}
          and widget_session_id is not null and status <> 'deleted' and ${afterCursor(page.cursor)}
        order by created_at desc, id desc limit ${page.limit + 1}`);
      return toPage(rows, page.limit, (d) => d);
    },

    /** The live domain of `hostname` when the same customer's widget sessions created it (re-entering a hostname continues with it). */
    async customerDomainByHostname(organizationId: string, externalCustomerId: string, hostname: string): Promise<DomainRow | null> {
      return db.maybeOne(sql.type(CustomerDomain)`
        select ${domainColumns} from domains
        where organization_id = ${organizationId} and external_customer_id = ${externalCustomerId}
          and widget_session_id is not null and status <> 'deleted' and hostname = ${hostname}`);
    },

    /**
     * Moves a domain from the session that created it to the session that replaces it (the widget
     * hands its domain over when the host page gives it a new token). Idempotent: true when the
     * domain is (now) the new session's, false when it belongs to neither.
     */
    async handOver(domainId: string, fromSessionId: string, toSessionId: string): Promise<boolean> {
      const moved = await db.maybeOne(sql.type(Exists)`
        update domains set widget_session_id = ${toSessionId}
        where id = ${domainId} and widget_session_id in (${fromSessionId}, ${toSessionId})
        returning true as exists`);
      return moved !== null;
    },

    /** Test and operator helper: ends a session now (its token answers widget_token_expired). */
    async expire(id: string): Promise<void> {
      await db.query(sql.unsafe`update widget_sessions set expires_at = hg_now() - interval '1 millisecond' where id = ${id}`);
    },
  };
}
