import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { sql } from '../db/pool.ts';
import { idempotencyRepository } from '../db/repositories/idempotency-keys.ts';
import { canonicalJson } from '../api/plugins/idempotency.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

describe('idempotency', () => {
  let t: TestApp;
  let worker: RunningWorker;
  let org: Awaited<ReturnType<typeof createOrgWithKey>>;
  let destinationId: string;
  const post = (url: string, key: string, payload: unknown, auth = org.auth) =>
    t.app.inject({ method: 'POST', url, headers: { ...auth, 'idempotency-key': key }, payload: payload as object });

  beforeAll(async () => {
    t = await createTestApp();
    worker = await startTestWorker(t.temporal, t.database.db);
    org = await createOrgWithKey(t);
    destinationId = (await client(t.app, org.auth).post('/v1/destinations', { url: 'https://idem.example.com' })).json().data.id;
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  it('replays the original status and body with Idempotent-Replayed: true', async () => {
    const first = await post('/v1/destinations', 'dest-create-1', { url: 'https://replay.example.com' });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post('/v1/destinations', 'dest-create-1', { url: 'https://replay.example.com' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from destinations where url = 'https://replay.example.com'`)).toBe(1);
    // Key order in the body does not make a different request.
    const reordered = await t.app.inject({ method: 'POST', url: '/v1/domains', headers: { ...org.auth, 'idempotency-key': 'dom-order' }, payload: { hostname: 'order.idem.example', destination_id: destinationId } });
    const reordered2 = await t.app.inject({ method: 'POST', url: '/v1/domains', headers: { ...org.auth, 'idempotency-key': 'dom-order', 'content-type': 'application/json' }, payload: `{"destination_id":"${destinationId}","hostname":"order.idem.example"}` });
    expect(reordered2.headers['idempotent-replayed']).toBe('true');
    expect(reordered2.json()).toEqual(reordered.json());
  });

  it('a create answers with the bytes and content type its replay answers with (the 201 is the sealed rendering, not rendered again)', async () => {
    const send = () => t.app.inject({ method: 'POST', url: '/v1/domains', headers: { ...org.auth, 'idempotency-key': 'dom-bytes' }, payload: { hostname: 'bytes.idem.example', destination_id: destinationId } });
    const first = await send();
    expect(first.statusCode).toBe(201);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.json().data.hostname).toBe('bytes.idem.example');
    const replay = await send();
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(replay.body).toBe(first.body);
  });

  it('replays 4xx results too (a conflict stays a conflict)', async () => {
    await post('/v1/domains', 'first-claim', { hostname: 'dup.idem.example', destination_id: destinationId });
    const conflict = await post('/v1/domains', 'second-claim', { hostname: 'dup.idem.example', destination_id: destinationId });
    expect(conflict.statusCode).toBe(409);
    const replay = await post('/v1/domains', 'second-claim', { hostname: 'dup.idem.example', destination_id: destinationId });
    expect(replay.statusCode).toBe(409);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().error.code).toBe('domain_conflict');
  });

  it('stores replayable responses encrypted: a webhook secret never sits in plaintext', async () => {
    const created = await post('/v1/webhook-endpoints', 'wh-secret', { url: 'https://hooks.example.com/in' });
    expect(created.statusCode).toBe(201);
    const secret: string = created.json().data.secret;
    const raw = await t.database.db.oneFirst(sql.unsafe`select response_body_enc from idempotency_keys where key = 'wh-secret'`);
    expect(Buffer.isBuffer(raw)).toBe(true);
    expect((raw as Buffer).toString('latin1')).not.toContain(secret);
    const replay = await post('/v1/webhook-endpoints', 'wh-secret', { url: 'https://hooks.example.com/in' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().data.secret).toBe(secret);
  });

  it('422 idempotency_key_reused for a different body, path or method', async () => {
    await post('/v1/destinations', 'reuse-1', { url: 'https://reuse.example.com' });
    const body = await post('/v1/destinations', 'reuse-1', { url: 'https://reuse-other.example.com' });
    expect(body.statusCode).toBe(422);
    expect(body.json().error.code).toBe('idempotency_key_reused');
    const path = await post('/v1/domains', 'reuse-1', { hostname: 'reuse.idem.example', destination_id: destinationId });
    expect(path.json().error.code).toBe('idempotency_key_reused');
  });

  it('a create that would be refused with a reused key answers idempotency_key_reused first; a refused create replays its refusal', async () => {
    // POST /v1/domains claims its key inside the create statement (issue 26); a refusal found
    // before that (an invalid hostname) must still meet the key first, like every other write.
    const created = await post('/v1/domains', 'reuse-2', { hostname: 'reuse2.idem.example', destination_id: destinationId });
    expect(created.statusCode).toBe(201);
    const invalid = await post('/v1/domains', 'reuse-2', { hostname: 'not a hostname', destination_id: destinationId });
    expect([invalid.statusCode, invalid.json().error.code]).toEqual([422, 'idempotency_key_reused']);
    const refused = await post('/v1/domains', 'reuse-3', { hostname: 'not a hostname', destination_id: destinationId });
    expect([refused.statusCode, refused.json().error.code]).toEqual([400, 'invalid_request']);
    const again = await post('/v1/domains', 'reuse-3', { hostname: 'not a hostname', destination_id: destinationId });
    expect([again.statusCode, again.headers['idempotent-replayed'], again.json().error.code]).toEqual([400, 'true', 'invalid_request']);
  });

  it('keys are scoped to the organization', async () => {
    const other = await createOrgWithKey(t, undefined, 'Other');
    await post('/v1/destinations', 'shared-key', { url: 'https://scope-a.example.com' });
    const res = await post('/v1/destinations', 'shared-key', { url: 'https://scope-b.example.com' }, other.auth);
    expect(res.statusCode).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('409 idempotency_key_in_use while the first request is still running', async () => {
    const payload = { url: 'https://inflight.example.com' };
    // The first request has claimed the key and not finished yet.
    await idempotencyRepository(t.database.db, t.app.secretBox).claim({
      scope: `org:${org.org.id}`, key: 'in-flight', method: 'POST', path: '/v1/destinations',
      bodyHash: createHash('sha256').update(canonicalJson(payload)).digest(),
    });
    const res = await post('/v1/destinations', 'in-flight', payload);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('idempotency_key_in_use');
    expect(res.headers['retry-after']).toBe('1');
    // A claim abandoned past ABANDONED_AFTER_SECONDS (its process died) is taken over.
    await t.database.db.query(sql.unsafe`update idempotency_keys set created_at = now() - interval '2 minutes' where key = 'in-flight'`);
    expect((await post('/v1/destinations', 'in-flight', payload)).statusCode).toBe(201);
  });

  it('a key reused after expiry is a new request; expired keys are purged', async () => {
    const first = await post('/v1/destinations', 'expiring', { url: 'https://expiry.example.com' });
    await t.database.db.query(sql.unsafe`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'expiring'`);
    const second = await post('/v1/destinations', 'expiring', { url: 'https://expiry.example.com' });
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json().data.id).not.toBe(first.json().data.id);
    await t.database.db.query(sql.unsafe`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'expiring'`);
    expect(await idempotencyRepository(t.database.db, t.app.secretBox).purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from idempotency_keys where key = 'expiring'`)).toBe(0);
  });

  it('50 concurrent creates with one key make exactly one domain and one workflow', async () => {
    const payload = { hostname: 'race.idem.example', destination_id: destinationId };
    const responses = await Promise.all(Array.from({ length: 50 }, () => post('/v1/domains', 'race-key', payload)));
    const statuses = responses.map((r) => r.statusCode);
    // Each answer is the creation, its replay, or "still in flight"; never a second resource.
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const created = responses.filter((r) => r.statusCode === 201);
    expect(created.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    const ids = new Set(created.map((r) => r.json().data.id));
    expect(ids.size).toBe(1);
    for (const r of responses.filter((x) => x.statusCode === 409)) expect(r.json().error.code).toBe('idempotency_key_in_use');
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from domains where hostname = 'race.idem.example'`)).toBe(1);
    const [id] = [...ids];
    await waitFor('the workflow to start', async () => (await t.database.db.oneFirst(sql.unsafe`select workflow_started_at from domains where id = ${id as string}`)) !== null);
    let runs = 0;
    for await (const _ of t.temporal.client.workflow.list({ query: `WorkflowId = "domain/${id as string}"` })) runs++;
    expect(runs).toBe(1);
    // After it finished, a retry replays.
    const late = await post('/v1/domains', 'race-key', payload);
    expect(late.headers['idempotent-replayed']).toBe('true');
    expect(late.json().data.id).toBe(id);
  });
});
