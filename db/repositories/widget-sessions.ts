// Widget sessions: a short-lived bearer token for the browser, bound to an organization, an
// external customer, an origin allowlist and (optionally) a destination. Only the SHA-256 of the
// token is stored; lookups go through the unique index on the hash.
import type { DatabaseTransactionConnection } from 'slonik';
import { Type, type Static } from 'typebox';
import { newWidgetToken, sha256 } from '../../security/tokens.ts';
import { newId } from '../ids.ts';
import { row, sql, type Db } from '../pool.ts';

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
const Authenticated = row(Type.Object({ ...WidgetSessionRow.properties, expired: Type.Boolean() }));
const Exists = row(Type.Object({ exists: Type.Boolean() }));
const columns = sql.fragment`id, organization_id, external_customer_id, allowed_origins, destination_id, created_at, expires_at`;

export function widgetSessionsRepository(db: Db) {
  return {
    /** Creates a session and returns its token, which is not stored and cannot be shown again. */
    async create(input: { organizationId: string; externalCustomerId: string; allowedOrigins: readonly string[] | null; destinationId: string | null; ttlSeconds?: number }, conn: Pick<DatabaseTransactionConnection, 'one'> = db): Promise<{ session: WidgetSessionRow; token: string }> {
      const token = newWidgetToken();
      const origins = input.allowedOrigins === null ? null : sql.array([...new Set(input.allowedOrigins)], 'text');
      const session = await conn.one(sql.type(Session)`
        insert into widget_sessions (id, organization_id, token_hash, external_customer_id, allowed_origins, destination_id, expires_at)
        values (${newId('widgetSession')}, ${input.organizationId}, ${sql.binary(sha256(token))}, ${input.externalCustomerId},
                ${origins}, ${input.destinationId}, hg_now() + make_interval(secs => ${input.ttlSeconds ?? WIDGET_TOKEN_TTL_SECONDS}))
        returning ${columns}`);
      return { session, token };
    },

    /** The session of a token, expired or not (the caller answers differently); null when unknown. */
    async authenticate(token: string): Promise<(WidgetSessionRow & { expired: boolean }) | null> {
      return db.maybeOne(sql.type(Authenticated)`
        select ${columns}, expires_at <= hg_now() as expired from widget_sessions where token_hash = ${sql.binary(sha256(token))}`);
    },

    async get(id: string): Promise<WidgetSessionRow | null> {
      return db.maybeOne(sql.type(Session)`select ${columns} from widget_sessions where id = ${id}`);
    },

    /**
     * Whether any session that is live, or expired less than `graceSeconds` ago, accepts `origin`
     * (`defaultAllowed`: whether a session without an allowlist would). CORS preflights carry no
     * token, so this is the only question they can be answered by.
     */
    async originInUse(origin: string, defaultAllowed: boolean, graceSeconds: number): Promise<boolean> {
      const row = await db.one(sql.type(Exists)`
        select exists (
          select 1 from widget_sessions
          where expires_at > hg_now() - make_interval(secs => ${graceSeconds})
            and (${origin} = any(allowed_origins) or (allowed_origins is null and ${defaultAllowed}))
        ) as exists`);
      return row.exists;
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
