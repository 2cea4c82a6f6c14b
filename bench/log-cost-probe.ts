// `npm exec -- node bench/log-cost-probe.ts [--duration 5] [--rounds 3] [--threads 2] [--variants off,ring]`:
// what the request log costs HAProxy itself, without TLS, origin or agent in the picture
// (docs/analytics.md, "Cost of the request log"). A bare HAProxy (Debian 2.6) answers every request
// itself (`http-request return`) after the same variable work as the edge's frontend; autocannon
// drives it (-c 32, keep-alive); the ring forwards to the agent's real receiver (parse and count
// included) in a process of its own. Variants alternate, `--rounds` times each; per run: req/s,
// HAProxy's CPU µs per request (/proc/<pid>/stat of its one process), the receiver's µs per line.
// `--perf <variant>` records `perf record -g` of HAProxy during that variant's last run.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { TRAFFIC_LOG_FORMAT } from '../model/analytics-counters.ts';
import { trafficLogConfig, trafficRingConfig } from '../edge/agent/traffic-log.ts';
import { CLK_TCK } from './support/proc-sampler.ts';
import { freePort, sleep } from './support/run.ts';

const { values: args } = parseArgs({ options: {
  duration: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3' }, threads: { type: 'string', default: '2' },
  variants: { type: 'string', default: 'off,ring' }, perf: { type: 'string', default: '' },
} });
const duration = Number(args.duration);
const rounds = Number(args.rounds);

/** Log variants: the edge's own config lines (`ring`) and formats to compare with it. */
const variants: Record<string, { ring: boolean; log?: string; rings?: number }> = {
  off: { ring: false },
  ring: { ring: true },
  // The format before this change, kept to compare (agent parser still reads it: hg1).
  'ring-hg1': { ring: true, log: 'hg1 %ST %U %B %Tr %Ta %HV %sslv %ts %[var(txn.counted)] %[var(txn.route),field(3,|)] %[var(txn.host)]' },
  // The built-in aliases only (no %[sample]): what the three sample fields cost.
  'ring-alias': { ring: true, log: 'hg1 %ST %U %B %Tr %Ta %HV %sslv %ts' },
  // The domain id from a variable the frontend set once (no converter at log time).
  'ring-domvar': { ring: true, log: 'hg1 %ST %U %B %Tr %Ta %HV %sslv %ts %[var(txn.counted)] %[var(txn.domain)] %[var(txn.host)]' },
  // Only the constant prefix: what the ring and forwarder cost with no fields to build.
  'ring-const': { ring: true, log: 'hg1' },
  // Two rings, every other line to each (`sample`): each ring's lock is taken by half the lines.
  ring2: { ring: true, rings: 2 },
};

const ctx = { dir: mkdtempSync(path.join(tmpdir(), 'hg-logprobe-')) };
const cpuSeconds = (pid: number) => {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
};

