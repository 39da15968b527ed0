#!/usr/bin/env bash
# A private PostgreSQL server on loopback for tests and local runs, never the system's instance.
#
#   scripts/postgres-server.sh start    install (Debian package) if missing, create, start; print the DSN
#   scripts/postgres-server.sh stop     shut down cleanly
#   scripts/postgres-server.sh status   what runs where
#   scripts/postgres-server.sh dsn      the URL to give dbperf --target
#
# Environment: DBPERF_PG_DIR (default /tmp/dbperf-pg), DBPERF_PG_PORT (default 55432),
# DBPERF_PG_PASSWORD (default dbperf-test: a throwaway password for a loopback test server).
set -euo pipefail

dir=${DBPERF_PG_DIR:-/tmp/dbperf-pg}
port=${DBPERF_PG_PORT:-55432}
password=${DBPERF_PG_PASSWORD:-dbperf-test}
data=$dir/data

bindir() {
  local b
  b=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$b" ] && [ -x "$b/postgres" ] && echo "$b"
}

install_server() {
  echo "PostgreSQL server binaries not found: installing the Debian package postgresql-15" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  # policy-rc.d keeps the package from starting the system's own cluster.
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  apt-get install -y -qq postgresql-15 postgresql-contrib >&2 || { rm -f /usr/sbin/policy-rc.d; exit 1; }
  rm -f /usr/sbin/policy-rc.d
}

# as_owner runs a command as the owner of the data directory: postgres refuses to run as root.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

dsn() { echo "postgres://postgres:${password}@127.0.0.1:${port}/dbperf"; }

running() { [ -f "$data/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; }

cmd=${1:-}
case "$cmd" in
  start|stop|status) ;;
  dsn) dsn; exit 0 ;;
  *) echo "usage: $0 start|stop|status|dsn" >&2; exit 2 ;;
esac

bin=$(bindir) || true
if [ -z "${bin:-}" ]; then
  if [ "$cmd" != start ]; then echo "PostgreSQL is not installed (scripts/postgres-server.sh start installs it)" >&2; exit 1; fi
  [ "$(id -u)" = 0 ] || { echo "PostgreSQL is not installed: run 'apt-get install postgresql-15' as root" >&2; exit 1; }
  install_server
  bin=$(bindir)
fi

case "$cmd" in
  start)
    if running; then echo "PostgreSQL already running on 127.0.0.1:$port (data $data)" >&2; dsn; exit 0; fi
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
    if [ ! -f "$data/PG_VERSION" ]; then
      pwfile=$(mktemp)
      echo "$password" >"$pwfile"
      [ "$(id -u)" = 0 ] && chown postgres "$pwfile"
      as_owner "$bin/initdb" -D "$data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
        --pwfile="$pwfile" -E UTF8 --locale=C >"$dir/initdb.log"
      rm -f "$pwfile"
      as_owner mkdir -p "$dir/sock"
      cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir/sock'
shared_buffers = 256MB
max_wal_size = 2GB
logging_collector = off
CONF
    fi
    as_owner "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 start >/dev/null
    # The database dbperf uses; dbperf would create it too.
    as_owner "$bin/psql" -h "$dir/sock" -p "$port" -U postgres -qAt -c "SELECT 1 FROM pg_database WHERE datname = 'dbperf'" postgres | grep -q 1 ||
      as_owner "$bin/psql" -h "$dir/sock" -p "$port" -U postgres -q -c "CREATE DATABASE dbperf" postgres
    echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') running on 127.0.0.1:$port (data $data)" >&2
    dsn
    ;;
  stop)
    if running; then as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null; echo "stopped" >&2; else echo "not running" >&2; fi
    ;;
  status)
    if running; then echo "running on 127.0.0.1:$port, data $data"; else echo "not running (data $data)"; exit 3; fi
    ;;
esac
