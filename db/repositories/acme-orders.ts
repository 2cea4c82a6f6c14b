// ACME orders and their HTTP-01 challenge tokens. An order row holds everything the next step
// needs to resume after a crash: its URLs (order, finalize, challenges), its status as last seen,
// the certificate key (sealed, stored before the CSR leaves) and, once done, the certificate. A
// domain has at most one open order (unique index); the tokens are what edge/ answers the CA with.
import { Type, type Static } from 'typebox';
import { NoRows, row, sql, type Db } from '../pool.ts';
import type { SealedKey } from './acme-accounts.ts';
import { Bytes } from './bytes.ts';

export const orderStatuses = ['pending', 'ready', 'processing', 'valid', 'invalid', 'completed', 'abandoned'] as const;
export type OrderStatus = (typeof orderStatuses)[number];

const OrderRowSchema = Type.Object({
  order_url: Type.String(),
  domain_id: Type.String(),
  directory_url: Type.String(),
  hostname: Type.String(),
  status: Type.Union(orderStatuses.map((s) => Type.Literal(s))),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  private_key_enc: Type.Union([Bytes, Type.Null()]),
  key_id: Type.Union([Type.String(), Type.Null()]),
  certificate_id: Type.Union([Type.String(), Type.Null()]),
  finalize_url: Type.Union([Type.String(), Type.Null()]),
  challenge_urls: Type.Union([Type.Array(Type.String()), Type.Null()]),
});
const OrderRow = row(OrderRowSchema);
export type OrderRow = Static<typeof OrderRowSchema>;
const orderColumns = sql.fragment`order_url, domain_id, directory_url, hostname, status, expires_at, private_key_enc, key_id, certificate_id, finalize_url, challenge_urls`;
const DomainRow = row(Type.Object({ hostname: Type.String(), status: Type.String(), open_order_url: Type.Union([Type.String(), Type.Null()]) }));

/** A challenge token and the key authorization the challenge listener answers it with. */
export interface ChallengeToken { token: string; keyAuthorization: string }

/** A new order as the CA described it. */
export interface PlacedOrder {
  orderUrl: string; domainId: string; directoryUrl: string; hostname: string; status: string;
  expiresAt: string | null; finalizeUrl: string | null; challengeUrls: string[] | null; tokens: ChallengeToken[];
}

const tokenArrays = (tokens: readonly ChallengeToken[]) => sql.fragment`
  unnest(${sql.array(tokens.map((r) => r.token), 'text')}::text[], ${sql.array(tokens.map((r) => r.keyAuthorization), 'text')}::text[]) as c (token, key_authorization)`;

