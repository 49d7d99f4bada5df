# One image for the API and the worker (docker-compose.yml picks the command).
# Three stages: the production dependencies (native modules compiled with a toolchain), the
# TypeScript build (every dependency), and the image that runs: Node, those dependencies and
# the compiled JavaScript and the console's static files, as the unprivileged user `node`.

FROM node:20-bookworm-slim AS deps
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM deps AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src src
COPY catalog catalog
COPY workers workers
COPY test test
COPY bench bench
RUN npx tsc -p tsconfig.json
# The web console's static files (src/console/README.md), served at /admin.
RUN node --import tsx src/console/build.ts

FROM node:20-bookworm-slim
WORKDIR /app
ENV HOST=0.0.0.0 PORT=8055 NODE_ENV=production STORAGE_LOCAL_ROOT=/app/uploads DB_FILENAME=/app/data/database.sqlite TEMP_PATH=/app/data/tmp
COPY --from=deps /app/node_modules node_modules
COPY package.json package-lock.json ./
COPY --from=build /app/dist/src dist/src
COPY --from=build /app/dist/catalog dist/catalog
COPY --from=build /app/dist/workers dist/workers
COPY --from=build /app/dist/console dist/console
RUN mkdir -p /app/uploads /app/data && chown node:node /app/uploads /app/data
USER node
EXPOSE 8055
# /server/health answers 503 when the database does not; no curl in the image, so Node asks.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8055) + '/server/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--heap-growing-percent=25", "dist/src/server.js"]
