// Replays recorded workflow histories against the current workflow code; exits non-zero when any
// replay fails (non-determinism). `npm run replay [dir]` — the pre-deploy check.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { bundleOptions, workflowsPath } from './workflow-bundle.ts';

const dir = path.resolve(process.argv[2] ?? 'test/histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
Runtime.install({ logger: new DefaultLogger('WARN') });
const histories = files.map((f) => ({ workflowId: f.replace(/\.json$/, ''), history: JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as unknown }));
const results: { workflowId: string; ok: boolean; error?: string }[] = [];
for await (const result of Worker.runReplayHistories({ workflowsPath, replayName: 'hostgate-replay', bundlerOptions: bundleOptions(workflowsPath) }, histories)) {
  results.push({ workflowId: result.workflowId, ok: !result.error, ...(result.error ? { error: result.error.message } : {}) });
}
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.workflowId}${r.error ? `: ${r.error}` : ''}`);
console.log(`replayed ${results.length} histories from ${path.relative(process.cwd(), dir) || '.'}: ${results.filter((r) => r.ok).length} ok, ${results.filter((r) => !r.ok).length} failed`);
process.exit(results.length > 0 && results.every((r) => r.ok) ? 0 : 1);
