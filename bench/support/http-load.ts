// Keep-alive HTTPS load for a fixed time, by one of two clients, with the CPU the client itself
// used (on a machine the client shares with what it measures, that CPU is part of the picture).
//
//   h2load (Debian `nghttp2-client`, C, one thread, HTTP/1.1 with --h1): the default when on PATH.
//     ≈ 15 µs of CPU per request here, half of autocannon's, so more of the cores go to what is
//     measured. Its CPU is read with the shell's `times` (children's user+sys), its latencies
//     from its per-request log (it prints no percentiles).
//   autocannon (npm, in this Node process): the fallback; its CPU is this process's
//     (process.cpuUsage), which also holds the benchmark's own idle bookkeeping.
import { execFile, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { percentile } from './stats.ts';

export type LoadClient = 'h2load' | 'autocannon';

export interface LoadTarget {
  /** Where to connect (an IP) and on which port. */
  address: string;
  port: number;
  /** The name sent as SNI and as Host. */
  hostname: string;
}

export interface LoadResult {
  rps: number;
  total: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** CPU seconds (user + system) the client used during the run. */
  clientCpuSeconds: number;
}

export const h2loadInstallHint = 'h2load is not installed (Debian/Ubuntu: apt-get install nghttp2-client); using autocannon';

export function h2loadAvailable(): boolean {
  try {
    execFileSync('h2load', ['--version'], { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

const seconds = (clock: string) => { const m = /^(\d+)m([\d.]+)s$/.exec(clock); return m ? Number(m[1]) * 60 + Number(m[2]) : 0; };

async function h2load(target: LoadTarget, connections: number, durationS: number): Promise<LoadResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hg-h2load-'));
  try {
    const log = path.join(dir, 'requests.log');
    // `times` prints the shell's, then its children's user and system CPU: h2load's own.
    const script = 'h2load "$@"; s=$?; times; exit $s';
    const args = ['--h1', '-c', String(connections), '-m', '1', '-D', String(durationS), '--log-file', log,
      '--connect-to', `${target.address}:${target.port}`, `https://${target.hostname}:${target.port}/`];
    const { stdout } = await promisify(execFile)('sh', ['-c', script, 'sh', ...args], { timeout: (durationS + 60) * 1000, maxBuffer: 16 * 2 ** 20 });
    const finished = /finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(stdout);
    const req = /requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(stdout);
    const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(stdout);
    const clocks = stdout.trim().split('\n').slice(-1)[0]!.trim().split(/\s+/);
    if (!finished || !req || !codes) throw new Error(`unexpected h2load output: ${stdout.slice(-500)}`);
    const durations = Float64Array.from((await readFile(log, 'utf8')).split('\n').filter(Boolean).map((l) => Number(l.split('\t')[2]) / 1000)).sort();
    return {
      rps: Number(finished[1]),
      total: Number(req[2]),
      p50Ms: percentile(durations, 50),
      p99Ms: percentile(durations, 99),
      non2xx: Number(codes[2]) + Number(codes[3]) + Number(codes[4]),
      errors: Number(req[3]) + Number(req[4]) + Number(req[5]),
      clientCpuSeconds: seconds(clocks[0] ?? '') + seconds(clocks[1] ?? ''),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// autocannon ships no types; this is the part used here.
type Autocannon = (o: Record<string, unknown>) => PromiseLike<{ requests: { average: number; total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }>;

async function autocannon(target: LoadTarget, connections: number, durationS: number): Promise<LoadResult> {
  const run = createRequire(import.meta.url)('autocannon') as Autocannon;
  const before = process.cpuUsage();
  const r = await run({ url: `https://${target.address}:${target.port}/`, servername: target.hostname, headers: { host: target.hostname }, connections, duration: durationS, pipelining: 1 });
  const used = process.cpuUsage(before);
  return { rps: r.requests.average, total: r.requests.total, p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors, clientCpuSeconds: (used.user + used.system) / 1e6 };
}

export function runLoad(client: LoadClient, target: LoadTarget, connections: number, durationS: number): Promise<LoadResult> {
  return client === 'h2load' ? h2load(target, connections, durationS) : autocannon(target, connections, durationS);
}
