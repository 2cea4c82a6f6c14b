// Serves the <service-widget> script (spec: `{cdn_url}/widget/v1/service-widget.js`, plus an
// immutable versioned copy for Subresource Integrity) and, outside production, a demo page at
// /widget/demo where a person can try the element in demo mode and against this very API.
//
// The script is built at start when missing or stale (widget/build.ts; a hash of a few small
// files when it is current) and kept in memory. The demo page's server side is what a vendor's
// server does: it creates a widget session and puts only the token into the page.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from '../../db/pool.ts';
import { destinationsRepository } from '../../db/repositories/destinations.ts';
import { organizationsRepository } from '../../db/repositories/organizations.ts';
import { WIDGET_TOKEN_TTL_SECONDS, widgetSessionsRepository } from '../../db/repositories/widget-sessions.ts';
import { ensureWidgetBuilt, widgetDistDir, type WidgetManifest } from '../../widget/build.ts';
import { ApiError } from '../errors.ts';

interface Asset { body: Buffer; gzip: Buffer; etag: string }

export const DEMO_ORGANIZATION_NAME = 'Widget demo';
const DEMO_DESTINATION = 'https://app.widget-demo.example';

function asset(body: Buffer): Asset {
  return { body, gzip: gzipSync(body, { level: 9 }), etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Where the API is reachable from the page under another origin (see docs: same-origin GETs carry no Origin). */
function apiBaseFor(pageOrigin: string, publicUrl: string): string {
  const url = new URL(pageOrigin);
  if (url.hostname === 'localhost' || url.hostname === '[::1]') { url.hostname = '127.0.0.1'; return url.origin; }
  if (url.hostname === '127.0.0.1') { url.hostname = 'localhost'; return url.origin; }
  return publicUrl;
}

export const widgetAssetsPlugin = fp(async function widgetAssets(app: FastifyInstance) {
  const { config, db } = app.deps;
  const apiOrigin = config.cdnUrl !== config.publicUrl ? config.publicUrl : '';
  let manifest: WidgetManifest | null = null;
  let script: Asset | null = null;
  try {
    manifest = await ensureWidgetBuilt({ apiOrigin });
    if (manifest) script = asset(readFileSync(path.join(widgetDistDir, manifest.versioned_file)));
  } catch (error) {
    app.log.error({ err: error }, 'the widget script could not be built; it is not served');
  }
  if (!manifest) app.log.warn('the widget script is not built (run `npm run build:widget`); /widget/v1/ answers 503');
  else if (manifest.api_origin !== apiOrigin) {
    app.log.warn({ built_for: manifest.api_origin, wanted: apiOrigin }, 'the widget script was built for another API origin; rebuild it with HOSTGATE_WIDGET_API_ORIGIN set (npm run build:widget)');
  }
  const scriptPath = (versioned: boolean) => `/widget/v1/${versioned && manifest ? manifest.versioned_file : 'service-widget.js'}`;
  const cdn = (p: string) => `${config.cdnUrl}${p}`;

  function sendScript(request: FastifyRequest, reply: FastifyReply, immutable: boolean) {
    if (!script) throw new ApiError('service_unavailable', 'the widget script is not built on this server: run `npm run build:widget`', { headers: { 'retry-after': '60' } });
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff')
      .header('etag', script.etag)
      .header('vary', 'Accept-Encoding');
    if (request.headers['if-none-match'] === script.etag) return reply.code(304).send();
    if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(script.gzip);
    return reply.send(script.body);
  }

  app.get('/widget/v1/service-widget.js', { schema: { hide: true } }, (request, reply) => sendScript(request, reply, false));
  app.get('/widget/v1/:file', { schema: { hide: true } }, (request, reply) => {
    const { file } = request.params as { file: string };
    if (!manifest || file !== manifest.versioned_file) throw new ApiError('not_found', `no widget file ${file}; the current build is ${manifest?.versioned_file ?? 'not available'}`);
    return sendScript(request, reply, true);
  });
  app.get('/widget/v1/manifest.json', { schema: { hide: true } }, async (_request, reply) => {
    if (!manifest) throw new ApiError('service_unavailable', 'the widget script is not built on this server', { headers: { 'retry-after': '60' } });
    reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=60');
    return {
      script: cdn(scriptPath(false)),
      versioned_script: cdn(scriptPath(true)),
      integrity: manifest.integrity,
      bytes: manifest.bytes,
      gzip_bytes: manifest.gzip_bytes,
    };
  });

  if (config.env === 'production') return;

  // ---- /widget/demo (development and test only) --------------------------------------------

  const sessions = widgetSessionsRepository(db);
  let demo: Promise<{ organizationId: string; destinationId: string }> | null = null;
  const demoTenant = () => (demo ??= (async () => {
    const orgs = organizationsRepository(db);
    const org = (await orgs.list()).find((o) => o.name === DEMO_ORGANIZATION_NAME) ?? await orgs.create({ name: DEMO_ORGANIZATION_NAME });
    const destination = await destinationsRepository(db).onlyOne(org.id)
      ?? await destinationsRepository(db).create({ organizationId: org.id, url: DEMO_DESTINATION, host: new URL(DEMO_DESTINATION).hostname, port: 443 });
    return { organizationId: org.id, destinationId: destination.id };
  })().catch((error: unknown) => { demo = null; throw error; }));

  const pageOrigin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
  async function newDemoSession(request: FastifyRequest) {
    const tenant = await demoTenant();
    return sessions.create({ organizationId: tenant.organizationId, externalCustomerId: 'demo-customer', allowedOrigins: [pageOrigin(request)], destinationId: tenant.destinationId });
  }

  app.post('/widget/demo/session', { schema: { hide: true } }, async (request) => {
    const { session, token } = await newDemoSession(request);
    return { data: { token, expires_at: session.expires_at, expires_in: WIDGET_TOKEN_TTL_SECONDS } };
  });

  app.get('/widget/demo', { schema: { hide: true } }, async (request, reply) => {
    const query = request.query as { lang?: string };
    const lang = query.lang === 'fr' ? 'fr' : 'en';
    const { token } = await newDemoSession(request);
    const origin = pageOrigin(request);
    const apiBase = apiBaseFor(origin, config.publicUrl);
    // The script from the CDN when one is configured, else from this origin (relative).
    const src = config.cdnUrl === config.publicUrl ? scriptPath(true) : cdn(scriptPath(true));
    const snippet = `<script type="module" src="${cdn(scriptPath(false))}"></script>\n<service-widget token="wst_…" lang="${lang}"></service-widget>`;
    const domains = await db.oneFirst(sql.unsafe`select count(*)::int from domains d join organizations o on o.id = d.organization_id where o.name = ${DEMO_ORGANIZATION_NAME}`);
    const h = escapeHtml;
    const page = `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hostgate — &lt;service-widget&gt; demo</title>
<link rel="icon" href="data:,">
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f6f7fb; color: #111827; }
  main { max-width: 70rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
  .grid { display: grid; gap: 1.5rem; grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); align-items: start; }
  section > h2 { font-size: 1.1rem; margin: 0 0 .25rem; }
  section > p { margin: 0 0 .75rem; color: #4b5563; }
  pre { background: #111827; color: #f9fafb; padding: 1rem; border-radius: 8px; overflow-x: auto; }
  #log { font: 13px/1.5 ui-monospace, monospace; background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: .75rem 1rem .75rem 2.5rem; min-height: 3rem; }
  nav a { margin-right: 1rem; color: #3b34d6; }
</style>
</head>
<body>
<main>
  <h1>&lt;service-widget&gt; demo</h1>
  <nav aria-label="Language"><a href="?lang=en" ${lang === 'en' ? 'aria-current="page"' : ''}>English</a><a href="?lang=fr" ${lang === 'fr' ? 'aria-current="page"' : ''}>Français</a></nav>
  <div class="grid">
    <section aria-labelledby="demo-title">
      <h2 id="demo-title">Demo mode</h2>
      <p>Simulated data through all three steps; the element makes no network request.</p>
      <service-widget id="demo-widget" demo lang="${lang}"></service-widget>
    </section>
    <section aria-labelledby="live-title">
      <h2 id="live-title">Live mode</h2>
      <p>Calls this API at <code>${h(apiBase)}</code> with a widget session this page's server just created (organization “${DEMO_ORGANIZATION_NAME}”, ${domains} domain(s) so far, token valid ${WIDGET_TOKEN_TTL_SECONDS / 60} minutes and renewed when it expires).</p>
      <service-widget id="live-widget" token="${h(token)}" api-base="${h(apiBase)}" lang="${lang}"></service-widget>
    </section>
  </div>
  <h2>Events</h2>
  <ol id="log"></ol>
  <h2>Embed it</h2>
  <pre><code>${h(snippet)}</code></pre>
  <p>Pinned, with Subresource Integrity: <code>${h(cdn(scriptPath(true)))}</code>, <code>integrity="${h(manifest?.integrity ?? '')}"</code>.</p>
</main>
<script type="module" src="${h(src)}" integrity="${h(manifest?.integrity ?? '')}" crossorigin="anonymous"></script>
<script type="module">
  const log = document.getElementById('log');
  for (const type of ['service:created', 'service:status', 'service:error']) {
    document.addEventListener(type, (event) => {
      const item = document.createElement('li');
      item.textContent = \`\${event.target.id} \${type} \${JSON.stringify(event.detail)}\`;
      log.append(item);
      if (type === 'service:error' && event.detail.code === 'widget_token_expired' && event.target.id === 'live-widget') {
        fetch('/widget/demo/session', { method: 'POST' }).then((r) => r.json()).then(({ data }) => event.target.setAttribute('token', data.token));
      }
    });
  }
</script>
</body>
</html>
`;
    return reply.header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
  });
});
