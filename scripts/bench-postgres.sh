#!/usr/bin/env bash
# Rows 1–3 of make bench on PostgreSQL, run by scripts/bench.sh after the same rows on SQLite: a PostgreSQL server
# on this machine (Debian's, a throwaway cluster with its default durability: fsync on, synchronous_commit on,
# reached through a Unix socket), then scripts/bench-gateway.sh and scripts/bench-receipts.sh with
# BENCH_STORE=postgresql (figures recorded as pg_…, with the share of the machine's CPU the PostgreSQL server
# used during each load), then scripts/bench-cluster.sh (one, two and three nodes on one database; the server loads
# pg_stat_statements for its statement counts). The cluster runs as the `postgres` user when root; it is stopped and
# removed at exit.
# Usage: scripts/bench-postgres.sh path/to/tandem WORKDIR HEALTHZ_RPS
set -euo pipefail
bin="$1"; work="$2"; healthz="$3"
scripts="$(cd "$(dirname "$0")" && pwd)"
source "$scripts/bench-lib.sh"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
# Not under WORKDIR: the postgres user must reach its directory, and mktemp's directories are private.
PG_HOST=$(mktemp -d /tmp/tandem-bench-pg.XXXXXX)
export PG_HOST PG_DATA="$PG_HOST/data" BENCH_STORE=postgresql
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" != 0 ] || chown postgres:postgres "$PG_HOST"
as_postgres "$pgbin/initdb" -D "$PG_DATA" -U tandem --auth=trust -E UTF8 --no-locale > "$work/pg-initdb.log"
as_postgres "$pgbin/pg_ctl" -D "$PG_DATA" -l "$PG_HOST/server.log" -w -t 60 start \
  -o "-k $PG_HOST -c listen_addresses='' -c max_connections=100 -c shared_preload_libraries=pg_stat_statements" > /dev/null
trap 'as_postgres "$pgbin/pg_ctl" -D "$PG_DATA" -m fast -w stop > /dev/null 2>&1 || true; rm -rf "$PG_HOST"' EXIT
version=$(psql -h "$PG_HOST" -U tandem -d postgres -XAtq -c "SHOW server_version")
settings=$(psql -h "$PG_HOST" -U tandem -d postgres -XAtq -F ' ' -c \
  "SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers', 'wal_level', 'full_page_writes')")
echo "== PostgreSQL $version on this machine (Unix socket; $settings)"
record conditions "PostgreSQL $version, same machine, Unix socket, $settings"
"$scripts/bench-gateway.sh" "$bin" "$work" "$healthz"
echo
"$scripts/bench-receipts.sh" "$bin" "$work" "$healthz"
echo
"$scripts/bench-cluster.sh" "$bin" "$work"
