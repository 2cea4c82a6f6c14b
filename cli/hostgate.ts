#!/usr/bin/env node
// Operator CLI. `npm run cli -- <command>` or `npx hostgate <command>`.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config/index.ts';
import { formatDoctor, runDoctor } from './doctor.ts';
import { migrate } from '../db/migrate.ts';
import { createDb, type Db } from '../db/pool.ts';
import { apiKeysRepository, isScope, scopes, type Scope } from '../db/repositories/api-keys.ts';
import { billingRepository } from '../db/repositories/billing.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { edgeRepository } from '../db/repositories/edge.ts';
import { describeNode } from '../model/edge-health.ts';
import { domainWorkflowId, type DomainSignalPayload } from '../contracts/domain-workflow.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { runningEmbeddedPostgres } from '../local-stack/embedded-postgres.ts';
import { workflowOutboxRepository } from '../db/repositories/workflow-outbox.ts';
import { domainTraffic, parseSince } from './traffic.ts';
import { CertificateCommandError, customCertificateCommand } from './custom-certificate.ts';

const usage = `Usage: hostgate <command> [options]

Commands:
  orgs create --name <name> [--return-origin <origin>]...   create an organization
  orgs list                                                  list organizations
  keys create --org <org_id> --scopes <s1,s2|all> [--name <label>]
                                                             create an API key (printed once)
  keys list [--org <org_id>]                                 list API keys (never their secrets)
  keys revoke <key_id>                                       revoke an API key (running APIs refuse it within a second)
  domains suspend <domain_id> [--reason <text>]              stop serving a domain (reversible)
  domains resume <domain_id>                                 resume a suspended domain
  domains certificate put <domain_id> --cert <chain.pem> --key <key.pem>
                                                             serve the domain with its own certificate (checked as the API does)
  domains certificate delete <domain_id>                     back to managed certificates
  domains traffic <domain_id> [--since 1h]                   the domain's traffic (requests, statuses, bytes, origin
                                                             time) per minute/hour/day with a sparkline; since: 90m, 6h, 7d
  edge status [<edge_id>]                                    what each edge serves, its last heartbeat and sync, its problems
  invoices list --org <org_id>                               the organization's invoices of closed periods, oldest first
  migrate                                                    apply pending database migrations
  doctor [--timeout-ms <ms>]                                 check a deployment (database, Temporal, keys, edge,
                                                             ACME, DNS); exits 1 when something blocks issuance or serving

Scopes: ${scopes.join(', ')} (or "all").
Environment: DATABASE_URL (default: the embedded Postgres that \`npm start\` is running under
HOSTGATE_DATA_DIR, on the port its postmaster.pid records).`;

export class UsageError extends Error {}

/**
 * DATABASE_URL, else the embedded Postgres `npm start` is running under HOSTGATE_DATA_DIR, on the
 * port its postmaster.pid records — not an assumed HOSTGATE_POSTGRES_PORT, which silently missed
 * a stack started on another port (issue 14).
 */
function databaseUrl(config: Config): string {
  if (config.db.url) return config.db.url;
  const running = runningEmbeddedPostgres(config.dataDir);
  if (running) return running.url;
  if (existsSync(path.resolve(config.dataDir, 'postgres'))) {
    throw new UsageError(`the embedded Postgres under ${path.resolve(config.dataDir, 'postgres')} is not running: start the stack with \`npm start\`, or set DATABASE_URL`);
  }
  throw new UsageError('DATABASE_URL is not set and there is no embedded Postgres under HOSTGATE_DATA_DIR: set DATABASE_URL, or run `npm start` first');
}

function parseScopes(value: string | undefined): Scope[] {
  if (!value) throw new UsageError('--scopes is required (comma-separated, or "all")');
  if (value === 'all') return [...scopes];
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = list.filter((s) => !isScope(s));
  if (bad.length || list.length === 0) throw new UsageError(`unknown scope(s): ${bad.join(', ') || '(none given)'}; known: ${scopes.join(', ')}`);
  return list as Scope[];
}

