# The two commands a newcomer needs: `make start` and `make test`.
.PHONY: start test build typecheck lint install clean worker

INSTALL_STAMP := node_modules/.install-stamp

# Installs (and builds the native modules: better-sqlite3, argon2) only when the manifest changed.
$(INSTALL_STAMP): package.json package-lock.json
	npm install --no-audit --no-fund
	@touch $@

install: $(INSTALL_STAMP)

build: $(INSTALL_STAMP)
	npx tsc -p tsconfig.json

typecheck: $(INSTALL_STAMP)
	npx tsc -p tsconfig.json --noEmit

# typescript-eslint + the dependency direction of STYLE.md §2 (eslint.config.js).
lint: $(INSTALL_STAMP)
	npx eslint .

# Serves the API on PORT (8055) against DB_CLIENT (SQLite under ./data/ by default).
# NODE_ENV=production: graphql-js skips its development-only checks (~1/3 of a query's CPU).
start: build
	NODE_ENV=production node dist/src/server.js

# A smaller young generation keeps a streaming export's RSS flat (bench/README.md, Exports).
WORKER_NODE_FLAGS ?= --max-semi-space-size=4
worker: build
	NODE_ENV=production node $(WORKER_NODE_FLAGS) dist/workers/index.js

# Every test: unit, contract, integration on SQLite, and on PostgreSQL, MariaDB and Redis
# when reachable (REQUIRE_SERVICES=1 makes an unreachable one fail).
test: build lint
	npx mocha 'test/**/*.test.ts'

clean:
	rm -rf dist
