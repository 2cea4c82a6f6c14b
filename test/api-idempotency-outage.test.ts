// Issue 14, item 1: a create that committed but whose answer was lost (the connection to Postgres
// died between COMMIT and its acknowledgement) must, on retry with the same Idempotency-Key, get
// the original 201 — not 409 domain_conflict stored as the key's answer. Provoked for real: the
// API talks to Postgres through a loopback proxy that lets COMMIT through and drops its answer.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildApp, type App } from '../api/app.ts';
import { Type } from 'typebox';
import { createDb, row, sql, type Db } from '../db/pool.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
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
    // A create is one autocommit statement with its answer (domainsRepository.createAnswered):
    // its answer is the COMMIT's. The hostname is among its parameters, and no earlier statement's.
    const lost = proxy.loseAnswerTo('lost-commit.idem.example');
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
    // A pair (also_connect) is still created in a transaction: the answer to its first domain
    // insert is lost, so the transaction never commits.
    const pair = (key: string) => app.inject({ method: 'POST', url: '/v1/domains', headers: { ...auth, 'idempotency-key': key }, payload: { hostname: 'www.lost-insert.idem.example', also_connect: 'apex', destination_id: destinationId } });
    const lost = proxy.loseAnswerTo('insert into domains');
    const first = await pair('lost-insert-1');
    await lost;
    expect(first.statusCode).toBe(503);
    // The release is not awaited by the 503; give it a moment.
    await new Promise((r) => setTimeout(r, 200));
    const retry = await pair('lost-insert-1');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from domains where hostname in ('www.lost-insert.idem.example', 'lost-insert.idem.example')`)).toBe(2);
  });

  it('the one-statement create writes nothing when its claim is gone (taken over), and says claim_lost', async () => {
    const box = new SecretBox(testConfig().encryptionKeys);
    const repo = idempotencyRepository(t.database.db, box);
    const { organizationId } = await t.database.db.one(sql.type(row(Type.Object({ organizationId: Type.String() })))`select organization_id as "organizationId" from destinations where id = ${destinationId}`);
    const claim = await repo.claim({ scope: `org:${organizationId}`, key: 'k-lost-create', method: 'POST', path: '/v1/domains', bodyHash: Buffer.alloc(32) });
    expect(claim.kind).toBe('claimed');
    const claimedAt = (claim as { claimedAt: string }).claimedAt;
    const now = new Date().toISOString();
    const domainRow = (id: string) => ({
      id, organization_id: organizationId, destination_id: destinationId, hostname: 'claim-lost.idem.example', is_apex: false,
      status: 'pending_dns' as never, status_seq: 0, external_customer_id: null, widget_session_id: null,
      ownership_token: 'a'.repeat(32), challenge_label: id.slice(-26).padEnd(32, '0'), tls_min_version: '1.2' as never, created_at: now, updated_at: now,
    });
    const sealed = { kind: 'held' as const, scope: `org:${organizationId}`, key: 'k-lost-create', status: 201, ...repo.seal(`org:${organizationId}`, 'k-lost-create', '{"data":1}') };
    const domains = domainsRepository(t.database.db);
    // Another claim has replaced this one (its time is not ours): nothing is written.
    const stale = new Date(Date.parse(claimedAt) - 61_000).toISOString();
    expect(await domains.createAnswered({ row: domainRow('dom_claimlost0000000000000000'), claim: { ...sealed, claimedAt: stale } })).toEqual({ result: 'claim_lost' });
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from domains where hostname = 'claim-lost.idem.example'`)).toBe(0);
    expect(await t.database.db.oneFirst(sql.unsafe`select state from idempotency_keys where key = 'k-lost-create'`)).toBe('in_flight');
    // With its own claim: created, and the key answers with what was sealed.
    const created = await domains.createAnswered({ row: domainRow('dom_claimkept0000000000000000'), claim: { ...sealed, claimedAt } });
    expect(created.result).toBe('created');
    const replay = await repo.claim({ scope: `org:${organizationId}`, key: 'k-lost-create', method: 'POST', path: '/v1/domains', bodyHash: Buffer.alloc(32) });
    expect(replay).toEqual({ kind: 'replay', status: 201, body: { data: 1 } });
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
