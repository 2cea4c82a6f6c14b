// Builds the widget script: one minified ES module, written as
//   dist/widget/v1/service-widget.js           (the spec's address; short cache)
//   dist/widget/v1/service-widget.<hash>.js    (immutable, for Subresource Integrity)
//   dist/widget/v1/manifest.json               (file names, SRI hash, sizes, what it was built from)
// each script beside its brotli (.br) and gzip (.gz) copies, compressed once at their best level
// and served as they are (api/plugins/widget-assets.ts); it refuses to write anything when the
// module, minified and gzipped, exceeds its budget (16 KiB).
//
// It runs in `npm run build` / `npm run build:widget`, in the image (Dockerfile) and in `npm start`
// before the API starts (`ensureWidgetBuilt`: rebuilds only when the sources or the API origin
// baked in changed). The API never builds: it serves what was built. esbuild is a dev dependency.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { ConfigError, loadConfig } from '../config/index.ts';

// 15 KiB until issue 15; the extra KiB (≈1.1 KB measured) buys: resuming after a reload (list and
// step choice), the customer's other domains in step 1, labels that wrap only at dots, punycode
// beside Unicode names, the dark default theme and nine themable colours, setup errors told apart
// from outages, retry backoff, visible copy failures and focus care. Brotli, which browsers take
// from us, is ≈1.5 KB smaller still.
export const WIDGET_GZIP_BUDGET_BYTES = 16 * 1024;
export const widgetSourceDir = fileURLToPath(new URL('./', import.meta.url));
export const widgetDistDir = fileURLToPath(new URL('../dist/widget/v1/', import.meta.url));
const entry = path.join(widgetSourceDir, 'service-widget.ts');
const LIT_PACKAGES = ['lit', 'lit-html', 'lit-element', '@lit/reactive-element'];

export interface WidgetManifest {
  version: 'v1';
  file: string;
  versioned_file: string;
  integrity: string;
  bytes: number;
  gzip_bytes: number;
  budget_gzip_bytes: number;
  api_origin: string;
  source_hash: string;
  built_at: string;
}

export class WidgetBudgetError extends Error {}

/** What the script is made of: the widget sources, Lit's versions and the baked-in API origin. */
export function widgetSourceHash(apiOrigin = ''): string {
  const hash = createHash('sha256').update(`api-origin:${apiOrigin}\n`);
  for (const name of readdirSync(widgetSourceDir).filter((f) => f.endsWith('.ts')).sort()) {
    hash.update(`${name}\n`).update(readFileSync(path.join(widgetSourceDir, name)));
  }
  const nodeModules = fileURLToPath(new URL('../node_modules/', import.meta.url));
  for (const pkg of LIT_PACKAGES) {
    try { hash.update(`${pkg}@${JSON.parse(readFileSync(path.join(nodeModules, pkg, 'package.json'), 'utf8')).version}\n`); } catch { /* not installed */ }
  }
  return hash.digest('hex');
}

export function readWidgetManifest(dir = widgetDistDir): WidgetManifest | null {
  try {
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as WidgetManifest;
    const files = [manifest.file, manifest.versioned_file].flatMap((f) => [f, `${f}.br`, `${f}.gz`]);
    return files.every((f) => existsSync(path.join(dir, f))) ? manifest : null;
  } catch {
    return null;
  }
}

/** Writes through a temporary file and a rename, so a reader never sees half a file. */
function writeAtomically(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** The script and its precompressed copies (brotli and gzip at their best levels). */
function writeScript(file: string, code: Buffer): void {
  writeAtomically(`${file}.br`, brotliCompressSync(code, { params: { [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT, [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: code.length } }));
  writeAtomically(`${file}.gz`, gzipSync(code, { level: 9 }));
  writeAtomically(file, code);
}

/** esbuild's CSS minifier over the `css` template of styles.ts (it has no interpolations). */
const minifyCssTemplates = {
  name: 'minify-css-templates',
  setup(build: { onLoad(options: { filter: RegExp }, callback: (args: { path: string }) => Promise<{ contents: string; loader: 'ts' }>): void }) {
    build.onLoad({ filter: /[\\/]widget[\\/]styles\.ts$/ }, async (args) => {
      const esbuild = await import('esbuild');
      const source = readFileSync(args.path, 'utf8');
      const match = /css`([^`$]*)`/.exec(source);
      if (!match) throw new Error('styles.ts: expected one css`…` template without interpolations');
      const { code } = await esbuild.transform(match[1]!, { loader: 'css', minify: true, charset: 'utf8' });
      // Back into a template literal: a CSS escape such as \25cb must stay a backslash there.
      const literal = code.trim().replace(/[\\`]|\$\{/g, (c) => `\\${c}`);
      return { contents: source.replace(match[0], () => `css\`${literal}\``), loader: 'ts' };
    });
  },
};

