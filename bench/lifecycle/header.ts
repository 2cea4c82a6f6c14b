// The report's first lines: the machine, the versions and how every component of the run is set up.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import v8 from 'node:v8';
import { printMachine } from '../support/print.ts';
import { CLK_TCK } from '../support/proc-sampler.ts';
import type { BenchPostgres } from '../support/run.ts';
import { int } from './figures.ts';
import { cachedWorkflowsFor } from '../../worker/create-worker.ts';
import { PHASE_A_CAP_MS, POOL_SIZE, SAMPLE_MS, type LifecycleOptions } from './options.ts';

const versionOf = (file: string, args: string[]) => { try { return execFileSync(file, args, { encoding: 'utf8' }).trim(); } catch { return 'unknown'; } };

export function printHeader(options: LifecycleOptions, pg: BenchPostgres, temporalCli: string): void {
  const cpus = os.cpus();
  const cliVersion = versionOf(temporalCli, ['--version']);
  const pebbleVersion = versionOf('dpkg-query', ['-W', '-f=${Version}', 'pebble']);
  const sdkVersion = (createRequire(import.meta.url)('@temporalio/worker/package.json') as { version: string }).version;
  // The worker's workflow cache: set directly, else derived from its memory budget (worker/create-worker.ts).
  const memoryMb = Number(process.env.HOSTGATE_WORKER_MEMORY_MB ?? 1024);
  const stickyCache = process.env.HOSTGATE_WORKER_MAX_CACHED_WORKFLOWS ? Number(process.env.HOSTGATE_WORKER_MAX_CACHED_WORKFLOWS) : cachedWorkflowsFor(memoryMb, { workflowThreads: Number(process.env.HOSTGATE_WORKER_WORKFLOW_THREADS ?? 1) });
  const heapMiB = v8.getHeapStatistics().heap_size_limit / 2 ** 20;
  const { burstCount, sequentialCount, idleCount, idleSeconds, settleSeconds, skipIdle } = options;
  printMachine('Hostgate lifecycle benchmark', pg);
  console.log(`  temporal   ${cliVersion.replace(/\s+/g, ' ')}: dev server, SQLite file in a temp dir, journal_mode=wal, synchronous=normal`);
  console.log(`  acme       Pebble ${pebbleVersion} (PEBBLE_VA_NOSLEEP=1, nonce rejection 0 %), loopback DNS server (dns2) in this process`);
  console.log(`  worker     worker/main.ts in a child process, @temporalio/worker ${sdkVersion}, prebuilt bundle, DB pool ${POOL_SIZE}, LOG_LEVEL=warn;`);
  console.log(`             workflow cache ${int(stickyCache)} (memory budget ${int(memoryMb)} MiB; heap limit ${int(heapMiB)} MiB), 100 activity / 40 workflow task slots; DNS checker in the worker`);
  console.log(`  api        buildApp in this process with the outbox dispatcher, DB pool ${POOL_SIZE}, LOG_LEVEL=silent, rate limit set out of reach`);
  console.log(`  phases     A: 1 warm-up + ${sequentialCount} sequential + ${burstCount} at once (verify → active, cap ${PHASE_A_CAP_MS / 60_000} min);`);
  console.log(`             B: ${skipIdle ? 'skipped' : `${int(idleCount)} idle pending_dns domains, ${settleSeconds} s settle, ${idleSeconds} s window sampled every ${SAMPLE_MS / 1000} s`}`);
  console.log(`  cpu time   /proc/<pid>/stat utime+stime (CLK_TCK ${CLK_TCK}), RSS from /proc/<pid>/status VmRSS; 100 % = one core of ${cpus.length}`);
  console.log(`  note       API, worker, Postgres, Temporal, Pebble and the DNS server all share these ${cpus.length} cores`);
  console.log('');
}
