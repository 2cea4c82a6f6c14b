// `npm run bench:lifecycle [-- --domains 200 --idle-domains 5000 --idle-seconds 300 --skip-idle
// --profile-worker dir]`:
// how fast a domain goes from "verify" to active with the real worker, and what domains waiting
// for DNS cost when nothing happens, on this machine. Not a test: it prints figures and exits 0
// whether or not the latency target is met (it exits 1 only when the benchmark cannot run).
//
// What runs: a fresh database hg_bench_<random> (migrated) on the local Postgres or DATABASE_URL's
// server; a Temporal dev server on an SQLite file in a temp dir (WAL pragmas, as `npm start` runs
// it); the acme stack of the tests (a loopback DNS server holding the customers' zones, Pebble
// validating through it with PEBBLE_VA_NOSLEEP=1 and no nonce rejection, our HTTP-01 challenge
// listener); the API built by buildApp with the outbox dispatcher on a free loopback port; and ONE
// worker, `worker/main.ts` in a child process (prebuilt workflow bundle, LOG_LEVEL=warn), so its
// CPU and memory can be read from /proc apart from everything else. The worker also runs the
// outbox sweep, the webhook fan-out and maintenance, as in production. The API, the DNS server
// and the challenge listener share this process; everything shares this machine's cores.
//
// Phase A (verify → active): one warm-up domain (it registers the ACME account), then a few
// domains one at a time (unloaded latency), then --domains at once: created through the API,
// first DNS check seen (nxdomain), CNAMEs set in the test DNS server, POST /v1/domains/{id}/verify
// sent to all in quick succession; Postgres (domain_status_history) is polled for the `active`
// rows (every 250 ms in the burst, 50 ms one at a time). Latency = the active row's created_at −
// the moment the verify request was sent (so how often the bench polls does not change it).
//
// Phase B (idle cost): --idle-domains more domains created through the API with no DNS records
// (they stay pending_dns, their checks backing off 5 s, 10 s, 20 s … up to 1 h); after they
// settle, the worker's CPU time and RSS (/proc/<pid>/stat, /proc/<pid>/status) are sampled every
// 10 s over --idle-seconds, with the DNS queries the test server receives, the Temporal dev
// server's CPU and RSS, and the CPU of the database's Postgres backends.
//
// Slow-resolver mode (--slow-dns-ms min-max --pending n --verified n) replaces both phases: see
// bench/lifecycle/slow-dns.ts (issue 14: slow DNS must not starve the worker).
//
// The phases live in bench/lifecycle/ (stack.ts starts everything, one-at-a-time.ts and burst.ts
// are phase A, idle.ts phase B, the *-report.ts files and summary.ts print); /proc sampling is
// bench/support/proc-sampler.ts.
import { randomBytes } from 'node:crypto';
import { findTemporalCli } from '../local-stack/temporal-dev-server.ts';
import { runBurst } from './lifecycle/burst.ts';
import { domainsOf } from './lifecycle/domains.ts';
import { printHeader } from './lifecycle/header.ts';
import { reportIdle } from './lifecycle/idle-report.ts';
import { runIdle } from './lifecycle/idle.ts';
import { meters } from './lifecycle/meters.ts';
import { runOneAtATime } from './lifecycle/one-at-a-time.ts';
import { parseOptions } from './lifecycle/options.ts';
import { reportPhaseA } from './lifecycle/phase-a-report.ts';
import { printSlowDns, runSlowDns } from './lifecycle/slow-dns.ts';
import { startStack } from './lifecycle/stack.ts';
import { printSummary } from './lifecycle/summary.ts';
import { connectBenchPostgres, progress, runBenchmark, type Headline } from './support/run.ts';

const options = parseOptions();

async function main(): Promise<Headline> {
  const runId = randomBytes(4).toString('hex');
  const pg = await connectBenchPostgres(runId);
  const temporalCli = findTemporalCli(process.env.TEMPORAL_CLI_PATH, progress);
  printHeader(options, pg, temporalCli);
  const stack = await startStack(options, pg, runId, temporalCli);
  const read = meters(stack);
  const domains = domainsOf(stack);
  if (options.slowDns) return printSlowDns(stack, options.slowDns, await runSlowDns(stack, domains, read, options.slowDns));

  console.log('');
  progress('── phase A: verify → active ──');
  const one = await runOneAtATime(stack, domains, options.sequentialCount);
  const burst = await runBurst(stack, domains, read, options.burstCount);
  const phaseA = await reportPhaseA(stack, options, one, burst);

  const idle = options.skipIdle ? null : await reportIdle(stack, options, await runIdle(stack, domains, read, options));
  return printSummary(stack, options, phaseA, idle);
}

await runBenchmark(main, 'worker, API, servers, pools, Temporal, bench database, temp dir');
