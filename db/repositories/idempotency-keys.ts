import type { DatabaseTransactionConnection } from 'slonik';
import { Type } from 'typebox';
import type { SecretBox } from '../../security/secret-box.ts';
import { row, sql, type Db } from '../pool.ts';

const Existing = row(Type.Object({
  method: Type.String(),
  path: Type.String(),
  body_hash: Type.Unknown(),
  state: Type.Union([Type.Literal('in_flight'), Type.Literal('completed')]),
  response_status: Type.Union([Type.Number(), Type.Null()]),
  response_body_enc: Type.Union([Type.Unknown(), Type.Null()]),
  response_key_id: Type.Union([Type.String(), Type.Null()]),
  expired: Type.Boolean(),
  abandoned: Type.Boolean(),
}));
// Compiled once: a row() schema compiles a validator, which per call cost creates ~5 % of the
// API's CPU in bench:api (node --cpu-prof).
const CreatedAtRow = row(Type.Object({ created_at: Type.String() }));
const KeyRow = row(Type.Object({ key: Type.String() }));

export type ClaimResult =
  /** `claimedAt` tells this claim apart from a later one on the same key (after a takeover). */
  | { kind: 'claimed'; claimedAt: string }
  | { kind: 'mismatch' }
  | { kind: 'in_flight' }
  | { kind: 'replay'; status: number; body: unknown };

/** The claim this answer belongs to no longer exists (released or taken over): the write must not commit. */
export class IdempotencyClaimLostError extends Error {
  constructor() { super('the Idempotency-Key claim of this request is gone (released or taken over by a retry)'); this.name = 'IdempotencyClaimLostError'; }
}

/** Kept at least 24 h (decisions.md); purged after that. */
export const RETENTION_HOURS = 24;
/**
 * An in-flight claim older than this belongs to a request that died (or whose release failed
 * because Postgres was away); the key may be retried. A request's every Postgres call is bounded
 * (db/pool.ts), so none runs this long; and if one ever did, the claim's creation time makes its
 * late completion fail (`completeWithin`) instead of overwriting the new claim. 60 s kept every
 * retry of a request caught by a Postgres freeze at 409 idempotency_key_in_use for a minute
 * (npm run chaos).
 */
export const ABANDONED_AFTER_SECONDS = 15;

const context = (scope: string, key: string) => `idempotency:${scope}:${key}`;

