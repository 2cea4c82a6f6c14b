// The README's guided tour ("A first domain, step by step"), run as written against the real stack:
// the API over Postgres, a Temporal worker, the webhook fan-out, Pebble (ACME) validating through
// a DNS server on loopback, and a webhook receiver.
//
// Why the test parses the README rather than the README being generated from a script: the page
// stays hand-written prose a newcomer reads (and a generator's output would be one more artefact
// to keep in step), while this test makes every command and every answer shown in it a claim that
// is checked on each run. A feature that changes an answer fails here, naming the step.
//
// How the tour is read: the section between its heading and the next `## ` heading; each ```sh
// block is one command (`npm run cli -- …` or `curl …`), and the block after it shows its result:
// ```text for the CLI (line by line), ```http for curl (status line, then an abridged JSON body:
// every field shown must be in the real answer with that value; arrays have the real length).
// `xyz_…` stands for an id or secret: in an answer it binds (or must equal) the value seen there,
// in a command it is replaced by it. The only rewrites of what the README says: the API's origin
// (requests go through app.inject), the webhook URL (tests reach no internet: the README's URL
// is the loopback receiver's, in requests and answers alike), and the organization that `npm start`
// creates on its first start (created here). Reads showing a state reached asynchronously are
// polled until they match (bounded); writes are sent once, then once more with the same
// Idempotency-Key to check the README's promise that a retry answers the same.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { run } from '../cli/hostgate.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { createLogger } from '../logging/logger.ts';
import { createWebhookFanOut, type WebhookFanOut } from '../temporal/webhook-fan-out.ts';
import { startAcmeStack, type AcmeStack } from './support/acme-stack.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';
import { startReceiver, type Receiver } from './support/webhook-receiver.ts';

const HEADING = '## A first domain, step by step';
const API_ORIGIN = 'http://localhost:3000';
const WEBHOOK_URL = 'https://hooks.example.com/hostgate';
/** What `npm start` configures (config/env.ts defaults), so the DNS records shown are the ones a newcomer sees. */
const CNAME_TARGET = 'edge.hostgate.localhost';
const READ_POLL_MS = 90_000;

type Json = any;
interface Block { lang: string; text: string }
interface Step { command: string; expected: Block }

/** `xyz_…` placeholders: a lower-case prefix ending in `_`, then the ellipsis. */
const PLACEHOLDER = /\b([a-z][a-z0-9]*(?:_[a-z0-9]+)*_)…/g;
const VALUE_OF = (prefix: string) => new RegExp(`^${prefix}[A-Za-z0-9]+$`);

function tourSteps(readme: string): { steps: Step[]; snippets: Block[] } {
  const start = readme.indexOf(`\n${HEADING}`);
  if (start < 0) throw new Error(`README has no "${HEADING}" section`);
  const rest = readme.slice(start + 1);
  const end = rest.indexOf('\n## ', HEADING.length);
  const section = end < 0 ? rest : rest.slice(0, end);
  const blocks: Block[] = [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));
  const steps: Step[] = [];
  const snippets: Block[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    if (block.lang !== 'sh') { snippets.push(block); continue; }
    const expected = blocks[i + 1];
    if (!expected || !['http', 'text'].includes(expected.lang)) throw new Error(`the tour's command ${JSON.stringify(block.text.slice(0, 60))} is not followed by its answer (an http or text block)`);
    steps.push({ command: block.text, expected });
    i++;
  }
  return { steps, snippets };
}

/** Shell words as sh splits them: quotes, backslash-newline continuations, comments. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  const text = command.replace(/\\\n/g, ' ');
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '#' && word === null) { while (i < text.length && text[i] !== '\n') i++; continue; }
    if (/\s/.test(ch)) { if (word !== null) words.push(word); word = null; continue; }
    word ??= '';
    if (ch === "'") { const close = text.indexOf("'", i + 1); word += text.slice(i + 1, close); i = close; continue; }
    if (ch === '"') {
      i++;
      while (i < text.length && text[i] !== '"') { if (text[i] === '\\' && /["\\$`]/.test(text[i + 1] ?? '')) i++; word += text[i]; i++; }
      continue;
    }
    word += ch;
  }
  if (word !== null) words.push(word);
  return words;
}

interface CurlRequest { method: string; url: string; headers: Record<string, string>; body?: string }

function parseCurl(words: string[]): CurlRequest {
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${words.join(' ')}`);
  let method: string | undefined;
  let url: string | undefined;
  const headers: Record<string, string> = {};
  let body: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-X' || w === '--request') method = words[++i];
    else if (w === '-H' || w === '--header') { const h = words[++i]!; const colon = h.indexOf(':'); headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim(); }
    else if (w === '-d' || w === '--data' || w === '--data-raw') body = words[++i];
    else if (/^-[sSi]+$/.test(w)) { /* output options */ }
    else if (w.startsWith('-')) throw new Error(`the tour test does not know curl's ${w}: extend parseCurl`);
    else url = w;
  }
  if (!url) throw new Error(`curl without a URL: ${words.join(' ')}`);
  return { method: method ?? (body === undefined ? 'GET' : 'POST'), url, headers, ...(body === undefined ? {} : { body }) };
}

