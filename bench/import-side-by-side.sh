#!/usr/bin/env bash
# Imports of an earlier commit and of this checkout side by side, with the import floor, on one
# database: each service on a fresh database of its own (started as `make start` runs it), the
# floor writing into this checkout's. Per round: the earlier commit's import, then the floor's
# and this checkout's (bench/run-import.ts with FLOOR_URL).
#   bench/import-side-by-side.sh sqlite3|mysql|pg   (BEFORE [178ff28, before the issue-13 work],
#   ROWS [100000], ROUNDS [3]; MariaDB and PostgreSQL on 127.0.0.1 as root)
# The earlier commit is built in a git worktree under a temporary folder, with this checkout's
# node_modules; the databases and files it makes are removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
client="${1:?sqlite3, mysql or pg}"
before="${BEFORE:-178ff28}"
rows="${ROWS:-100000}"
rounds="${ROUNDS:-3}"
work="$(mktemp -d)"
pids=()

database() { # name: creates it and prints the service's DB_* settings
  case "$client" in
    sqlite3) echo "DB_CLIENT=sqlite3 DB_FILENAME=$work/$1.sqlite" ;;
    mysql)
      mysql -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $1; CREATE DATABASE $1"
      echo "DB_CLIENT=mysql DB_HOST=127.0.0.1 DB_DATABASE=$1 DB_USER=root"
      ;;
    pg)
      PGOPTIONS=--client-min-messages=warning psql -h 127.0.0.1 -d postgres -qc "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1"
      echo "DB_CLIENT=pg DB_HOST=127.0.0.1 DB_DATABASE=$1 DB_USER=root"
      ;;
    *) echo "unknown database client: $client" >&2 && exit 2 ;;
  esac
}

cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  git worktree remove --force "$work/before" 2>/dev/null || true
  for name in svc_side_before svc_side_now; do
    if [ "$client" = mysql ]; then mysql -h 127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $name"; fi
    if [ "$client" = pg ]; then PGOPTIONS=--client-min-messages=warning psql -h 127.0.0.1 -d postgres -qc "DROP DATABASE IF EXISTS $name WITH (FORCE)"; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT
# Killed (Ctrl-C, or its output's reader gone), it still stops what it started.
trap 'exit 130' INT TERM HUP PIPE

# A server left on one of its ports (a run stopped some other way) would be measured instead.
for port in 8155 8156 8199; do
  if (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is in use: stop what listens there first" >&2 && exit 1
  fi
done

until_up() {
  for _ in $(seq 1 100); do curl -sf "$1/server/ping" >/dev/null && return 0; sleep 0.2; done
  echo "$1 did not start:" >&2 && cat "$work"/*.log >&2 && return 1
}

make build >/dev/null
git worktree add --quiet --detach "$work/before" "$before"
ln -s "$PWD/node_modules" "$work/before/node_modules"
# Its types are checked against this checkout's packages: an earlier commit may name a type
# package since removed. tsc still writes the JavaScript, which is what runs.
(cd "$work/before" && npx tsc -p tsconfig.json >/dev/null) ||
  echo "$before does not type-check against this checkout's node_modules; its JavaScript runs as built" >&2

service_env="NODE_ENV=production ADMIN_TOKEN=bench-static-admin-token ADMIN_PASSWORD=bench SECRET=bench LOG_LEVEL=warn HOST=127.0.0.1"
flags="${API_NODE_FLAGS:-$(sed -n 's/^API_NODE_FLAGS ?= //p' Makefile)}"
before_db="$(database svc_side_before)"
now_db="$(database svc_side_now)"
# shellcheck disable=SC2086 # the settings are words on purpose
(cd "$work/before" && exec env $service_env $before_db PORT=8156 node $flags dist/src/server.js >"$work/before.log" 2>&1) &
pids+=($!)
# shellcheck disable=SC2086
env $service_env $now_db PORT=8155 node $flags dist/src/server.js >"$work/now.log" 2>&1 &
pids+=($!)
until_up http://127.0.0.1:8156
until_up http://127.0.0.1:8155
# The floor on this checkout's database (DB_* for MariaDB and SQLite, PG* for PostgreSQL).
floor_db="$now_db"
if [ "$client" = pg ]; then floor_db="BENCH_DB=svc_side_now"; fi
# shellcheck disable=SC2086
env $floor_db PORT=8199 node --import tsx bench/floor-server.ts >"$work/floor.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do curl -s -o /dev/null http://127.0.0.1:8199/ && break; sleep 0.2; done

for round in $(seq 1 "$rounds"); do
  echo "round $round ($(date +%H:%M:%S))"
  echo -n "$before: "
  SERVICE_URL=http://127.0.0.1:8156 ROWS="$rows" node --import tsx bench/run-import.ts
  echo -n "this checkout: "
  SERVICE_URL=http://127.0.0.1:8155 SERVICE_PID="${pids[1]}" FLOOR_URL=http://127.0.0.1:8199 ROWS="$rows" \
    node --import tsx bench/run-import.ts | paste -sd ' '
done
