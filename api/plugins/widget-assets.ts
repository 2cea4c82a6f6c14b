// Serves the <service-widget> script (spec: `{cdn_url}/widget/v1/service-widget.js`, plus an
// immutable versioned copy for Subresource Integrity) and its manifest, from what the build wrote
// to dist/widget/v1/ (widget/build.ts: `npm run build`, the image, `npm start`). The API never
// builds it: when the build is missing, the routes answer 503 service_unavailable and the log says
// how to build it. Files go out through @fastify/static with the build's brotli and gzip copies
// (`preCompressed`), chosen by Accept-Encoding, with ETag/Last-Modified and 304s from @fastify/send.
// Not @fastify/compress: it compresses every response as it is sent (brotli at quality 4 by
// default); this file is compressed once, at build, at the best levels.
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { readWidgetManifest, widgetDistDir, type WidgetManifest } from '../../widget/build.ts';
import { ApiError } from '../errors.ts';

const BUILD_HINT = 'run `npm run build:widget` (or `npm run build`)';
const WidgetFileParams = Type.Object({ file: Type.String() });

/** The current build as the API serves it: null until one exists (read again while missing). */
export interface WidgetBuild {
  manifest(): WidgetManifest | null;
  /** Where a script is served: the spec's address, or the immutable versioned one. */
  scriptPath(versioned: boolean): string;
}

declare module 'fastify' {
  interface FastifyInstance { widgetBuild: WidgetBuild }
}

const widgetAssets: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app.deps;
  let current = readWidgetManifest();
  if (!current) app.log.warn(`the widget script is not built in ${widgetDistDir}; /widget/v1/ answers 503 until it is: ${BUILD_HINT}`);
  else if (current.api_origin !== config.widgetApiOrigin) {
    app.log.warn({ built_for: current.api_origin, wanted: config.widgetApiOrigin }, 'the widget script was built for another API origin; rebuild it with this configuration (npm run build:widget)');
  }
  const build: WidgetBuild = {
    manifest: () => (current ??= readWidgetManifest()),
    scriptPath: (versioned) => `/widget/v1/${versioned && current ? current.versioned_file : 'service-widget.js'}`,
  };
  app.decorate('widgetBuild', build);
  const built = (): WidgetManifest => {
    const manifest = build.manifest();
    if (!manifest) throw new ApiError('service_unavailable', `the widget script is not built on this server: ${BUILD_HINT}`, { headers: { 'retry-after': '60' } });
    return manifest;
  };

  const scripts: FastifyPluginAsyncTypebox = async (files) => {
    // Only the files the routes below name are sent (`serve: false`: no catch-all route).
    await files.register(fastifyStatic, {
      root: widgetDistDir,
      serve: false,
      preCompressed: true,
      cacheControl: false,
    });
    // RFC 9239's type for JavaScript (@fastify/send's mime table still says application/javascript).
    files.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode === 200) reply.header('content-type', 'text/javascript; charset=utf-8');
      return payload;
    });
    const sendScript = (reply: FastifyReply, file: string, immutable: boolean) => reply
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff')
      .sendFile(file);

    files.get('/widget/v1/service-widget.js', { schema: { hide: true } }, (_request, reply) => {
      built();
      return sendScript(reply, 'service-widget.js', false);
    });
    files.get('/widget/v1/:file', { schema: { hide: true, params: WidgetFileParams } }, (request, reply) => {
      const manifest = built();
      const { file } = request.params;
      if (file !== manifest.versioned_file) throw new ApiError('not_found', `no widget file ${file}; the current build is ${manifest.versioned_file}`);
      return sendScript(reply, file, true);
    });
  };
  await app.register(scripts);

  app.get('/widget/v1/manifest.json', { schema: { hide: true } }, async (_request, reply) => {
    const manifest = built();
    reply.header('access-control-allow-origin', '*').header('cache-control', 'public, max-age=60');
    return {
      script: `${config.cdnUrl}${build.scriptPath(false)}`,
      versioned_script: `${config.cdnUrl}${build.scriptPath(true)}`,
      integrity: manifest.integrity,
      bytes: manifest.bytes,
      gzip_bytes: manifest.gzip_bytes,
    };
  });
};

export const widgetAssetsPlugin = fp(widgetAssets, { name: 'widget-assets' });
