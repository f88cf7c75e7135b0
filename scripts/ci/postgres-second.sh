#!/usr/bin/env bash
# A second, throwaway PostgreSQL server for the spec group that runs beside the main one (npm test,
# scripts/test-groups.ts).
#
#   bash scripts/ci/postgres-second.sh [PORT]     (.ci/run runs it; default port 5439)
#
# Why: the projections' late-commit guard waits for the server-wide oldest running transaction
# (docs/adr, EVENT-SOURCING.md trap 1), so two spec runs on one server wait for each other's open
# transactions. This server is the same PostgreSQL binaries as the machine's, initialised in a
# temporary directory owned by the postgres account, trust authentication on loopback only,
# fsync off (test data only). Prints the URL on its last line; exits non-zero when it cannot start,
# and .ci/run then lets both groups share the machine's server.
set -euo pipefail
PORT=${1:-5439}
log() { printf '[postgres-second] %s\n' "$*" >&2; }
as_postgres() { if [ "$(id -un)" = postgres ]; then "$@"; elif [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -n -u postgres "$@"; fi; }
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$BIN/initdb" ] || { log "no PostgreSQL binaries under /usr/lib/postgresql"; exit 1; }
DIR=/tmp/vigil-ci-postgres-$PORT
if pg_isready -h 127.0.0.1 -p "$PORT" >/dev/null 2>&1; then
  log "already answering on $PORT"
else
  if [ ! -f "$DIR/PG_VERSION" ]; then
    rm -rf "$DIR"; mkdir -p "$DIR"
    [ "$(id -u)" = 0 ] && chown postgres "$DIR"
    as_postgres "$BIN/initdb" -D "$DIR" -A trust -U postgres >/dev/null
  fi
  as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -t 60 \
    -o "-p $PORT -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
fi
pg_isready -h 127.0.0.1 -p "$PORT" >/dev/null 2>&1 || { log "did not start (see $DIR/server.log)"; exit 1; }
log "ready on $PORT"
echo "postgres://postgres@127.0.0.1:$PORT/postgres"
