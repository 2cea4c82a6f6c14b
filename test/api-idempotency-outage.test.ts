// Issue 14, item 1: a create that committed but whose answer was lost (the connection to Postgres
// died between COMMIT and its acknowledgement) must, on retry with the same Idempotency-Key, get
// the original 201 — not 409 domain_conflict stored as the key's answer. Provoked for real: the
// API talks to Postgres through a loopback proxy that lets COMMIT through and drops its answer.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildApp, type App } from '../api/app.ts';
import { Type } from 'typebox';
import { createDb, row, sql, type Db } from '../db/pool.ts';
import { IdempotencyClaimLostError, idempotencyRepository } from '../db/repositories/idempotency-keys.ts';
import { secretContext } from '../db/repositories/webhook-endpoints.ts';
import { createLogger } from '../logging/logger.ts';
import { SecretBox } from '../security/secret-box.ts';
import { createOrgWithKey, createTestApp, testConfig, type TestApp } from './support/app.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

const IdRow = row(Type.Object({ id: Type.String() }));

describe('idempotent creates across a lost COMMIT acknowledgement', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let proxy: TcpProxy;
  let db: Db;
  let app: App;
  let destinationId: string;
  beforeAll(async () => {
    t = await createTestApp();
    auth = (await createOrgWithKey(t)).auth;
    const target = new URL(t.database.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(t.database.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    db = await createDb(viaProxy.toString(), { maximumPoolSize: 4, statementTimeoutMs: 2000, connectTimeoutMs: 1000, acquireTimeoutMs: 1000 });
    app = await buildApp({ config: testConfig(), db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test') });
    const dest = await app.inject({ method: 'POST', url: '/v1/destinations', headers: { ...auth, 'idempotency-key': 'dest' }, payload: { url: 'https://lost-commit.example.com' } });
    destinationId = dest.json().data.id;
  });
  afterAll(async () => {
    await app.close();
    await db.end().catch(() => undefined);
    await proxy.close();
    await t.close();
  });

  const create = (key: string, hostname: string) => app.inject({ method: 'POST', url: '/v1/domains', headers: { ...auth, 'idempotency-key': key }, payload: { hostname, destination_id: destinationId } });

  it('the retry of a committed create whose 201 was lost gets that 201', async () => {
    const lost = proxy.loseAnswerTo('COMMIT');
    const first = await create('lost-commit-1', 'lost-commit.idem.example');
    await lost;
    // The client saw an outage…
    expect(first.statusCode).toBe(503);
    expect(first.headers['retry-after']).toBe('5');
    // …but the domain committed, with the key's answer in the same transaction.
    const committed = await t.database.db.anyFirst(sql.type(IdRow)`select id from domains where hostname = 'lost-commit.idem.example'`);
    expect(committed).toHaveLength(1);
    const retry = await create('lost-commit-1', 'lost-commit.idem.example');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json().data.id).toBe(committed[0]);
    expect(retry.json().data.hostname).toBe('lost-commit.idem.example');
    // And it stays so (the 201 is the key's answer, not a conflict).
    const again = await create('lost-commit-1', 'lost-commit.idem.example');
    expect([again.statusCode, again.json().data.id]).toEqual([201, committed[0]]);
    const read = await app.inject({ method: 'GET', url: `/v1/domains/${committed[0]}`, headers: auth });
    expect(read.statusCode).toBe(200);
  });

  it('the same holds for the other creates (destinations, webhook endpoints, widget sessions): no duplicate, the original 201', async () => {
    const cases = [
      { url: '/v1/destinations', payload: { url: 'https://lost-dest.example.com' }, table: 'destinations' },
      { url: '/v1/webhook-endpoints', payload: { url: 'https://hooks.lost.example.com/in' }, table: 'webhook_endpoints' },
      { url: '/v1/widget-sessions', payload: { external_customer_id: 'lost-cust', allowed_origins: ['https://vendor.example'], destination_id: destinationId }, table: 'widget_sessions' },
    ];
    for (const c of cases) {
      const before = Number(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from ${sql.identifier([c.table])}`));
      const lost = proxy.loseAnswerTo('COMMIT');
      const first = await app.inject({ method: 'POST', url: c.url, headers: { ...auth, 'idempotency-key': `lost-${c.table}` }, payload: c.payload });
      await lost;
      expect(first.statusCode).toBe(503);
      const retry = await app.inject({ method: 'POST', url: c.url, headers: { ...auth, 'idempotency-key': `lost-${c.table}` }, payload: c.payload });
      expect([c.table, retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([c.table, 201, 'true']);
      const ids = await t.database.db.anyFirst(sql.type(IdRow)`select id from ${sql.identifier([c.table])} order by created_at desc limit 1`);
      expect(retry.json().data.id).toBe(ids[0]);
      expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from ${sql.identifier([c.table])}`)).toBe(before + 1);
    }
  });

  it('every other write too: a committed delete, secret rotation or delivery retry whose answer was lost is replayed, not redone', async () => {
    const send = (method: 'POST' | 'DELETE', url: string, key: string) => app.inject({ method, url, headers: { ...auth, 'idempotency-key': key } });
    const loseCommitOf = async (method: 'POST' | 'DELETE', url: string, key: string) => {
      const lost = proxy.loseAnswerTo('COMMIT');
      const first = await send(method, url, key);
      await lost;
      expect([url, first.statusCode]).toEqual([url, 503]);
      const retry = await send(method, url, key);
      expect([url, retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([url, 200, 'true']);
      return retry.json().data;
    };
    // A delete that happened: the retry gets its 200, not 404 destination_not_found.
    const dest = (await app.inject({ method: 'POST', url: '/v1/destinations', headers: { ...auth, 'idempotency-key': 'lost-del-dest' }, payload: { url: 'https://lost-delete.example.com' } })).json().data.id as string;
    expect((await loseCommitOf('DELETE', `/v1/destinations/${dest}`, 'lost-del-dest-1')).id).toBe(dest);
    expect((await app.inject({ method: 'GET', url: `/v1/destinations/${dest}`, headers: auth })).statusCode).toBe(404);

    // A rotation: the retry hands back the secret that was stored, and does not rotate again
    // (a second rotation would push out the secret the receiver still uses).
    const endpoint = (await app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: { ...auth, 'idempotency-key': 'lost-rot-ep' }, payload: { url: 'https://hooks.lost-rotate.example.com/in' } })).json().data;
    const rotated = await loseCommitOf('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, 'lost-rot-1');
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const box = new SecretBox(testConfig().encryptionKeys);
    const stored = await t.database.db.one(sql.unsafe`select secret_enc, secret_key_id, previous_secret_enc, previous_secret_key_id from webhook_endpoints where id = ${endpoint.id}`) as { secret_enc: Buffer; secret_key_id: string; previous_secret_enc: Buffer; previous_secret_key_id: string };
    expect(box.open({ keyId: stored.secret_key_id, ciphertext: stored.secret_enc }, secretContext(endpoint.id)).toString('utf8')).toBe(rotated.secret);
    expect(box.open({ keyId: stored.previous_secret_key_id, ciphertext: stored.previous_secret_enc }, secretContext(endpoint.id)).toString('utf8')).toBe(endpoint.secret);

    // A delete of the endpoint: 200 again on retry, not 404 webhook_endpoint_not_found.
    expect((await loseCommitOf('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, 'lost-del-ep-1')).id).toBe(endpoint.id);
  });

  it('a create whose transaction did not commit leaves the key free for the retry', async () => {
    // The answer to the domain insert is lost: the transaction never commits.
    const lost = proxy.loseAnswerTo('insert into domains');
    const first = await create('lost-insert-1', 'lost-insert.idem.example');
    await lost;
    expect(first.statusCode).toBe(503);
    // The release is not awaited by the 503; give it a moment.
    await new Promise((r) => setTimeout(r, 200));
    const retry = await create('lost-insert-1', 'lost-insert.idem.example');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from domains where hostname = 'lost-insert.idem.example'`)).toBe(1);
  });

  it('an answer is only recorded for the claim that owns the key: a lost claim rolls the write back', async () => {
    const box = new SecretBox(testConfig().encryptionKeys);
    const repo = idempotencyRepository(t.database.db, box);
    const claim = await repo.claim({ scope: 'org:x', key: 'k-lost', method: 'POST', path: '/v1/x', bodyHash: Buffer.alloc(32) });
    expect(claim.kind).toBe('claimed');
    const claimedAt = (claim as { claimedAt: string }).claimedAt;
    // Another claim (a takeover) has replaced this one: the write must not commit.
    const stale = new Date(Date.parse(claimedAt) - 61_000).toISOString();
    const outcome = await t.database.db.transaction(async (tx) => {
      await tx.query(sql.unsafe`create temporary table marker (x int) on commit drop`);
      await repo.completeWithin(tx, 'org:x', 'k-lost', stale, 201, { data: 1 });
      return 'committed';
    }).catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(IdempotencyClaimLostError);
    expect(await t.database.db.oneFirst(sql.unsafe`select state from idempotency_keys where key = 'k-lost'`)).toBe('in_flight');
    await t.database.db.transaction((tx) => repo.completeWithin(tx, 'org:x', 'k-lost', claimedAt, 201, { data: 1 }));
    const replay = await repo.claim({ scope: 'org:x', key: 'k-lost', method: 'POST', path: '/v1/x', bodyHash: Buffer.alloc(32) });
    expect(replay).toEqual({ kind: 'replay', status: 201, body: { data: 1 } });
  });
});