/** Where `actual` differs from the abridged `expected` (empty when it matches); binds placeholders. */
function differences(expected: Json, actual: Json, bound: Map<string, string>, at = '$'): string[] {
  if (typeof expected === 'string') {
    const placeholder = /^([a-z][a-z0-9]*(?:_[a-z0-9]+)*_)…$/.exec(expected);
    if (!placeholder) return expected === actual ? [] : [`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
    const prefix = placeholder[1]!;
    if (typeof actual !== 'string' || !VALUE_OF(prefix).test(actual)) return [`${at}: expected a ${prefix}… value, got ${JSON.stringify(actual)}`];
    const known = bound.get(prefix);
    if (known !== undefined && known !== actual) return [`${at}: expected the ${prefix}… seen before (${known}), got ${actual}`];
    bound.set(prefix, actual);
    return [];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${at}: expected an array of ${expected.length}, got ${JSON.stringify(actual)}`];
    return expected.flatMap((e, i) => differences(e, actual[i], bound, `${at}[${i}]`));
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([k, v]) => (k in actual ? differences(v, actual[k], bound, `${at}.${k}`) : [`${at}.${k}: missing`]));
  }
  return expected === actual ? [] : [`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

function fillPlaceholders(text: string, bound: Map<string, string>): string {
  return text.replace(PLACEHOLDER, (_m, prefix: string) => {
    const value = bound.get(prefix);
    if (value === undefined) throw new Error(`the tour uses ${prefix}… before any answer showed one`);
    return value;
  });
}

describe('README tour', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  let acme: AcmeStack;
  let t: TestApp;
  let worker: RunningWorker;
  let fanOut: WebhookFanOut;
  let receiver: Receiver;

  beforeAll(async () => {
    acme = await startAcmeStack();
    acme.dns.set(CNAME_TARGET, [{ type: 'A', value: '127.0.0.1' }]);
    t = await createTestApp({ config: { ...acme.configOverrides, HOSTGATE_SERVICE_DOMAIN: 'hostgate.localhost', HOSTGATE_CNAME_TARGET: CNAME_TARGET, HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true' } });
    await acme.serveChallenges(t.database.db);
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    fanOut = createWebhookFanOut({ db: t.database.db, dispatcher: t.dispatcher, logger: createLogger('silent', 'test-fan-out'), databaseUrl: t.database.url });
    await fanOut.start();
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    await fanOut?.stop();
    await worker?.stop();
    await receiver?.close();
    await t?.close();
    await acme?.close();
  });

  it('the parser reads what the tour is written with (so a tour it cannot read fails, not passes)', () => {
    expect(shellWords(`curl ${API_ORIGIN}/v1/x -H "A: b \\"c\\"" \\\n  -d '{"k": "v w"}'  # note`)).toEqual(['curl', `${API_ORIGIN}/v1/x`, '-H', 'A: b "c"', '-d', '{"k": "v w"}']);
    expect(parseCurl(shellWords(`curl -X DELETE ${API_ORIGIN}/v1/x`))).toEqual({ method: 'DELETE', url: `${API_ORIGIN}/v1/x`, headers: {} });
    expect(() => parseCurl(shellWords('curl --form a=b x'))).toThrow(/extend parseCurl/);
    const bound = new Map<string, string>();
    expect(differences({ data: { id: 'dst_…', n: 1 } }, { data: { id: 'dst_01ABC', n: 1, more: true } }, bound)).toEqual([]);
    expect(bound.get('dst_')).toBe('dst_01ABC');
    expect(differences({ data: { id: 'dst_…' } }, { data: { id: 'dst_OTHER' } }, bound)).toHaveLength(1);
    expect(differences({ a: [1] }, { a: [1, 2] }, bound)).toHaveLength(1);
    expect(differences({ a: 'x' }, {}, bound)).toEqual(['$.a: missing']);
  });

  it('runs every step of the tour as written and gets the answers it shows', async () => {
    const { steps, snippets } = tourSteps(readme);
    // The tour covers the vendor's whole journey.
    const commands = steps.map((s) => s.command).join('\n');
    for (const part of ['keys create', '/v1/destinations', '/v1/webhook-endpoints', '/v1/domains', '/verify', '/v1/webhook-deliveries', '/v1/widget-sessions', '/v1/usage']) expect([part, commands.includes(part)]).toEqual([part, true]);

    // The organization `npm start` creates on its first start.
    const bound = new Map<string, string>();
    bound.set('org_', (await organizationsRepository(t.database.db).create({ name: 'Default organization', allowedReturnOrigins: [] })).id);
    const toTest = (text: string) => fillPlaceholders(text, bound).replaceAll(WEBHOOK_URL, receiver.url('/hostgate'));
    const fromTest = (text: string) => text.replaceAll(receiver.url('/hostgate'), WEBHOOK_URL);

    for (const [n, step] of steps.entries()) {
      const words = shellWords(step.command);
      const where = `tour step ${n + 1} (${words.slice(0, 4).join(' ')})`;
      if (words[0] === 'npm') {
        expect([where, words.slice(0, 4)]).toEqual([where, ['npm', 'run', 'cli', '--']]);
        const out: string[] = [];
        await run(words.slice(4).map((w) => toTest(w)), (line) => out.push(line), { DATABASE_URL: t.database.url, PATH: process.env.PATH ?? '' });
        const expectedLines = step.expected.text.trimEnd().split('\n');
        expect([where, out.length]).toEqual([where, expectedLines.length]);
        for (const [i, line] of expectedLines.entries()) {
          // Each placeholder in a line matches one value, which it binds.
          const prefixes: string[] = [];
          const pattern = line.split(PLACEHOLDER).map((part, j) => (j % 2 === 1 ? (prefixes.push(part), `(${part}[A-Za-z0-9]+)`) : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
          const match = new RegExp(`^${pattern}$`).exec(out[i]!);
          expect([where, out[i], Boolean(match)]).toEqual([where, out[i], true]);
          prefixes.forEach((prefix, j) => expect([where, differences(`${prefix}…`, match![j + 1], bound)]).toEqual([where, []]));
        }
        continue;
      }

      const request = parseCurl(words);
      expect([where, request.url.startsWith(`${API_ORIGIN}/v1/`)]).toEqual([where, true]);
      const url = toTest(request.url.slice(API_ORIGIN.length));
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, toTest(v)]));
      const payload = request.body === undefined ? undefined : toTest(request.body);
      const [statusLine, ...bodyLines] = step.expected.text.split('\n');
      const expectedStatus = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)?.[1]);
      const expectedBody = JSON.parse(bodyLines.join('\n'));
      const send = () => t.app.inject({ method: request.method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });

      // The customer sets the records the domain's answer showed, after the first DNS check has
      // found nothing (as in life: the record comes minutes later, and POST /verify checks at once).
      if (request.method === 'POST' && /\/v1\/domains\/[^/]+\/verify$/.test(url)) {
        const id = url.split('/')[3]!;
        const domain = await waitFor('the first DNS check', async () => {
          const d = (await t.app.inject({ method: 'GET', url: `/v1/domains/${id}`, headers })).json().data;
          return d.verification.checked_at ? d : null;
        }, 30_000, 100);
        for (const r of domain.dns_records) acme.dns.set(r.name, [{ type: r.type, value: r.value }]);
      }

      const check = (res: Awaited<ReturnType<typeof send>>) => {
        const trial = new Map(bound);
        const diffs = res.statusCode === expectedStatus ? differences(expectedBody, JSON.parse(fromTest(res.body)), trial) : [`status ${res.statusCode}: ${res.body}`];
        return { diffs, trial };
      };
      let res = await send();
      let outcome = check(res);
      if (request.method === 'GET') {
        // A state reached asynchronously (the domain active, the delivery made): polled, bounded.
        const deadline = Date.now() + READ_POLL_MS;
        while (outcome.diffs.length && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 250));
          res = await send();
          outcome = check(res);
        }
      }
      expect([where, outcome.diffs, outcome.diffs.length ? res.body : '']).toEqual([where, [], '']);
      for (const [k, v] of outcome.trial) bound.set(k, v);
      if (request.method !== 'GET') {
        expect([where, Boolean(headers['idempotency-key'])]).toEqual([where, true]);
        const again = await send();
        expect([where, again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([where, res.statusCode, 'true', res.body]);
      }
    }

    // The embed snippet carries the session's token placeholder and the script the API serves.
    const html = snippets.find((b) => b.lang === 'html');
    expect(html?.text).toContain('<service-widget token="wst_…"');
    expect(html?.text).toContain(`src="${API_ORIGIN}/widget/v1/service-widget.js"`);
    expect(bound.get('wst_')).toMatch(/^wst_/);
    // The delivery shown was really made: signed, to the endpoint's URL.
    const [delivered] = receiver.received('/hostgate');
    expect(delivered?.headers['service-signature']).toEqual(expect.any(String));
  }, 240_000);
});
