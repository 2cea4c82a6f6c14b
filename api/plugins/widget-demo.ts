// /widget/demo, development and test only (app.ts registers it outside production): a page where
// a person tries <service-widget> in demo mode and live against this very API. Its server side is
// what a vendor's server does: it creates a widget session and puts only the token into the page
// (api/templates/widget-demo.html; every value HTML-escaped).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { DEMO_ORGANIZATION_NAME, widgetDemoRepository, type DemoTenant } from '../../db/repositories/widget-demo.ts';
import { WIDGET_TOKEN_TTL_SECONDS, widgetSessionsRepository } from '../../db/repositories/widget-sessions.ts';

const template = readFileSync(new URL('../templates/widget-demo.html', import.meta.url), 'utf8');
const DemoQuery = Type.Object({ lang: Type.Optional(Type.String()) });

/** The page's own words, in the language the elements on it speak (`?lang=fr`). */
const PAGE_TEXT = {
  en: {
    t_title: 'Hostgate — <service-widget> demo',
    t_heading: '<service-widget> demo',
    t_language: 'Language',
    t_demo_title: 'Demo mode',
    t_demo_text: 'Simulated data through all three steps; the element makes no network request.',
    t_live_title: 'Live mode',
    t_live_text: "Calls this API at {api_base} with a widget session this page's server just created (organization “{organization}”, {domains} domain(s) so far, token valid {token_minutes} minutes and renewed when it expires). Reload the page: it comes back to your domain.",
    t_events: 'Events',
    t_embed: 'Embed it',
    t_pinned: 'Pinned, with Subresource Integrity:',
  },
  fr: {
    t_title: 'Hostgate — démo de <service-widget>',
    t_heading: 'Démo de <service-widget>',
    t_language: 'Langue',
    t_demo_title: 'Mode démo',
    t_demo_text: 'Données simulées sur les trois étapes ; l’élément ne fait aucune requête réseau.',
    t_live_title: 'Mode réel',
    t_live_text: 'Appelle cette API à {api_base} avec une session widget que le serveur de cette page vient de créer (organisation « {organization} », {domains} domaine(s) à ce jour, jeton valable {token_minutes} minutes et renouvelé à son expiration). Rechargez la page : elle revient à votre domaine.',
    t_events: 'Événements',
    t_embed: 'L’intégrer',
    t_pinned: 'Version figée, avec Subresource Integrity :',
  },
} as const;

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The template with each `{{name}}` replaced by its value, HTML-escaped; an unknown name throws. */
export function renderTemplate(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{\{([a-z_]+)\}\}/g, (_match, name: string) => {
    if (!(name in values)) throw new Error(`template value ${name} is missing`);
    return escapeHtml(String(values[name]));
  });
}

/** Where the API is reachable from the page under another origin (see docs: same-origin GETs carry no Origin). */
function apiBaseFor(pageOrigin: string, publicUrl: string): string {
  const url = new URL(pageOrigin);
  if (url.hostname === 'localhost' || url.hostname === '[::1]') { url.hostname = '127.0.0.1'; return url.origin; }
  if (url.hostname === '127.0.0.1') { url.hostname = 'localhost'; return url.origin; }
  return publicUrl;
}

export const widgetDemoPlugin: FastifyPluginAsyncTypebox = async (app) => {
  const { config, db } = app.deps;
  const sessions = widgetSessionsRepository(db);
  const demo = widgetDemoRepository(db);
  let tenant: Promise<DemoTenant> | null = null;
  const demoTenant = () => (tenant ??= demo.ensureTenant().catch((error: unknown) => { tenant = null; throw error; }));
  const cdn = (p: string) => `${config.cdnUrl}${p}`;

  const pageOrigin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
  /**
   * Each visitor is a customer of their own (a cookie), as each of a vendor's customers would be:
   * the widget resumes with the visitor's domains after a reload, and never shows another's.
   */
  function visitor(request: FastifyRequest, reply: FastifyReply): string {
    const known = /(?:^|;\s*)hg_demo_customer=(demo-[0-9a-f]{32})(?:;|$)/.exec(request.headers.cookie ?? '')?.[1];
    if (known) return known;
    const id = `demo-${randomBytes(16).toString('hex')}`;
    reply.header('set-cookie', `hg_demo_customer=${id}; Path=/widget/demo; HttpOnly; SameSite=Lax; Max-Age=2592000`);
    return id;
  }
  async function newDemoSession(request: FastifyRequest, reply: FastifyReply) {
    const { organizationId, destinationId } = await demoTenant();
    return sessions.create({ organizationId, externalCustomerId: visitor(request, reply), allowedOrigins: [pageOrigin(request)], destinationId, apiKeyId: null });
  }

  app.post('/widget/demo/session', { schema: { hide: true } }, async (request, reply) => {
    const { session, token } = await newDemoSession(request, reply);
    return { data: { token, expires_at: session.expires_at, expires_in: WIDGET_TOKEN_TTL_SECONDS } };
  });

  app.get('/widget/demo', { schema: { hide: true, querystring: DemoQuery } }, async (request, reply) => {
    const lang = request.query.lang === 'fr' ? 'fr' : 'en';
    const { token } = await newDemoSession(request, reply);
    const build = app.widgetBuild;
    const integrity = build.manifest()?.integrity ?? '';
    const words: Record<string, string | number> = {
      api_base: apiBaseFor(pageOrigin(request), config.publicUrl),
      organization: DEMO_ORGANIZATION_NAME,
      domains: await demo.domainCount(),
      token_minutes: WIDGET_TOKEN_TTL_SECONDS / 60,
    };
    const text = Object.fromEntries(Object.entries(PAGE_TEXT[lang]).map(([k, v]) => [k, v.replace(/\{(\w+)\}/g, (_m, name: string) => String(words[name]))]));
    const page = renderTemplate(template, {
      ...text,
      lang,
      en_current: lang === 'en' ? 'page' : 'false',
      fr_current: lang === 'fr' ? 'page' : 'false',
      api_base: words.api_base!,
      token,
      snippet: `<script type="module" src="${cdn(build.scriptPath(false))}"></script>\n<service-widget token="wst_…" lang="${lang}"></service-widget>`,
      pinned_script: cdn(build.scriptPath(true)),
      integrity,
      // The script from the CDN when one is configured, else from this origin (relative).
      script_src: config.cdnUrl === config.publicUrl ? build.scriptPath(true) : cdn(build.scriptPath(true)),
    });
    return reply.header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
  });
};
