#!/usr/bin/env bash
# A throwaway PostgreSQL 15 + pgvector cluster for the PostgreSQL test suites and the bench, used by .ci/run
# and by developers alike:
#
#   scripts/pg-test-cluster.sh start [DIR] [PORT]   # prints the KB_TEST_DATABASE_URL line to eval
#   scripts/pg-test-cluster.sh stop  [DIR]
#
# `start` builds pgvector from ../shared/vendor (Debian 12 has no package of it) when the server lacks it,
# then runs initdb (as the postgres user when started as root: initdb refuses root) and starts the server
# listening on 127.0.0.1:PORT with trust authentication — a test cluster, never a production one.
# Needs `pg_config` (Debian: apt-get install postgresql-server-dev-15).
set -euo pipefail
cmd=${1:-start}
DIR=${2:-/var/tmp/kbpg-test}
PORT=${3:-55433}
HERE=$(cd "$(dirname "$0")/.." && pwd)
VENDOR=${KB_PGVECTOR_TARBALL:-$HERE/../shared/vendor/pgvector-0.8.6.tar.gz}

command -v pg_config >/dev/null || { echo "pg-test-cluster: pg_config not found (apt-get install postgresql-server-dev-15)" >&2; exit 1; }
BIN=$(pg_config --bindir)

as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}

case "$cmd" in
  start)
    if [ ! -f "$(pg_config --sharedir)/extension/vector.control" ]; then
      [ -f "$VENDOR" ] || { echo "pg-test-cluster: pgvector is not installed and $VENDOR is missing" >&2; exit 1; }
      build=$(mktemp -d)
      tar -xzf "$VENDOR" -C "$build"
      if ! { make -s -C "$build"/pgvector-* >"$build/make.log" 2>&1 && make -s -C "$build"/pgvector-* install >>"$build/make.log" 2>&1; }; then
        cat "$build/make.log" >&2
        echo "pg-test-cluster: building pgvector failed" >&2
        exit 1
      fi
      rm -rf "$build"
    fi
    if [ "$(id -u)" = 0 ]; then install -d -o postgres "$DIR"; else mkdir -p "$DIR"; fi
    if [ ! -f "$DIR/data/PG_VERSION" ]; then
      as_owner "$BIN/initdb -D $DIR/data -A trust -U postgres >/dev/null"
    fi
    if ! as_owner "$BIN/pg_ctl -D $DIR/data status" >/dev/null 2>&1; then
      # Room for two servers' pools, the race tests' connections and the bench's visitors.
      as_owner "$BIN/pg_ctl -D $DIR/data -w -o '-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c max_connections=200' -l $DIR/log start" >/dev/null
    fi
    echo "export KB_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$PORT/postgres"
    ;;
  stop)
    as_owner "$BIN/pg_ctl -D $DIR/data -m fast stop" >/dev/null 2>&1 || true
    ;;
  *)
    echo "usage: $0 start|stop [DIR] [PORT]" >&2
    exit 2
    ;;
esac
