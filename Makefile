# The two commands a newcomer needs: `make start` and `make test`.
.PHONY: start test build typecheck lint format install clean worker cli

INSTALL_STAMP := node_modules/.install-stamp
BUILD_STAMP := dist/.build-stamp
# Everything tsc compiles (tsconfig.json "include"): a change to any of it rebuilds, nothing else does.
SOURCES := tsconfig.json $(shell find src catalog workers test bench -name '*.ts' -not -path '*/node_modules/*' 2>/dev/null)

# Installs exactly the lock file (npm ci; builds the native modules better-sqlite3 and argon2),
# only when package.json or package-lock.json changed since the last install.
$(INSTALL_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(INSTALL_STAMP)

# Compiles only when a source changed (the stamp), and then incrementally (dist/.tsbuildinfo).
$(BUILD_STAMP): $(INSTALL_STAMP) $(SOURCES)
	npx tsc -p tsconfig.json --incremental --tsBuildInfoFile dist/.tsbuildinfo
	@touch $@

# The web console's static files (src/console/README.md), rebuilt when its sources change.
CONSOLE_STAMP := dist/console/index.html
$(CONSOLE_STAMP): $(INSTALL_STAMP) $(shell find src/console src/client -type f 2>/dev/null)
	npx tsc -p src/console/tsconfig.json
	node --import tsx src/console/build.ts

build: $(BUILD_STAMP) $(CONSOLE_STAMP)

typecheck: $(INSTALL_STAMP)
	npx tsc -p tsconfig.json --noEmit
	npx tsc -p src/console/tsconfig.json

# Prettier's format (.prettierrc.json; `make format` rewrites), typescript-eslint + the
# one-way imports between the layers (eslint.config.js), no import circle of any kind, type-only
# ones included (madge, .madgerc: eslint's no-cycle skips `import type`), and no unused file,
# export, exported type or dependency (knip, knip.jsonc).
FORMATTED := src catalog workers test bench eslint.config.js
lint: $(INSTALL_STAMP)
	npx prettier --check --log-level warn $(FORMATTED)
	npx eslint .
	npx madge --circular --no-spinner src catalog workers test bench
	npx knip --no-progress

format: $(INSTALL_STAMP)
	npx prettier --write --log-level warn $(FORMATTED)

# Serves the API on PORT (8055) against DB_CLIENT (SQLite under ./data/ by default).
# NODE_ENV=production: graphql-js skips its development-only checks (~1/3 of a query's CPU).
# A heap that grows by a quarter at a time collects an import's dead batches before they pile
# up: RSS stays under 200 MB through a million-row import (bench/README.md, Imports). Node 24
# sizes the young generation by the machine's memory (some 100 MB more RSS on a big machine);
# 16 MB semi-spaces are Node 22's own size, and cost reads and writes no CPU measurably.
# --no-node-snapshot: isolated-vm (the flows' `exec` and sandboxed extensions) asks for it on
# Node 20 and later, where isolates sharing node's start-up snapshot may crash the process.
API_NODE_FLAGS ?= --heap-growing-percent=25 --max-semi-space-size=16 --no-node-snapshot
start: $(BUILD_STAMP) $(CONSOLE_STAMP)
	NODE_ENV=production node $(API_NODE_FLAGS) dist/src/server.js

# A smaller young generation keeps a streaming export's RSS flat (bench/README.md, Exports);
# --no-node-snapshot as for the API (queued flows run `exec` scripts here).
WORKER_NODE_FLAGS ?= --max-semi-space-size=4 --no-node-snapshot
worker: $(BUILD_STAMP)
	NODE_ENV=production node $(WORKER_NODE_FLAGS) dist/workers/index.js

# The command line (src/cli/README.md) with the server's environment, e.g.
# `make cli ARGS="schema snapshot schema.yaml"`; the same as `npx content-data-service ...`.
cli: $(BUILD_STAMP)
	node dist/src/cli/index.js $(ARGS)

# Every test: unit, contract, integration on SQLite, and on PostgreSQL, MariaDB and Redis
# when reachable (REQUIRE_SERVICES=1 makes an unreachable one fail). Test files run in
# TEST_JOBS parallel processes: each suite has its own databases, Redis prefix and folders, and
# much of a suite's time is spent waiting on servers and child processes, not on this CPU.
TEST_JOBS ?= 3
test: $(BUILD_STAMP) $(CONSOLE_STAMP) lint
	npx mocha --parallel --jobs $(TEST_JOBS) 'test/**/*.test.ts'

clean:
	rm -rf dist