export async function buildWidget(options: { apiOrigin?: string; outDir?: string } = {}): Promise<WidgetManifest> {
  const apiOrigin = options.apiOrigin ?? '';
  const outDir = options.outDir ?? widgetDistDir;
  const sourceHash = widgetSourceHash(apiOrigin);
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // Evergreen browsers (Chrome/Edge 94+, Firefox 93+, Safari 16.4+): no down-levelling, no polyfills.
    target: ['es2022'],
    minify: true,
    // Lit's notices, once, instead of one copy per file.
    legalComments: 'none',
    banner: { js: '/*! Hostgate <service-widget>; includes Lit, (c) 2017 Google LLC, BSD-3-Clause */' },
    charset: 'utf8',
    write: false,
    logLevel: 'silent',
    define: { __HOSTGATE_API_ORIGIN__: JSON.stringify(apiOrigin) },
    plugins: [minifyCssTemplates],
    // The element's internal reactive state (`_step`, `_domain`, …): never part of its API.
    mangleProps: /^_[a-z][A-Za-z]*$/,
  });
  // Newlines and indentation inside template literals (HTML and CSS) carry no meaning here;
  // minified code has raw newlines nowhere else (strings escape them).
  const code = Buffer.from(new TextDecoder().decode(result.outputFiles[0]!.contents).replace(/\n\s*/g, ' ').trim() + '\n');
  const gzipBytes = gzipSync(code, { level: 9 }).length;
  if (gzipBytes > WIDGET_GZIP_BUDGET_BYTES) {
    throw new WidgetBudgetError(`the widget script is ${gzipBytes} bytes minified and gzipped, over its budget of ${WIDGET_GZIP_BUDGET_BYTES} bytes (16 KiB); make it smaller`);
  }
  const contentHash = createHash('sha256').update(code).digest('hex').slice(0, 12);
  const manifest: WidgetManifest = {
    version: 'v1',
    file: 'service-widget.js',
    versioned_file: `service-widget.${contentHash}.js`,
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
    bytes: code.length,
    gzip_bytes: gzipBytes,
    budget_gzip_bytes: WIDGET_GZIP_BUDGET_BYTES,
    api_origin: apiOrigin,
    source_hash: sourceHash,
    built_at: new Date().toISOString(),
  };
  mkdirSync(outDir, { recursive: true });
  writeScript(path.join(outDir, manifest.versioned_file), code);
  writeScript(path.join(outDir, manifest.file), code);
  writeAtomically(path.join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // Older versioned builds of this checkout: only the current one is served.
  for (const name of readdirSync(outDir)) {
    if (/^service-widget\.[0-9a-f]{12}\.js(\.br|\.gz)?$/.test(name) && !name.startsWith(manifest.versioned_file)) rmSync(path.join(outDir, name), { force: true });
  }
  return manifest;
}

/** The current build, rebuilt first when missing or stale (and esbuild is available). */
export async function ensureWidgetBuilt(options: { apiOrigin?: string; outDir?: string } = {}): Promise<WidgetManifest | null> {
  const apiOrigin = options.apiOrigin ?? '';
  const outDir = options.outDir ?? widgetDistDir;
  const current = readWidgetManifest(outDir);
  if (current && current.source_hash === widgetSourceHash(apiOrigin)) return current;
  try {
    return await buildWidget({ apiOrigin, outDir });
  } catch (error) {
    // No esbuild (a production install): serve what was built ahead of time, if anything.
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') return current;
    throw error;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const started = Date.now();
  try {
    const manifest = await buildWidget({ apiOrigin: loadConfig().widgetApiOrigin });
    console.log(`widget: ${path.relative(process.cwd(), path.join(widgetDistDir, manifest.versioned_file))} (${manifest.bytes} B, ${manifest.gzip_bytes} B gzipped of a ${manifest.budget_gzip_bytes} B budget) in ${Date.now() - started} ms`);
    console.log(`widget: integrity ${manifest.integrity}`);
  } catch (error) {
    if (error instanceof ConfigError) { console.error(error.message); process.exit(78); }
    console.error(`widget: build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
