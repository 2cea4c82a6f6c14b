# One image for every Hostgate process; the command picks the role (api, worker, migrate).
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOSTGATE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
# Prebuilt workflow bundle, so a worker start does not run webpack.
RUN node worker/workflow-bundle.ts
USER node
EXPOSE 3000
CMD ["node", "api/server.ts"]
