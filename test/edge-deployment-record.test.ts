// The edge's record of its deployments against a real Postgres (edge/agent/deployment-record.ts):
// a process's first full pass reads the table back and writes only what differs (issue 26: at
// 100,051 hostnames that pass re-recorded every deployment, 100,000 upserts beside the first
// changes), deletes rows of domains it does not serve, sends again a row whose domain's track
// still says `issued`, and reads the table back again when its count differs from the record.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { domainMovesRepository } from '../db/repositories/domain-moves.ts';
import { edgeRepository, type Deployment } from '../db/repositories/edge.ts';
import { createDeploymentRecord } from '../edge/agent/deployment-record.ts';
import { createDeploymentReport } from '../edge/agent/deployment-report.ts';
import { createLogger } from '../logging/logger.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';

const EDGE = 'edge-record-test';
let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
  await t.db.query(sql.unsafe`insert into organizations (id, name) values ('org_rec', 'Record org')`);
  await t.db.query(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values ('dst_rec', 'org_rec', 'https://o.test', 'o.test', 443)`);
  for (const n of [1, 2, 3, 4, 5, 6]) {
    await t.db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex, status)
      values (${`dom_${n}`}, 'org_rec', 'dst_rec', ${`h${n}.record.test`}, false, 'active')`);
    for (const c of ['a', 'b']) {
      await t.db.query(sql.unsafe`insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, private_key_enc, key_id)
        values (${`crt_${n}${c}`}, ${`dom_${n}`}, ${`s${n}${c}`}, 'test', now() - interval '1 day', now() + interval '30 days', 'pem', '\\x00', 'k')`);
    }
  }
  await edgeRepository(t.db).heartbeat(EDGE, { servingHostnames: 0, problems: [], synced: false });
});
afterAll(async () => { await t?.drop(); });

const table = async () => new Map((await t.db.any(sql.unsafe`select domain_id, certificate_id from edge_deployments where edge_id = ${EDGE}`) as readonly { domain_id: string; certificate_id: string }[])
  .map((r) => [r.domain_id, r.certificate_id]));
const d = (n: number, c: 'a' | 'b'): Deployment => ({ domainId: `dom_${n}`, certificateId: `crt_${n}${c}` });

describe('the deployment record (issue 26: a full pass writes only what differs from the table)', () => {
  it('reads the table back at a process\'s first pass, sends the differences, deletes extra rows and re-sends an `issued` track', async () => {
    const report = createDeploymentReport(t.db, EDGE);
    // A previous process recorded these.
    await report([d(1, 'a'), d(2, 'a'), d(3, 'a'), d(5, 'a')]);
    // dom_3's move: its track was written `issued` after its deployment was recorded.
    await t.db.query(sql.unsafe`update domains set certificate_track = '{"certificate_id": "crt_3a", "status": "issued"}' where id = 'dom_3'`);

    const sent: { deployed: Deployment[]; removed: string[] }[] = [];
    const record = createDeploymentRecord({
      report: async (deployed, removed = [], pause) => { sent.push({ deployed: [...deployed], removed: [...removed] }); return report(deployed, removed, pause); },
      repo: edgeRepository(t.db), edgeId: EDGE, logger: createLogger('silent', 'test'),
    });
    // The new process serves 1 (same), 2 (a new certificate), 3 (same, track issued), 4 (new);
    // not 5; dom_6 was taken on by a targeted pass meanwhile (kept).
    await report([d(6, 'a')]);
    const pause = () => new Promise<void>((r) => setImmediate(r));
    await record.afterFullPass([d(1, 'a'), d(2, 'b'), d(3, 'a'), d(4, 'a')], [], new Set(['dom_6']), pause);

    expect(sent).toHaveLength(1);
    expect(sent[0]!.deployed.map((x) => x.domainId).sort()).toEqual(['dom_2', 'dom_3', 'dom_4']);
    expect(sent[0]!.removed).toEqual(['dom_5']);
    expect(Object.fromEntries(await table())).toEqual({ dom_1: 'crt_1a', dom_2: 'crt_2b', dom_3: 'crt_3a', dom_4: 'crt_4a', dom_6: 'crt_6a' });
    const track = await t.db.oneFirst(sql.unsafe`select certificate_track->>'status' from domains where id = 'dom_3'`);
    expect(track).toBe('deployed');

    // The next pass: the record (dom_6 read back with the rest) agrees with the table's count, so
    // nothing is read back or sent.
    sent.length = 0;
    await record.afterFullPass([d(1, 'a'), d(2, 'b'), d(3, 'a'), d(4, 'a'), d(6, 'a')], [], new Set(), pause);
    expect(sent.flatMap((s) => [...s.deployed, ...s.removed])).toEqual([]);

    // A row deleted elsewhere: the count differs, the table is read back and the row written again.
    await t.db.query(sql.unsafe`delete from edge_deployments where edge_id = ${EDGE} and domain_id = 'dom_1'`);
    await record.afterFullPass([d(1, 'a'), d(2, 'b'), d(3, 'a'), d(4, 'a'), d(6, 'a')], [], new Set(), pause);
    expect(sent.flatMap((s) => s.deployed.map((x) => x.domainId))).toEqual(['dom_1']);
    expect((await table()).get('dom_1')).toBe('crt_1a');
  });

  it('a move\'s `markIssued` and an edge\'s record that run at once: the track ends `deployed` (no write skew)', async () => {
    // dom_7 is mid-move: its certificate is being ordered.
    await t.db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex, status, certificate_track)
      values ('dom_7', 'org_rec', 'dst_rec', 'h7.record.test', false, 'pending_dns', '{"status": "pending_validation", "method": "dns-01", "certificate_id": null}')`);
    await t.db.query(sql.unsafe`insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, private_key_enc, key_id)
      values ('crt_7a', 'dom_7', 's7a', 'test', now() - interval '1 day', now() + interval '30 days', 'pem', '\\x00', 'k')`);
    const status = () => t.db.oneFirst(sql.unsafe`select certificate_track->>'status' from domains where id = 'dom_7'`);

    // The edge records serving the new certificate and has not committed yet when the move
    // writes `issued`. Before the fix, markIssued did not wait, saw no record, wrote `issued`,
    // and the edge's update had already passed the track by: `issued` stayed.
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => { commit = resolve; });
    let recorded!: () => void;
    const inTransaction = new Promise<void>((resolve) => { recorded = resolve; });
    const edgeTx = t.db.transaction(async (tx) => {
      await edgeRepository(t.db).recordDeployments(tx, EDGE, [d(7, 'a')]);
      recorded();
      await committed;
    });
    await inTransaction;
    const marking = domainMovesRepository(t.db).markIssued('dom_7', 'crt_7a');
    const early = await Promise.race([marking.then(() => 'returned'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
    expect(early).toBe('waiting');
    commit();
    await edgeTx;
    expect(await marking).toBe('deployed');
    expect(await status()).toBe('deployed');

    // The other order: the move's write commits first, the edge's record then sees `issued`.
    await t.db.query(sql.unsafe`update domains set certificate_track = certificate_track || '{"status": "pending_validation"}' where id = 'dom_7'`);
    await t.db.query(sql.unsafe`delete from edge_deployments where domain_id = 'dom_7'`);
    expect(await domainMovesRepository(t.db).markIssued('dom_7', 'crt_7a')).toBe('issued');
    await createDeploymentReport(t.db, EDGE)([d(7, 'a')]);
    expect(await status()).toBe('deployed');
  });
});
