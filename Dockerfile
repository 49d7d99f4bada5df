# One image for the API and the worker (docker-compose.yml picks the command), on the newest
# Node LTS line the native modules (better-sqlite3, argon2, sharp) are built for.
# Two stages: `build` installs every dependency once, compiles the TypeScript and the console's
# static files, then drops the development dependencies (npm prune --omit=dev: the production
# ones, native modules compiled, exactly the lock file's); the image that runs is Node, those
# dependencies and the compiled JavaScript, as the unprivileged user `node`. No toolchain,
# tests or benchmarks in it (.dockerignore keeps test/ and bench/ out of the build context).

FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src src
COPY catalog catalog
COPY workers workers
RUN npx tsc -p tsconfig.json
# The web console's static files (src/console/README.md), served at /admin.
RUN node --import tsx src/console/build.ts
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
WORKDIR /app
ENV HOST=0.0.0.0 PORT=8055 NODE_ENV=production STORAGE_LOCAL_ROOT=/app/uploads DB_FILENAME=/app/data/database.sqlite TEMP_PATH=/app/data/tmp
COPY --from=build /app/node_modules node_modules
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
CMD ["node", "--heap-growing-percent=25", "--max-semi-space-size=16", "--no-node-snapshot", "dist/src/server.js"]
