# One image for every Hostgate process; the command picks the role (api, worker, edge agent, edge HTTP listener, migrate).

# The <service-widget> script (and its brotli and gzip copies) is built with esbuild, a dev
# dependency: in a stage of its own. The API serves what is built here; it never builds.
FROM node:24-bookworm-slim AS widget
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci's postinstall applies our patches of dependencies (patches/, docs/scale.md).
COPY patches patches
RUN npm ci --no-audit --no-fund
COPY widget widget
COPY config config
# Set when the script is served from a CDN other than the API (HOSTGATE_CDN_URL): the API origin it calls by default.
ARG HOSTGATE_WIDGET_API_ORIGIN=
RUN node widget/build.ts

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOSTGATE_ENV=production
# The HTTPS edge (edge/agent-main.ts) drives Debian's HAProxy 2.6; openssl makes its default certificate.
RUN apt-get update && apt-get install -y --no-install-recommends haproxy libjemalloc2 openssl ca-certificates && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# npm ci's postinstall applies our patches of dependencies (patches/, docs/scale.md).
COPY patches patches
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
# Prebuilt workflow bundle, so a worker start does not run webpack.
RUN node worker/workflow-bundle.ts
COPY --from=widget /app/dist/widget dist/widget
# The edge agent's state (HAProxy config, crt-list, maps, keys mode 0600): a volume in docker-compose.yml.
RUN mkdir -p /var/lib/hostgate-edge && chown node:node /var/lib/hostgate-edge
USER node
EXPOSE 3000 8080 8443
CMD ["node", "api/server.ts"]
