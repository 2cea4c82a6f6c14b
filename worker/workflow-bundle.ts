// The workflow bundle: built once ahead of time (`npm run build:workflows`, the Docker image, and
// `npm start` when sources changed) so a worker start does not pay webpack on every boot.
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
export const defaultBundlePath = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));
const sourceRoots = ['../workflows/', '../model/', '../contracts/'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
/** This file too: a bundle built before a change of its options is stale. */
const bundleOptionsSource = fileURLToPath(import.meta.url);

function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
    }
  };
  for (const root of sourceRoots) if (existsSync(root)) walk(root);
  return Math.max(newest, statSync(bundleOptionsSource).mtimeMs);
}

export function bundleIsFresh(bundlePath = defaultBundlePath): boolean {
  return existsSync(bundlePath) && statSync(bundlePath).mtimeMs >= newestSource();
}

/**
 * Our workflow modules (and the SDK's that they import) are loaded once per workflow thread and
 * shared by every run in it, instead of a fresh copy per run: with 1,813 runs cached that copy was
 * 80 KiB each, ≈ 95 MB of the workflow thread's live heap after a bulk import of 5,000 (26 KiB per
 * run left; docs/scale.md "Where the worker's memory goes…"). Allowed because no module of the bundle keeps state at
 * module level — constants, proxies, signal and query definitions only; per-run state lives in
 * each run's objects (workflows/domain/context.ts). A module that ever needs state of its own must
 * keep it in the run (the SDK warns that preloaded state leaks between runs).
 */
export const bundleOptions = (from: string) => ({ preloadModules: [from] });

/** The workflow code bundled from source (tests; `from`: another set of workflows, e.g. a v2). */
export async function bundleFromSource(from = workflowsPath): Promise<{ code: string }> {
  const { code } = await bundleWorkflowCode({ workflowsPath: from, logger: new DefaultLogger('WARN'), ...bundleOptions(from) });
  return { code };
}

export async function buildWorkflowBundle(bundlePath = defaultBundlePath): Promise<string> {
  const { code } = await bundleFromSource();
  mkdirSync(path.dirname(bundlePath), { recursive: true });
  writeFileSync(bundlePath, code);
  return bundlePath;
}

export function readBundle(bundlePath = defaultBundlePath): { code: string } {
  return { code: readFileSync(bundlePath, 'utf8') };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const started = Date.now();
  const out = await buildWorkflowBundle(process.argv[2] ?? defaultBundlePath);
  console.log(`workflow bundle written to ${path.relative(process.cwd(), out)} in ${Date.now() - started} ms`);
}