async function startReceiver(): Promise<{ child: ChildProcess; port: number; stats: () => Promise<{ lines: number; reads: number }> }> {
  const child = spawn(process.execPath, [path.resolve('bench/support/log-probe-receiver.ts')], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
  const stats = () => new Promise<{ lines: number; reads: number }>((resolve) => { child.once('message', (m) => resolve(m as { lines: number; reads: number })); child.send('stats'); });
  return { child, port, stats };
}

async function startHaproxy(name: string, receiverPort: number): Promise<{ child: ChildProcess; port: number }> {
  const v = variants[name]!;
  const port = await freePort();
  let logLines = v.ring ? trafficLogConfig(receiverPort) : '# no request log';
  let ringLines = v.ring ? trafficRingConfig(receiverPort) : '';
  if (v.rings && v.rings > 1) {
    const one = ringLines;
    const logLine = /log ring@\S+ .*/.exec(logLines)![0];
    ringLines = Array.from({ length: v.rings }, (_, i) => one.replace('ring hostgate_traffic', `ring hostgate_traffic${i}`)).join('\n');
    logLines = logLines.replace(logLine, Array.from({ length: v.rings }, (_, i) => logLine.replace('ring@hostgate_traffic', `ring@hostgate_traffic${i}`).replace(' format raw', ` format raw sample ${i + 1}:${v.rings}`)).join('\n  '));
  }
  const cfg = [
    'global', `  nbthread ${args.threads}`, '  log stderr format raw local0 info',
    ringLines,
    'defaults', '  mode http', '  log global', '  option httplog', '  option dontlog-normal',
    '  timeout connect 5s', '  timeout client 30s', '  timeout server 30s',
    'frontend f',
    `  ${v.log ? logLines.replace(TRAFFIC_LOG_FORMAT, v.log) : logLines}`,
    `  bind 127.0.0.1:${port}`,
    // The edge's variable work per request (its frontend sets the same before the log reads them).
    '  http-request set-var(txn.host) req.hdr(host),field(1,:),lower',
    '  http-request set-var(txn.route) str(origin.probe.test|8443|dom_0123456789abcdefghijkl|active|crt_x)',
    '  http-request set-var(txn.domain) var(txn.route),field(3,|)',
    '  http-request set-var(txn.counted) int(1)',
    '  http-request return status 200 content-type text/plain string "ok"',
  ].join('\n') + '\n';
  const file = path.join(ctx.dir, `${name}.cfg`);
  writeFileSync(file, cfg);
  execFileSync('haproxy', ['-c', '-q', '-f', file]);
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  await sleep(300);
  return { child, port };
}

type Autocannon = (o: Record<string, unknown>) => PromiseLike<{ requests: { total: number; average: number } }>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const rows: Record<string, { rps: number[]; us: number[]; rxUs: number[]; perRead: number[] }> = {};
const names = args.variants.split(',');
for (let round = 0; round < rounds; round++) {
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const rx = await startReceiver();
    const hp = await startHaproxy(name, rx.port);
    await autocannon({ url: `http://127.0.0.1:${hp.port}/`, headers: { host: 'shop.probe.test' }, connections: 32, duration: 1 });
    const s0 = await rx.stats();
    const [h0, r0] = [cpuSeconds(hp.child.pid!), cpuSeconds(rx.child.pid!)];
    const perf = args.perf === name && round >= rounds - 2
      ? spawn('perf', ['record', '-g', '-o', path.join(ctx.dir, `perf-${name}.data`), '-p', String(hp.child.pid), '--', 'sleep', String(duration)], { stdio: 'ignore' }) : null;
    const r = await autocannon({ url: `http://127.0.0.1:${hp.port}/`, headers: { host: 'shop.probe.test' }, connections: 32, duration });
    const [h1, r1] = [cpuSeconds(hp.child.pid!), cpuSeconds(rx.child.pid!)];
    await sleep(100);
    const s1 = await rx.stats();
    if (perf) await new Promise((resolve) => perf.once('exit', resolve));
    const lines = s1.lines - s0.lines;
    const row = (rows[name] ??= { rps: [], us: [], rxUs: [], perRead: [] });
    row.rps.push(Math.round(r.requests.average));
    row.us.push(Math.round(((h1 - h0) / r.requests.total) * 1e7) / 10);
    if (lines > 0) { row.rxUs.push(Math.round(((r1 - r0) / lines) * 1e7) / 10); row.perRead.push(Math.round(lines / Math.max(1, s1.reads - s0.reads))); }
    console.log(`round ${round + 1} ${name.padEnd(10)} ${Math.round(r.requests.average)} req/s, HAProxy ${row.us.at(-1)} µs/request, receiver ${lines ? `${row.rxUs.at(-1)} µs/line, ${row.perRead.at(-1)} lines/read` : '-'}${perf ? ` (perf: ${ctx.dir}/perf-${name}.data)` : ''}`);
    hp.child.kill('SIGKILL');
    rx.child.kill('SIGKILL');
    await sleep(200);
  }
}
const med = (v: number[]) => { const s = [...v].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)]! : null; };
const summary = Object.fromEntries(Object.entries(rows).map(([k, r]) => [k, { rps: med(r.rps), haproxy_us_per_request: med(r.us), haproxy_us_rounds: r.us, receiver_us_per_line: med(r.rxUs), lines_per_read: med(r.perRead) }]));
console.log(JSON.stringify({ threads: Number(args.threads), duration_s: duration, rounds, ...summary }));
