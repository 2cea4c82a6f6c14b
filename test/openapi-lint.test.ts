// The served OpenAPI document as third-party tools see it (issue 25). Spectral's `spectral:oas`
// ruleset (pinned devDependency, run offline) reports nothing; openapi-python-client (pinned, pip:
// .ci/run installs it) generates a client with one model per named component — `Domain`, `Error`,
// no `PostV1DomainsResponse409Error` — whose enums are plain enums (no one-value classes, no
// `…Type0` unions of them), whose functions are named after the operationIds, and whose models
// parse real answers of the API.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
/** The pin in .ci/run: a different version may name things differently. */
const OPENAPI_PYTHON_CLIENT_VERSION = '0.29.1';

type Json = any;

interface SpectralResult { code: string; severity: number; path: string[]; message: string }

/** openapi-python-client's name for an operationId: `webhookEndpoints.rotateSecret` → `webhook_endpoints_rotate_secret`. */
const snake = (id: string) => id.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9]+/g, '_').toLowerCase();

describe('the OpenAPI document in third-party tools', () => {
  let t: TestApp;
  let scratch: string;
  let doc: Json;
  let docPath: string;

  beforeAll(async () => {
    t = await createTestApp();
    scratch = await mkdtemp(path.join(tmpdir(), 'hostgate-openapi-lint-'));
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = JSON.parse(res.body);
    docPath = path.join(scratch, 'openapi.json');
    await writeFile(docPath, res.body);
  });
  afterAll(async () => {
    await t?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  async function spectral(file: string): Promise<SpectralResult[]> {
    // Exit code 1 when it finds an error: the JSON on stdout is the answer either way.
    const out = await run(path.join(root, 'node_modules', '.bin', 'spectral'), ['lint', file, '--ruleset', path.join(root, '.spectral.yaml'), '--format', 'json', '--quiet'], { cwd: scratch, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 })
      .catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    const text = out.stdout.trim();
    if (!text.startsWith('[')) throw new Error(`spectral printed no results: ${text.slice(0, 500)} ${out.stderr.slice(0, 500)}`);
    return JSON.parse(text) as SpectralResult[];
  }
  const summary = (results: SpectralResult[]) => results.map((r) => `${['error', 'warning', 'info', 'hint'][r.severity]} ${r.code} ${r.path.join('.')}: ${r.message}`);

  it('Spectral (spectral:oas) reports 0 errors and 0 warnings', async () => {
    const results = await spectral(docPath);
    expect(summary(results.filter((r) => r.severity <= 1))).toEqual([]);
  });

  it('the Spectral gate is not vacuous: a copy without an operationId and a description is reported', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/v1/domains'].post.operationId;
    delete broken.paths['/v1/domains'].get.description;
    delete broken.info.contact;
    const file = path.join(scratch, 'broken.json');
    await writeFile(file, JSON.stringify(broken));
    const codes = (await spectral(file)).map((r) => r.code).sort();
    expect(codes).toEqual(['info-contact', 'operation-description', 'operation-operationId']);
  });

  it('every operation has a unique operationId of the form resource.verb', () => {
    const ids: string[] = [];
    for (const item of Object.values<Json>(doc.paths)) for (const op of Object.values<Json>(item)) ids.push(op.operationId);
    expect(ids.length).toBeGreaterThanOrEqual(31);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/);
  });

  it('every operation, parameter and response has a description of its own, and every tag used is declared with one', () => {
    const missing: string[] = [];
    const tags = new Map<string, string>((doc.tags ?? []).map((tag: Json) => [tag.name, tag.description]));
    for (const [section, entries] of [['paths', doc.paths], ['webhooks', doc.webhooks]] as const) {
      for (const [template, item] of Object.entries<Json>(entries)) {
        for (const [method, op] of Object.entries<Json>(item)) {
          const where = `${section} ${method.toUpperCase()} ${template}`;
          if (!op.description) missing.push(`${where}: operation`);
          for (const p of op.parameters ?? []) if (!p.description) missing.push(`${where}: parameter ${p.name}`);
          for (const [status, r] of Object.entries<Json>(op.responses)) if (!r.description || r.description === 'Default Response') missing.push(`${where}: response ${status}`);
          for (const tag of op.tags ?? []) if (!tags.get(tag)) missing.push(`${where}: tag ${tag}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  describe('openapi-python-client', () => {
    let out: string;
    let models: Map<string, string>;

    beforeAll(async () => {
      const version = await run('python3', ['-m', 'openapi_python_client', '--version'], { timeout: 60_000 });
      expect(version.stdout.trim()).toBe(`openapi-python-client version: ${OPENAPI_PYTHON_CLIENT_VERSION}`);
      out = path.join(scratch, 'client');
      await run('python3', ['-m', 'openapi_python_client', 'generate', '--path', docPath, '--output-path', out, '--meta', 'none'], { cwd: scratch, timeout: 240_000 });
      models = new Map();
      for (const file of (await readdir(path.join(out, 'models'))).filter((f) => f.endsWith('.py') && f !== '__init__.py')) {
        models.set(file, await readFile(path.join(out, 'models', file), 'utf8'));
      }
    }, 300_000);

    it('makes one model per named shape: Domain and Error among them, no per-operation copies', () => {
      const classes = [...models.values()].flatMap((text) => [...text.matchAll(/^class (\w+)[(:]/gm)].map((m) => m[1]!));
      expect(classes).toEqual(expect.arrayContaining(['Domain', 'DomainDetail', 'Destination', 'WebhookEndpoint', 'WebhookDelivery', 'WebhookAttempt', 'Usage', 'Invoice', 'Error', 'ErrorObject', 'DomainStatus', 'EventKind', 'HostnameActiveEvent']));
      // Before the components: 1,168 models, 249 of them error classes named after an operation and a status.
      expect(classes.filter((c) => /Response\d{3}/.test(c))).toEqual([]);
      expect(classes.length).toBeLessThan(120);
    });

    it('makes plain enums: each a class of several values, none of them one-value pieces of a union', () => {
      const enums = [...models].filter(([, text]) => /^class \w+\((StrEnum|IntEnum|str, Enum|int, Enum)\):/m.test(text));
      expect(enums.map(([file]) => file)).toEqual(expect.arrayContaining(['domain_status.py', 'event_kind.py', 'plan.py', 'dns_record_type.py', 'webhook_delivery_status.py', 'subscribed_event.py']));
      for (const [file, text] of enums) {
        const members = [...text.matchAll(/^ {4}[A-Z0-9_]+ = /gm)].length;
        expect([file, members >= 2]).toEqual([file, true]);
      }
      expect([...models.keys()].filter((f) => /_type_\d+(_|\.py)/.test(f))).toEqual([]);
      expect(models.get('domain_status.py')).toMatch(/PENDING_DNS = "pending_dns"/);
    });

    it('names each operation\'s module after its operationId', async () => {
      for (const item of Object.values<Json>(doc.paths)) {
        for (const op of Object.values<Json>(item)) {
          const file = path.join(out, 'api', snake(op.tags[0]), `${snake(op.operationId)}.py`);
          const text = await readFile(file, 'utf8').catch(() => null);
          expect([op.operationId, text !== null && /^def sync\(/m.test(text)]).toEqual([op.operationId, true]);
        }
      }
    });

    it('its models parse real answers: a domain, a list filtered by a plain status string, an error', async () => {
      const o = await createOrgWithKey(t);
      const api = client(t.app, o.auth);
      const destination = (await api.post('/v1/destinations', { url: 'https://app.python-client.example' })).json().data.id as string;
      const created = (await api.post('/v1/domains', { hostname: 'shop.python-client.example', destination_id: destination })).json();
      const detail = (await api.get(`/v1/domains/${created.data.id}`)).json();
      const list = (await api.get('/v1/domains?status=pending_dns')).json();
      const error = (await api.get('/v1/domains/dom_doesnotexist')).json();
      const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(scratch)})
from client.models.domain_response import DomainResponse
from client.models.domain_detail_response import DomainDetailResponse
from client.models.domain_list import DomainList
from client.models.domain_status import DomainStatus
from client.models.error import Error
answers = json.load(sys.stdin)
created = DomainResponse.from_dict(answers["created"]).data
detail = DomainDetailResponse.from_dict(answers["detail"]).data
page = DomainList.from_dict(answers["list"])
error = Error.from_dict(answers["error"])
print(json.dumps({
  "status": created.status is DomainStatus.PENDING_DNS,
  "plain": DomainStatus("pending_dns") is DomainStatus.PENDING_DNS,
  "record": created.dns_records[0].type_.value,
  "bytes": detail.bandwidth.bytes_,
  "listed": [d.hostname for d in page.data],
  "code": error.error.code,
  "created_at": created.created_at.isoformat(timespec="milliseconds").replace("+00:00", "Z") == answers["created"]["data"]["created_at"],
}))
`;
      const scriptPath = path.join(scratch, 'parse.py');
      await writeFile(scriptPath, script);
      const child = execFile('python3', [scriptPath], { cwd: path.dirname(out), timeout: 60_000 });
      child.stdin!.end(JSON.stringify({ created, detail, list, error }));
      const stdout = await new Promise<string>((resolve, reject) => {
        let text = '';
        let err = '';
        child.stdout!.on('data', (c) => { text += c; });
        child.stderr!.on('data', (c) => { err += c; });
        child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`python exited ${code}: ${err}`))));
      });
      expect(JSON.parse(stdout)).toEqual({
        status: true, plain: true, record: 'CNAME', bytes: 0, listed: ['shop.python-client.example'], code: 'domain_not_found', created_at: true,
      });
    });
  });
});
