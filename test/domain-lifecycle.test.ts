// The heart of the product, end to end on real services: the API creates a domain, the workflow
// waits for DNS (our loopback DNS server), obtains a certificate from Pebble through our
// challenge listener, and the domain becomes active; every move lands in Postgres.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { run as cli } from '../cli/hostgate.ts';
import { sql } from '../db/pool.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { client } from './support/http.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

describe('domain lifecycle', () => {
  let acme: AcmeStack;
  let t: TestApp;
  let worker: RunningWorker;
  let api: ReturnType<typeof client>;
  let destinationId: string;

  beforeAll(async () => {
    acme = await startAcmeStack({ nonceReject: 15 });
    t = await createTestApp({ config: acme.configOverrides });
    await acme.serveChallenges(t.database.db);
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    api = client(t.app, (await createOrgWithKey(t)).auth);
    destinationId = (await api.post('/v1/destinations', { url: 'https://app.vendor.example' })).json().data.id;
  });
  // Workflow ids of interesting runs, saved as replay fixtures when HG_RECORD_HISTORIES=1
  // (see test/replay.test.ts).
  const recorded: Record<string, string> = {};
  afterAll(async () => {
    if (process.env.HG_RECORD_HISTORIES === '1') {
      // The CLI's JSON is the format Temporal's replayer reads (historyFromJSON).
      const { execFileSync } = await import('node:child_process');
      const { writeFileSync } = await import('node:fs');
      for (const [name, id] of Object.entries(recorded)) {
        const json = execFileSync('temporal', ['workflow', 'show', '--address', t.temporal.address, '--workflow-id', `domain/${id}`, '--output', 'json'], { encoding: 'utf8' });
        writeFileSync(`test/histories/domain-${name}.json`, json);
      }
    }
    await worker?.stop();
    await t?.close();
    await acme?.close();
  });

  const read = async (id: string) => (await api.get(`/v1/domains/${id}`)).json().data;
  const create = async (hostname: string) => {
    const res = await api.post('/v1/domains', { hostname, destination_id: destinationId });
    expect(res.statusCode).toBe(201);
    return res.json().data as { id: string; hostname: string };
  };
  const problemOf = (id: string) => waitFor(`a DNS check of ${id}`, async () => {
    const d = await read(id);
    return d.verification.checked_at ? d : null;
  });
  const statusOf = (id: string, status: string, timeoutMs = 60_000) =>
    waitFor(`${id} to be ${status}`, async () => ((await read(id)).status === status ? read(id) : null), timeoutMs, 200);

  it('goes pending_dns → (CNAME set, verify) → active with a certificate valid for the name', async () => {
    const d = await create('shop.customer-one.test');
    const pending = await problemOf(d.id);
    expect(pending.status).toBe('pending_dns');
    expect(pending.verification.problem).toMatchObject({ code: 'nxdomain' });
    expect(pending.verification.problem.message).toMatch(/shop\.customer-one\.test/);

    acme.dns.set('shop.customer-one.test', [{ type: 'CNAME', value: EDGE }]);
    expect((await api.post(`/v1/domains/${d.id}/verify`)).statusCode).toBe(202);
    const active = await statusOf(d.id, 'active');
    recorded['pending-dns-to-active'] = d.id;
    expect(active.verification.problem).toBeNull();
    expect(active.verification.found).toEqual(expect.arrayContaining([{ type: 'CNAME', name: 'shop.customer-one.test', value: EDGE }]));

    const certs = await t.database.db.anyFirst(sql.unsafe`select chain_pem from certificates where domain_id = ${d.id} and deleted_at is null`);
    expect(certs).toHaveLength(1);
    const [leafPem, ...rest] = (certs[0] as string).split(/(?<=-----END CERTIFICATE-----)\s*/).filter(Boolean);
    const leaf = new X509Certificate(leafPem!);
    expect(leaf.checkHost('shop.customer-one.test')).toBe('shop.customer-one.test');
    const root = new X509Certificate(await acme.pebble.rootPem());
    const intermediate = new X509Certificate(rest[0]!);
    expect(leaf.verify(intermediate.publicKey)).toBe(true);
    expect(intermediate.verify(root.publicKey)).toBe(true);

    const events = await t.database.db.anyFirst(sql.unsafe`select kind from events where domain_id = ${d.id} order by created_at, id`);
    expect(events).toEqual(['hostname.created', 'hostname.verified', 'hostname.active']);
    const history = await t.database.db.anyFirst(sql.unsafe`select to_status from domain_status_history where domain_id = ${d.id} order by seq`);
    expect(history).toEqual(['pending_dns', 'pending_certificate', 'active']);

    // The Temporal UI can find it by hostname and status.
    const found = [];
    for await (const w of t.temporal.client.workflow.list({ query: `HostgateHostname = "shop.customer-one.test" AND HostgateDomainStatus = "active"` })) found.push(w.workflowId);
    expect(found).toEqual([`domain/${d.id}`]);
  });

  it('stays pending_dns with the precise problem for each kind of wrong DNS', async () => {
    acme.dns.set('wrong.customer-two.test', [{ type: 'CNAME', value: 'old-host.elsewhere.test' }]);
    acme.dns.set('old-host.elsewhere.test', [{ type: 'A', value: '192.0.2.10' }]);
    acme.dns.set('customer-three.test', [{ type: 'A', value: '192.0.2.44' }]);
    acme.dns.set('customer-four.test', [{ type: 'A', value: '127.0.0.1' }, { type: 'AAAA', value: '2001:db8::4' }]);
    acme.dns.set('shop.customer-five.test', [{ type: 'CNAME', value: EDGE }]);
    acme.dns.set('customer-five.test', [{ type: 'CAA', tag: 'issue', value: 'other-ca.example' }]);
    acme.dns.set('www.customer-six.test', [{ type: 'CNAME', value: 'customer-six.test.cdn.cloudflare.net' }]);
    acme.dns.set('customer-six.test.cdn.cloudflare.net', [{ type: 'A', value: '104.16.1.1' }]);
    acme.dns.set('customer-seven.test', [{ type: 'TXT', value: 'exists' }]);
    const cases: [string, string][] = [
      ['wrong.customer-two.test', 'wrong_target'],
      ['customer-three.test', 'wrong_target'],
      ['customer-four.test', 'conflicting_records'],
      ['shop.customer-five.test', 'caa_forbids_ca'],
      ['www.customer-six.test', 'proxied_by_cdn'],
      ['missing.customer-eight.test', 'nxdomain'],
      ['customer-seven.test', 'no_records'],
    ];
    for (const [hostname, code] of cases) {
      const d = await create(hostname);
      const checked = await problemOf(d.id);
      expect({ hostname, status: checked.status, code: checked.verification.problem?.code }).toEqual({ hostname, status: 'pending_dns', code });
      expect(checked.verification.problem.message.length).toBeGreaterThan(20);
    }
  });

  it('reports a failed HTTP-01 challenge and recovers once the challenge can be answered', async () => {
    acme.dns.set('shop.customer-nine.test', [{ type: 'CNAME', value: EDGE }]);
    await acme.stopChallenges();
    const d = await create('shop.customer-nine.test');
    const refused = await waitFor('the CA refusal to be shown', async () => {
      const x = await read(d.id);
      return x.status === 'pending_certificate' && x.verification.problem ? x : null;
    }, 60_000, 200);
    expect(refused.verification.problem.code).toMatch(/^challenge_/);
    await acme.serveChallenges(t.database.db);
    await api.post(`/v1/domains/${d.id}/verify`);
    await statusOf(d.id, 'active');
    expect((await read(d.id)).verification.problem).toBeNull();
    recorded['challenge-failed-then-active'] = d.id;
  });

  it('suspends and resumes through the operator CLI', async () => {
    acme.dns.set('shop.customer-ten.test', [{ type: 'CNAME', value: EDGE }]);
    const d = await create('shop.customer-ten.test');
    await statusOf(d.id, 'active');
    const out: string[] = [];
    await cli(['domains', 'suspend', d.id, '--reason', 'unpaid invoice'], (l) => out.push(l), { DATABASE_URL: t.database.url });
    expect(out.join('\n')).toMatch(/suspend requested/);
    await t.dispatcher.kick();
    await statusOf(d.id, 'suspended', 20_000);
    await cli(['domains', 'resume', d.id], () => undefined, { DATABASE_URL: t.database.url });
    await t.dispatcher.kick();
    await statusOf(d.id, 'active');
    const history = await t.database.db.anyFirst(sql.unsafe`select to_status from domain_status_history where domain_id = ${d.id} order by seq`);
    expect(history).toEqual(['pending_dns', 'pending_certificate', 'active', 'suspended', 'pending_dns', 'pending_certificate', 'active']);
    const events = await t.database.db.anyFirst(sql.unsafe`select kind from events where domain_id = ${d.id} order by created_at, id`);
    // The event set is closed (decisions.md: no `hostname.resumed`): a resume announces itself
    // through the events of the states the domain passes again (docs/api-decisions.md).
    expect(events.slice(events.indexOf('hostname.suspended'))).toEqual(['hostname.suspended', 'hostname.verified', 'hostname.active']);
    recorded['suspend-resume'] = d.id;
  });

  it('deletes during issuance: the workflow stops, cleans up and ends deleted', async () => {
    acme.dns.set('shop.customer-eleven.test', [{ type: 'CNAME', value: EDGE }]);
    await acme.stopChallenges(); // keeps it in issuance (validation cannot succeed)
    const d = await create('shop.customer-eleven.test');
    await statusOf(d.id, 'pending_certificate', 30_000);
    expect((await api.delete(`/v1/domains/${d.id}`)).json().data.status).toBe('deleting');
    await t.temporal.client.workflow.getHandle(`domain/${d.id}`).result();
    expect((await read(d.id)).status).toBe('deleted');
    recorded['deleted-during-issuance'] = d.id;
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from acme_challenges where domain_id = ${d.id}`)).toBe(0);
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from acme_orders where domain_id = ${d.id} and private_key_enc is not null`)).toBe(0);
    await acme.serveChallenges(t.database.db);
  });

  it('flags an active domain whose DNS stops pointing here, without taking it down', async () => {
    acme.dns.set('shop.customer-twelve.test', [{ type: 'CNAME', value: EDGE }]);
    const d = await create('shop.customer-twelve.test');
    await statusOf(d.id, 'active');
    acme.dns.set('shop.customer-twelve.test', [{ type: 'CNAME', value: 'somewhere-else.test' }]);
    acme.dns.set('somewhere-else.test', [{ type: 'A', value: '192.0.2.1' }]);
    await api.post(`/v1/domains/${d.id}/verify`);
    await waitFor('dns_broken event', async () => (await t.database.db.anyFirst(sql.unsafe`select kind from events where domain_id = ${d.id}`)).includes('hostname.dns_broken'));
    const x = await read(d.id);
    expect(x.status).toBe('active');
    expect(x.verification.problem.code).toBe('wrong_target');
    expect(x.verification.dns_broken).toBe(true);
    // Pointed back: the flag clears.
    acme.dns.set('shop.customer-twelve.test', [{ type: 'CNAME', value: EDGE }]);
    await api.post(`/v1/domains/${d.id}/verify`);
    await waitFor('the flag cleared', async () => (await read(d.id)).verification.dns_broken === false);
    expect((await read(d.id)).verification.problem).toBeNull();
  });
});