/** Runs one command; the answer is the process exit code when not 0 (doctor's verdict). */
export async function run(argv: string[], out: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number | void> {
  const [group, action, ...rest] = argv;
  if (!group || group === 'help' || group === '--help' || group === '-h') { out(usage); return; }
  const config = loadConfig(env);
  if (group === 'doctor') {
    const timeout = action === '--timeout-ms' ? Number(rest[0]) : action === undefined ? undefined : NaN;
    if (timeout !== undefined && !(Number.isInteger(timeout) && timeout >= 100 && timeout <= 60_000)) throw new UsageError('doctor takes only --timeout-ms <100-60000>');
    // A missing database is one of the things doctor reports, not a reason not to run.
    let url: string | undefined;
    try { url = databaseUrl(config); } catch { url = undefined; }
    const results = await runDoctor(config, url, timeout === undefined ? {} : { timeoutMs: timeout });
    for (const line of formatDoctor(results)) out(line);
    return results.some((r) => !r.ok && r.blocking) ? 1 : 0;
  }
  const url = databaseUrl(config);
  if (group === 'migrate' && action === undefined) {
    const result = await migrate(url, (m) => out(m));
    out(`schema at version ${result.version}${result.applied.length ? '' : ' (nothing to apply)'}`);
    return;
  }
  const command = `${group} ${action ?? ''}`.trim();
  const known = ['orgs create', 'orgs list', 'keys create', 'keys list', 'keys revoke', 'domains suspend', 'domains resume', 'domains certificate', 'domains traffic', 'edge status', 'invoices list'];
  if (!known.includes(command)) throw new UsageError(`unknown command "${command}"`);

  const { values, positionals } = (() => {
    try {
      return parseArgs({ args: rest, allowPositionals: true, strict: true, options: {
        name: { type: 'string' }, org: { type: 'string' }, scopes: { type: 'string' },
        'return-origin': { type: 'string', multiple: true }, reason: { type: 'string' }, since: { type: 'string' },
        cert: { type: 'string' }, key: { type: 'string' },
      } });
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  })();

  let db: Db;
  try {
    db = await createDb(url, { maximumPoolSize: 1 });
  } catch (error) {
    throw new Error(`cannot reach the database: ${error instanceof Error ? error.message : String(error)} (is \`npm start\` running, or DATABASE_URL right?)`);
  }
  try {
    const orgs = organizationsRepository(db);
    const keys = apiKeysRepository(db);
    switch (command) {
      case 'orgs create': {
        if (!values.name) throw new UsageError('--name is required');
        const org = await orgs.create({ name: values.name, allowedReturnOrigins: values['return-origin'] ?? [] });
        out(`created organization ${org.id} (${org.name})`);
        return;
      }
      case 'orgs list': {
        for (const o of await orgs.list()) out(`${o.id}\t${o.plan}\t${o.billing_status}\t${o.name}`);
        return;
      }
      case 'keys create': {
        if (!values.org) throw new UsageError('--org is required');
        const scopeList = parseScopes(values.scopes);
        if (!(await orgs.get(values.org))) throw new UsageError(`organization ${values.org} does not exist (see \`hostgate orgs list\`)`);
        const { key, secret } = await keys.create({ organizationId: values.org, scopes: scopeList, ...(values.name ? { name: values.name } : {}) });
        out(`created key ${key.id} for ${key.organization_id} with scopes ${key.scopes.join(',') || '(read only)'}`);
        out(secret);
        out('Store this key now: it is shown once and cannot be recovered.');
        return;
      }
      case 'keys list': {
        for (const k of await keys.list(values.org)) {
          out(`${k.id}\t${k.organization_id}\t${k.display_prefix}…\t${k.scopes.join(',') || '-'}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\t${k.name ?? ''}`);
        }
        return;
      }
      case 'domains suspend':
      case 'domains resume': {
        const id = positionals[0];
        if (!id) throw new UsageError(`${command} needs a domain id`);
        const domain = await domainsRepository(db).getById(id);
        if (!domain) throw new UsageError(`domain ${id} does not exist`);
        if (['deleting', 'deleted'].includes(domain.status)) throw new UsageError(`domain ${id} is ${domain.status}; nothing to ${action}`);
        const signal: DomainSignalPayload = action === 'suspend' ? { signal: 'suspend', reason: values.reason ?? 'suspended by operator' } : { signal: 'resume' };
        // Through the workflow outbox: the worker delivers the signal within a second, and the
        // workflow makes (and records) the move.
        await db.transaction((tx) => workflowOutboxRepository(db).enqueue(tx, 'signal_domain', domainWorkflowId(id), signal));
        out(`${action} requested for ${domain.hostname} (${id}, now ${domain.status}); the worker applies it within seconds`);
        return;
      }
      case 'domains certificate': {
        try {
          await customCertificateCommand(db, config, positionals[0], positionals[1], { cert: values.cert, key: values.key }, out);
        } catch (error) {
          if (error instanceof CertificateCommandError) throw new UsageError(error.message);
          throw error;
        }
        return;
      }
      case 'domains traffic': {
        const id = positionals[0];
        if (!id) throw new UsageError('domains traffic needs a domain id');
        const since = parseSince(values.since ?? '1h');
        if (since === null) throw new UsageError(`--since ${values.since} is not a duration like 90m, 6h or 7d (at most 400d)`);
        if (!(await domainTraffic(db, id, since, out))) throw new UsageError(`domain ${id} does not exist`);
        return;
      }
      case 'edge status': {
        const edges = edgeRepository(db);
        const nodes = await edges.nodes(positionals[0]);
        if (nodes.length === 0) out(positionals[0] ? `edge ${positionals[0]} has never reported` : 'no edge has reported yet');
        for (const n of nodes) {
          // The same decision as the edge's health endpoint and the activation check (model/edge-health.ts).
          const health = describeNode({ lastSeenAt: Date.parse(n.last_seen_at), heartbeatIntervalMs: n.heartbeat_interval_ms, state: n.state, syncLagMs: n.sync_lag_ms }, Date.parse(n.now));
          out(`${n.id}\tlast seen ${n.last_seen_at}\tlast sync ${n.last_sync_at ?? 'never'}\tserving ${n.serving_hostnames} hostnames\t${n.deployments} certificates deployed\t${n.problems.length} problems\t${health}`);
          for (const p of n.problems as { hostname: string; code: string; message: string }[]) out(`  problem\t${p.hostname}\t${p.code}\t${p.message}`);
          for (const d of await edges.deployments(n.id, 50)) out(`  serves\t${d.hostname}\t${d.status}\tcertificate ${d.certificate_id} (serial ${d.serial}, expires ${d.not_after})\tdeployed ${d.deployed_at}`);
          if (n.deployments > 50) out(`  … and ${n.deployments - 50} more`);
        }
        return;
      }
      case 'invoices list': {
        if (!values.org) throw new UsageError('--org is required');
        if (!(await orgs.get(values.org))) throw new UsageError(`organization ${values.org} does not exist (see \`hostgate orgs list\`)`);
        const invoices = await billingRepository(db).invoices(values.org);
        if (invoices.length === 0) out(`no invoice yet for ${values.org}: one is made when a billing period closes`);
        for (const i of invoices) {
          const euros = `EUR ${(i.total_cents / 100).toFixed(2)}`;
          out(`${i.id}	${i.period_start} → ${i.period_end}	${i.plan}	peak ${i.peak_hostnames} of ${i.included_hostnames} included	overage ${i.overage_quantity}	${euros}	${i.provider_invoice_id ? `provider invoice ${i.provider_invoice_id}` : 'local'}`);
        }
        return;
      }
      case 'keys revoke': {
        const id = positionals[0];
        if (!id) throw new UsageError('keys revoke needs a key id (see `hostgate keys list`)');
        const key = await keys.revoke(id);
        if (!key) throw new UsageError(`key ${id} does not exist`);
        out(`revoked ${key.id} at ${key.revoked_at}`);
        return;
      }
    }
  } finally {
    await db.end();
  }
}

const invokedDirectly = process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]));
if (invokedDirectly) {
  try {
    const code = await run(process.argv.slice(2), (line) => console.log(line));
    if (code) process.exitCode = code;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`hostgate: ${error.message}\n\n${usage}`);
      process.exit(64);
    }
    if (error instanceof ConfigError) { console.error(error.message); process.exit(78); }
    console.error(`hostgate: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