export function acmeOrdersRepository(db: Db) {
  return {
    /** The domain's hostname and status, and the URL of its open order if it has one. */
    domainWithOpenOrder(domainId: string) {
      return db.maybeOne(sql.type(DomainRow)`
      select d.hostname, d.status, (select o.order_url from acme_orders o where o.domain_id = d.id and o.status not in ('invalid', 'completed', 'abandoned')) as open_order_url
      from domains d where d.id = ${domainId}`);
    },

    byUrl(orderUrl: string) {
      return db.maybeOne(sql.type(OrderRow)`select ${orderColumns} from acme_orders where order_url = ${orderUrl}`);
    },

    /** The order, if it is this domain's. */
    ofDomain(domainId: string, orderUrl: string) {
      return db.maybeOne(sql.type(OrderRow)`select ${orderColumns} from acme_orders where order_url = ${orderUrl} and domain_id = ${domainId}`);
    },

    openOfDomain(domainId: string) {
      return db.maybeOne(sql.type(OrderRow)`
      select ${orderColumns} from acme_orders where domain_id = ${domainId} and status not in ('invalid', 'completed', 'abandoned')`);
    },

    /**
     * Records a new order with its URLs and tokens in one statement; null when the domain already
     * has an open order (then nothing is written).
     */
    insertWithTokens(order: PlacedOrder) {
      return db.maybeOne(sql.type(OrderRow)`
      with placed as (
        insert into acme_orders (order_url, domain_id, directory_url, hostname, status, expires_at, finalize_url, challenge_urls)
        values (${order.orderUrl}, ${order.domainId}, ${order.directoryUrl}, ${order.hostname}, ${order.status}, ${order.expiresAt}, ${order.finalizeUrl},
                ${order.challengeUrls ? sql.array(order.challengeUrls, 'text') : null}::text[])
        on conflict do nothing returning ${orderColumns}
      ), tokens as (
        insert into acme_challenges (token, key_authorization, domain_id)
        select token, key_authorization, ${order.domainId}
        from ${tokenArrays(order.tokens)}
        where exists (select 1 from placed)
        on conflict (token) do nothing
      )
      select * from placed`);
    },

    /** Stores tokens (a re-run after they were lost); tokens already stored stay. */
    async insertTokens(domainId: string, tokens: readonly ChallengeToken[]): Promise<void> {
      if (tokens.length === 0) return;
      await db.query(sql.type(NoRows)`
      insert into acme_challenges (token, key_authorization, domain_id)
      select token, key_authorization, ${domainId} from ${tokenArrays(tokens)}
      on conflict (token) do nothing`);
    },

    /** The status the CA reported (and its problem, if any); a completed order stays completed. */
    async setStatus(orderUrl: string, status: OrderStatus, error: object | null = null): Promise<void> {
      await db.query(sql.type(NoRows)`
      update acme_orders set status = ${status}, error = coalesce(${error ? sql.jsonb(error as never) : null}::jsonb, error), updated_at = hg_now()
      where order_url = ${orderUrl} and status <> 'completed'`);
    },

    /** Ends an order that can no longer succeed: its key is dropped and the domain's tokens go. */
    async close(order: Pick<OrderRow, 'order_url' | 'domain_id'>, status: 'invalid' | 'abandoned', error: object | null): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.query(sql.type(NoRows)`
        update acme_orders set status = ${status}, error = ${error ? sql.jsonb(error as never) : null}::jsonb, private_key_enc = null, key_id = null, updated_at = hg_now()
        where order_url = ${order.order_url} and status <> 'completed'`);
        await tx.query(sql.type(NoRows)`delete from acme_challenges where domain_id = ${order.domain_id}`);
      });
    },

    /**
     * The open order with a certificate key stored if it had none yet (`candidate`; an order that
     * has one keeps it), marked `ready` when `markReady` and still `pending`; null when the order
     * is not this domain's open one.
     */
    keyOpenOrder(domainId: string, orderUrl: string, candidate: SealedKey, markReady: boolean) {
      return db.maybeOne(sql.type(OrderRow)`
      update acme_orders set private_key_enc = coalesce(private_key_enc, ${sql.binary(candidate.ciphertext)}), key_id = coalesce(key_id, ${candidate.keyId}),
        status = case when ${markReady} and status = 'pending' then 'ready' else status end,
        updated_at = case when private_key_enc is null then hg_now() else updated_at end
      where order_url = ${orderUrl} and domain_id = ${domainId} and status not in ('invalid', 'completed', 'abandoned')
      returning ${orderColumns}`);
    },

    /** Stores `sealed` as the order's key unless one is stored already; returns the row either way. */
    async storeKeyIfAbsent(orderUrl: string, sealed: SealedKey): Promise<OrderRow> {
      // A concurrent attempt that stored its key first wins: then we read and use that one.
      return await db.maybeOne(sql.type(OrderRow)`
      update acme_orders set private_key_enc = ${sql.binary(sealed.ciphertext)}, key_id = ${sealed.keyId}, updated_at = hg_now()
      where order_url = ${orderUrl} and private_key_enc is null returning ${orderColumns}`)
        ?? await db.one(sql.type(OrderRow)`select ${orderColumns} from acme_orders where order_url = ${orderUrl}`);
    },

    /** Directories that marked one of the domain's orders invalid over CAA within `withinMs` (issue 22: the next CA is asked). */
    async directoriesRefusingOverCaa(domainId: string, withinMs: number): Promise<string[]> {
      return [...await db.anyFirst(sql.type(row(Type.Object({ directory_url: Type.String() })))`
        select distinct directory_url from acme_orders
        where domain_id = ${domainId} and status = 'invalid' and error->>'type' = 'urn:ietf:params:acme:error:caa'
          and updated_at > hg_now() - make_interval(secs => ${withinMs / 1000})`)];
    },
  };
}

export type AcmeOrdersRepository = ReturnType<typeof acmeOrdersRepository>;