export function idempotencyRepository(db: Db, box: SecretBox) {
  return {
    /**
     * Claims (scope, key) for one request. The insert is the lock: of fifty concurrent requests
     * exactly one inserts; the others see its row (in flight, or completed and replayable).
     */
    async claim(input: { scope: string; key: string; method: string; path: string; bodyHash: Buffer }): Promise<ClaimResult> {
      for (let attempt = 0; attempt < 3; attempt++) {
        // Committed without waiting for its WAL flush (synchronous_commit off for this one
        // statement's transaction; issue 26: under a burst of creates the claim's flush was a
        // third of the Postgres waits). Safe: the claim is a marker for the request's own
        // duration. The write it guards commits synchronously, which flushes the WAL up to its own
        // commit record and so the claim's before it; a crash that loses the claim loses a
        // request that had not committed anything and was never answered, whose retry claims again.
        const inserted = await db.maybeOneFirst(sql.type(CreatedAtRow)`
          insert into idempotency_keys (scope, key, method, path, body_hash, expires_at)
          select ${input.scope}, ${input.key}, ${input.method}, ${input.path}, ${sql.binary(input.bodyHash)}, hg_now() + make_interval(hours => ${RETENTION_HOURS})
          from (select set_config('synchronous_commit', 'off', true)) as async_commit
          on conflict (scope, key) do nothing returning created_at`);
        if (inserted) return { kind: 'claimed', claimedAt: inserted };
        const existing = await db.maybeOne(sql.type(Existing)`
          select method, path, body_hash, state, response_status, response_body_enc, response_key_id,
                 expires_at < hg_now() as expired,
                 (state = 'in_flight' and created_at < hg_now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS})) as abandoned
          from idempotency_keys where scope = ${input.scope} and key = ${input.key}`);
        if (!existing) continue; // purged between the two statements: try the insert again
        if (existing.expired || existing.abandoned) {
          // A key reused after expiry is a new request; an abandoned claim is taken over.
          await db.query(sql.unsafe`delete from idempotency_keys where scope = ${input.scope} and key = ${input.key}
            and (expires_at < hg_now() or (state = 'in_flight' and created_at < hg_now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS})))`);
          continue;
        }
        const sameRequest = existing.method === input.method && existing.path === input.path
          && Buffer.isBuffer(existing.body_hash) && existing.body_hash.equals(input.bodyHash);
        if (!sameRequest) return { kind: 'mismatch' };
        if (existing.state === 'in_flight') return { kind: 'in_flight' };
        const body = Buffer.isBuffer(existing.response_body_enc) && existing.response_key_id
          ? JSON.parse(box.open({ keyId: existing.response_key_id, ciphertext: existing.response_body_enc }, context(input.scope, input.key)).toString('utf8')) as unknown
          : null;
        return { kind: 'replay', status: existing.response_status ?? 200, body };
      }
      return { kind: 'in_flight' };
    },

    async complete(scope: string, key: string, claimedAt: string, status: number, body: unknown): Promise<void> {
      const sealed = box.seal(JSON.stringify(body ?? null), context(scope, key));
      await db.query(sql.unsafe`update idempotency_keys set state = 'completed', response_status = ${status},
          response_body_enc = ${sql.binary(sealed.ciphertext)}, response_key_id = ${sealed.keyId}
        where scope = ${scope} and key = ${key} and state = 'in_flight' and created_at = ${claimedAt}::timestamptz`);
    },

    /**
     * `complete` inside the caller's transaction (the one that makes the write), so the answer
     * commits with the write. Throws IdempotencyClaimLostError when the claim is gone.
     */
    async completeWithin(tx: DatabaseTransactionConnection, scope: string, key: string, claimedAt: string, status: number, body: unknown): Promise<void> {
      const sealed = box.seal(JSON.stringify(body ?? null), context(scope, key));
      const updated = await tx.maybeOneFirst(sql.type(KeyRow)`update idempotency_keys set state = 'completed', response_status = ${status},
          response_body_enc = ${sql.binary(sealed.ciphertext)}, response_key_id = ${sealed.keyId}
        where scope = ${scope} and key = ${key} and state = 'in_flight' and created_at = ${claimedAt}::timestamptz returning key`);
      if (!updated) throw new IdempotencyClaimLostError();
    },

    /**
     * An answer (JSON text) sealed for (scope, key), for a statement that writes it itself
     * (domainsRepository.createAnswered) instead of `completeWithin`.
     */
    seal(scope: string, key: string, json: string): { keyId: string; ciphertext: Buffer } {
      return box.seal(json, context(scope, key));
    },

    /**
     * A request that failed with a 5xx leaves no record, so the same key can be retried — unless
     * its write committed after all (its answer then sits in the record, state 'completed').
     */
    async release(scope: string, key: string, claimedAt: string): Promise<void> {
      await db.query(sql.unsafe`delete from idempotency_keys where scope = ${scope} and key = ${key} and state = 'in_flight' and created_at = ${claimedAt}::timestamptz`);
    },

    purgeExpired: (limit?: number) => purgeExpiredIdempotencyKeys(db, limit),
  };
}

/** Deletes expired records in bounded batches (the worker's maintenance loop calls it). */
export async function purgeExpiredIdempotencyKeys(db: Db, limit = 10_000): Promise<number> {
  const result = await db.query(sql.unsafe`delete from idempotency_keys where ctid in (select ctid from idempotency_keys where expires_at < hg_now() limit ${limit})`);
  return result.rowCount;
}
