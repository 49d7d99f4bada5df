#!/usr/bin/env bash
# Prepares the benchmark dataset of bench/data on a PostgreSQL database:
# starts the built service on it once (migrate + bootstrap with a known static token),
# creates the data model through the service's own schema API, then loads the rows in SQL.
#   bench/setup.sh            (BENCH_DB, default svc_bench; dropped and recreated)
set -euo pipefail
cd "$(dirname "$0")/.."
DB="${BENCH_DB:-svc_bench}"
PORT="${BENCH_SETUP_PORT:-8077}"
TOKEN="${BENCH_TOKEN:-bench-static-admin-token}"
DATA="$(cd bench/data && pwd)"

make build >/dev/null
psql -h 127.0.0.1 -d postgres -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB"

export DB_CLIENT=pg DB_HOST=127.0.0.1 DB_DATABASE="$DB" DB_USER="${DB_USER:-root}" PORT HOST=127.0.0.1 \
  ADMIN_TOKEN="$TOKEN" ADMIN_PASSWORD=bench-password SECRET=bench LOG_LEVEL=warn
node dist/src/server.js & pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/server/ping" >/dev/null && break; sleep 0.2; done

BASE_URL="http://127.0.0.1:$PORT" TOKEN="$TOKEN" node "$DATA/create-schema.mjs"
time psql -h 127.0.0.1 -d "$DB" -q -v ON_ERROR_STOP=1 -f "$DATA/load-data.sql"
echo "bench database $DB ready (admin static token: $TOKEN)"
