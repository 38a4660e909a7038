# The Medical Imaging image: one image for every process of a deployment. Its entry point is the
# server's command line, so the same image runs
#   serve [--no-jobs]   API, web app and viewer origin (and the jobs, unless --no-jobs)
#   worker              jobs only (PostgreSQL)
#   migrate             apply database migrations and exit
#   seed                create the first admin account if there is none, and exit
# See docs/deploy.md.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: the web app, the server bundle and the pinned OHIF viewer release ----------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app

# Dependencies first, so that a change to the sources does not reinstall them.
COPY package.json package-lock.json .npmrc ./
COPY packages/contracts/package.json packages/contracts/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY apps/viewer/package.json apps/viewer/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN npm ci --no-audit --no-fund

COPY . .
# Builds apps/web/dist and apps/server/dist (with its migrations), and fetches the pinned
# @ohif/app release from the npm registry (integrity-checked) into apps/viewer/ohif.
RUN npm run build

# ---- runtime: production dependencies of the server and the built output, as a non-root user ------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000 \
    VIEWER_PORT=3001
WORKDIR /app

# The workspace layout the server expects: it finds its root by apps/web/package.json, serves
# apps/web/dist and apps/viewer/ohif from there, and loads its packages from /app/node_modules.
# Only the server's production dependencies are installed (sharp and the other native modules come
# as prebuilt binaries from npm); the web app and the viewer are served as built files.
COPY package.json package-lock.json .npmrc ./
COPY packages/contracts/package.json packages/contracts/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
COPY apps/viewer/package.json apps/viewer/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN npm ci --omit=dev --workspace apps/server --no-audit --no-fund \
    && npm cache clean --force

COPY --from=build /app/apps/server/dist apps/server/dist
COPY --from=build /app/apps/web/dist apps/web/dist
COPY --from=build /app/apps/viewer/ohif apps/viewer/ohif
COPY --from=build /app/apps/viewer/app-config.js apps/viewer/app-config.js

# The code belongs to root and is read-only to the server; only DATA_DIR is writable.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]

# 3000: API and web app (PORT). 3001: the viewer's own origin (VIEWER_PORT).
EXPOSE 3000 3001

# /api/health answers 200 when the database, the storage and the job queue answer. Only `serve`
# listens: give `worker`, `migrate` and `seed` containers no health check (compose.yaml does).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# The young generation is sized at start (apps/server/src/heap-tuning.ts).
ENTRYPOINT ["node", "--max-semi-space-size=64", "apps/server/dist/main.js"]
CMD ["serve"]
