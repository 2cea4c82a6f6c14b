// `npm run bench:create-cost -- [--creates 1500] [--rounds 3] [--connections 1] [--without a,b]`:
// what the create statement (domainsRepository.createAnswered, the one statement behind
// POST /v1/domains) costs the Postgres backends in CPU, and what each trigger or check it fires
// costs of that. No API, no HTTP: the statement is run in a loop over the pool, and the backends'
// CPU is read from /proc/<pid>/stat (the server must be on this machine). Each `--without` variant
// drops one part in the scratch database for its run and puts it back after (a ceiling, not a
// build: dropping any of them loses behaviour); variants and the build as it is alternate, round
// after round. Figures for docs/scale.md ("Less CPU per create").
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { newId } from '../db/ids.ts';
import { sql } from '../db/pool.ts';
import { domainsRepository, type DomainRow } from '../db/repositories/domains.ts';
import { connectBenchPostgres, intArg, progress, runBenchmark } from './support/run.ts';
import { createBenchDatabase, createBenchTenant, openBenchDatabase } from './support/setup.ts';

/** Each part as migrations 008/013, 005, 017/022, 021 and 018 create it. */
const VARIANTS: Record<string, { drop: string[]; restore: string[] }> = {
  'dns-schedule': {
    drop: ['drop trigger domains_dns_check_schedule on domains'],
    restore: ['create trigger domains_dns_check_schedule after insert or update of status on domains for each row execute function hg_dns_check_schedule()'],
  },
  'usage-counting': {
    drop: ['drop trigger domains_usage_count on domains'],
    restore: ['create constraint trigger domains_usage_count after insert or update of status or delete on domains deferrable initially deferred for each row execute function hg_usage_count_domain()'],
  },
  'edge-notify': {
    drop: ['drop trigger domains_notify_edge on domains'],
    restore: ['create trigger domains_notify_edge after insert or update of status, destination_id, redirect, tls_min_version, hsts or delete on domains for each row execute function hg_notify_edge_domain()'],
  },
  'events-notify': {
    drop: ['drop trigger events_notify on events'],
    restore: ['create trigger events_notify after insert on events for each statement execute function hg_notify_events()'],
  },
  // The foreign keys' checks are system triggers: all off, then the user triggers back on.
  'foreign-keys': {
    drop: ['domains', 'events', 'domain_status_history', 'dns_check_schedule'].flatMap((t) => [`alter table ${t} disable trigger all`, `alter table ${t} enable trigger user`]),
    restore: ['domains', 'events', 'domain_status_history', 'dns_check_schedule'].map((t) => `alter table ${t} enable trigger all`),
  },
  'wildcard-exclusion': {
    drop: ['alter table domains drop constraint domains_wildcard_isolation'],
    restore: [`alter table domains add constraint domains_wildcard_isolation exclude using gist (cover_parent with =, cover_wildcard with <>, organization_id with <>) where (status <> 'deleted')`],
  },
};

const { values: args } = parseArgs({
  options: {
    creates: { type: 'string', default: '1500' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '1' },
    without: { type: 'string', default: Object.keys(VARIANTS).join(',') },
  },
});
const creates = intArg('creates', args.creates, 100, 1_000_000);
const rounds = intArg('rounds', args.rounds, 1, 20);
const connections = intArg('connections', args.connections, 1, 50);
const without = args.without ? args.without.split(',').filter(Boolean) : [];
for (const v of without) if (!VARIANTS[v]) { console.error(`unknown --without ${v} (known: ${Object.keys(VARIANTS).join(', ')})`); process.exit(2); }

/** utime + stime of a process, in clock ticks (100 per second on Linux). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

await runBenchmark(async () => {
  const pgInfo = await connectBenchPostgres(randomBytes(4).toString('hex'));
  await createBenchDatabase(pgInfo);
  const { db, sql: admin } = await openBenchDatabase(pgInfo.benchUrl, connections);
  const { org, destination } = await createBenchTenant(db);
  const domains = domainsRepository(db);
  // Every pool connection open (each holds one at once), then their backends.
  await Promise.all(Array.from({ length: connections }, () => db.query(sql.unsafe`select pg_sleep(0.05)`)));
  const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = \'client backend\'');
  const pids = rows.map((r) => r.pid);
  if (pids.length !== connections) throw new Error(`expected ${connections} backends of the pool, found ${pids.length}`);
  const backendTicks = () => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
  let n = 0;

  async function createMany(count: number): Promise<{ cpuMs: number; wallMs: number }> {
    const ticks0 = backendTicks();
    const started = performance.now();
    let left = count;
    await Promise.all(Array.from({ length: connections }, async () => {
      while (left > 0) {
        left--;
        const i = n++;
        const now = new Date().toISOString();
        // A create as the API sends it: every column given, a new Idempotency-Key with its sealed
        // answer (≈ 900 bytes, the size of a 201's ciphertext).
        const row: Parameters<typeof domains.createAnswered>[0]['row'] = {
          id: newId('domain'), organization_id: org.id, destination_id: destination.id, hostname: `c${i}.create-cost.example.com`, is_apex: false,
          status: 'pending_dns' as DomainRow['status'], status_seq: 0, external_customer_id: null, widget_session_id: null,
          ownership_token: randomBytes(16).toString('hex'), challenge_label: randomBytes(16).toString('hex'), tls_min_version: '1.2' as DomainRow['tls_min_version'],
          created_at: now, updated_at: now,
        };
        const result = await domains.createAnswered({ row, claim: { kind: 'new', scope: `org:${org.id}`, key: `create-cost-${i}`, method: 'POST', path: '/v1/domains', bodyHash: randomBytes(32), status: 201, keyId: 'bench', ciphertext: randomBytes(900) } });
        if (result.result !== 'created') throw new Error(`create ${i}: ${result.result}`);
      }
    }));
    return { cpuMs: ((backendTicks() - ticks0) * 10) / count, wallMs: (performance.now() - started) / count };
  }

  progress(`warming up (300 creates over ${connections} connection(s))…`);
  await createMany(300);
  const names = ['as built', ...without];
  const results = new Map<string, string[]>(names.map((name) => [name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const name of names) {
      const variant = VARIANTS[name];
      for (const statement of variant?.drop ?? []) await admin.query(statement);
      const r = await createMany(creates);
      for (const statement of variant?.restore ?? []) await admin.query(statement);
      results.get(name)!.push(r.cpuMs.toFixed(3));
      progress(`round ${round}, ${name}: backend CPU ${r.cpuMs.toFixed(3)} ms, wall ${r.wallMs.toFixed(3)} ms per create`);
    }
  }
  console.log('');
  console.log(`Postgres backend CPU per create, ms (${creates} creates per run, ${connections} connection(s), ${rounds} round(s)):`);
  for (const [name, values] of results) console.log(`  ${(name === 'as built' ? name : `without ${name}`).padEnd(30)} ${values.join('  ')}`);
  const mean = (name: string) => { const v = results.get(name)!.map(Number); return v.reduce((a, b) => a + b, 0) / v.length; };
  return { benchmark: 'create-cost', connections, creates, rounds, ...Object.fromEntries(names.map((name) => [`${name === 'as built' ? 'as_built' : `without_${name}`}_ms`, Math.round(mean(name) * 1000) / 1000])) };
}, 'bench database');
