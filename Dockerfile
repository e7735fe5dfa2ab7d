# syntax=docker/dockerfile:1
# Production image: `docker build -t payments-api .` then
#   docker run --env-file .env -p 3000:3000 payments-api
# The runtime is the `node` npm package (Node 24, a real dependency), so the base image's own
# Node only runs npm. Migrations run at every start; the health check asks /ready (database up).

FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY client/package.json client/
# Production dependencies only; the `node` package's install script fetches the Node 24 runtime.
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LOG_FORMAT=json \
    DATABASE_URL=sqlite:/data/payments.sqlite
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --chown=node:node package.json package-lock.json ./
COPY --chown=node:node bin ./bin
COPY --chown=node:node src ./src
COPY --chown=node:node client ./client
RUN mkdir -p /data && chown node:node /data
# The embedded SQLite file lives on a volume; set DATABASE_URL=postgres://… to use PostgreSQL.
VOLUME ["/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node_modules/.bin/node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Straight to the runtime (not `npm start`): SIGTERM then reaches the server, which drains.
CMD ["node_modules/.bin/node", "src/cli/main.ts", "serve"]
