// `npm run sdk:build`: compiles the SDK (sdk/src, sdk/webhooks.ts) into sdk/dist — JavaScript and
// declarations, since Node does not strip types inside node_modules — with the repository's
// TypeScript. sdk/dist is committed, so `npm pack ./sdk` needs no build step: it works from a clean
// clone without the root `npm ci`, and packing writes nothing into the checkout (only the tarball,
// where --pack-destination says). test/sdk-package.test.ts builds into a temporary folder and fails
// while the committed sdk/dist differs; then run this and commit the result.
//
// The build goes to a temporary folder first: a failed compile leaves sdk/dist as it was.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
export const SDK_DIR = path.join(root, 'sdk');
export const SDK_DIST = path.join(SDK_DIR, 'dist');

/** Compiles the SDK into `outDir` (created); throws with tsc's output when it reports anything. */
export async function buildSdk(outDir: string): Promise<void> {
  const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
  const result = await run(tsc, ['-p', path.join(SDK_DIR, 'tsconfig.build.json'), '--outDir', outDir], { timeout: 180_000 })
    .then((r) => `${r.stdout}${r.stderr}`, (e: { stdout?: string; stderr?: string; message: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message);
  if (result.trim() !== '') throw new Error(`the SDK does not compile:\n${result}`);
}

/** Every file under `dir`, relative, sorted, with its text: what the drift test compares. */
export async function filesOf(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile())) {
    const full = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, full), await readFile(full, 'utf8'));
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const scratch = await mkdtemp(path.join(tmpdir(), 'hostgate-sdk-build-'));
  try {
    await buildSdk(path.join(scratch, 'dist'));
    await rm(SDK_DIST, { recursive: true, force: true });
    // Another filesystem (tmpfs) cannot take a rename: copy instead.
    await rename(path.join(scratch, 'dist'), SDK_DIST).catch(() => cp(path.join(scratch, 'dist'), SDK_DIST, { recursive: true }));
    process.stdout.write(`wrote ${SDK_DIST} (${(await filesOf(SDK_DIST)).size} files)\n`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
