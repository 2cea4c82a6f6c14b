import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { run, UsageError } from '../cli/hostgate.ts';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { billingRepository } from '../db/repositories/billing.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';

function cli(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, ['cli/hostgate.ts', ...args], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
}

describe('operator CLI', () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => { t = await createTestDatabase(); env = { DATABASE_URL: t.url }; });
  afterAll(async () => { await t.drop(); });

  it('creates an organization and a key that authenticates, lists and revokes it', async () => {
    const lines: string[] = [];
    await run(['orgs', 'create', '--name', 'Acme'], (l) => lines.push(l), env);
    const orgId = /created organization (org_\w+)/.exec(lines[0]!)![1]!;
    await run(['keys', 'create', '--org', orgId, '--scopes', 'domains:write,destinations:write', '--name', 'ci'], (l) => lines.push(l), env);
    const secret = lines.find((l) => l.startsWith('hg_live_'))!;
    expect(secret).toMatch(/^hg_live_[0-9a-z]{40}$/);
    const key = await apiKeysRepository(t.db).authenticate(secret);
    expect(key?.organization_id).toBe(orgId);
    expect([...key!.scopes].sort()).toEqual(['destinations:write', 'domains:write']);

    const listed: string[] = [];
    await run(['keys', 'list', '--org', orgId], (l) => listed.push(l), env);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toContain(key!.id);
    expect(listed.join('\n')).not.toContain(secret); // the secret is never shown again

    await run(['keys', 'revoke', key!.id], () => undefined, env);
    expect(await apiKeysRepository(t.db).authenticate(secret)).toBeNull();
  });

  it('"all" grants every scope', async () => {
    const lines: string[] = [];
    await run(['orgs', 'create', '--name', 'All'], (l) => lines.push(l), env);
    const orgId = /(org_\w+)/.exec(lines[0]!)![1]!;
    await run(['keys', 'create', '--org', orgId, '--scopes', 'all'], (l) => lines.push(l), env);
    expect(lines.join('\n')).toMatch(/destinations:write,domains:write,webhooks:write,widget:write,billing:write/);
  });

  it('lists an organization\'s invoices of closed periods (none yet, then one with its overage)', async () => {
    const lines: string[] = [];
    await run(['orgs', 'create', '--name', 'Invoiced'], (l) => lines.push(l), env);
    const orgId = /(org_\w+)/.exec(lines[0]!)![1]!;
    const listed: string[] = [];
    await run(['invoices', 'list', '--org', orgId], (l) => listed.push(l), env);
    expect(listed).toEqual([`no invoice yet for ${orgId}: one is made when a billing period closes`]);
    const invoice = await billingRepository(t.db).recordPeriodInvoice({
      organizationId: orgId, periodStart: '2026-10-01T00:00:00Z', periodEnd: '2026-11-01T00:00:00Z', plan: 'starter',
      peak: 112, included: 100, quantity: 12, unitAmountCents: 15, description: '12 hostnames above the 100 included',
    });
    listed.length = 0;
    await run(['invoices', 'list', '--org', orgId], (l) => listed.push(l), env);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toContain(invoice.id);
    expect(listed[0]).toMatch(/\tstarter\tpeak 112 of 100 included\toverage 12\tEUR 1\.80\tlocal$/);
    await expect(run(['invoices', 'list', '--org', 'org_missing'], () => undefined, env)).rejects.toThrow(/organization org_missing does not exist/);
    await expect(run(['invoices', 'list'], () => undefined, env)).rejects.toThrow(/--org is required/);
  });

  it.each([
    [['keys', 'create', '--scopes', 'all'], /--org is required/],
    [['keys', 'create', '--org', 'org_x', '--scopes', 'root'], /unknown scope\(s\): root/],
    [['keys', 'create', '--org', 'org_missing', '--scopes', 'all'], /organization org_missing does not exist/],
    [['orgs', 'create'], /--name is required/],
    [['keys', 'revoke'], /needs a key id/],
    [['keys', 'revoke', 'key_missing'], /does not exist/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['orgs', 'create', '--name', 'x', '--bogus'], /Unknown option '--bogus'/],
  ])('rejects %j with a usage error', async (args, message) => {
    await expect(run(args, () => undefined, env)).rejects.toThrow(UsageError);
    await expect(run(args, () => undefined, env)).rejects.toThrow(message);
  });

  it('exits 64 with the usage text on bad arguments, as a process', () => {
    const result = cli(['keys', 'create', '--org', 'org_x'], env);
    expect(result.status).toBe(64);
    expect(result.stderr).toMatch(/--scopes is required/);
    expect(result.stderr).toMatch(/Usage: hostgate <command>/);
  });

  it('prints help and exits 0', () => {
    const result = cli(['--help'], env);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/keys create --org/);
  });
});
