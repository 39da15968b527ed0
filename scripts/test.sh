#!/usr/bin/env bash
# The test command. On a fresh machine it installs and starts everything the tests need, then
# runs every test: unit tests, integration tests on SQLite, Pebble, bbolt, PostgreSQL and
# MariaDB (InnoDB and MyRocks), server management and CLI tests.
#   scripts/test.sh                 everything
#   scripts/test.sh -run TestName   extra arguments go to 'go test'
# Servers: PostgreSQL 15 and MariaDB 10.11 with the RocksDB plugin, from Debian's packages,
# started by 'dbperf server' on loopback (ports 15439 and 13309: not the defaults, so that a
# user's own servers and the tests' never meet, and below the ephemeral port range; data in
# /tmp/dbperf-test-*),
# with a throwaway password for the tests of password handling.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v go >/dev/null; then
  echo "Go is not installed: install Go 1.26 or later (https://go.dev/doc/install)" >&2
  exit 1
fi

# install_packages installs Debian packages that are missing, without starting the system's
# own instances (policy-rc.d), which dbperf never uses.
install_packages() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages: ${missing[*]}; install them as root (apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  apt-get install -y -qq "${missing[@]}" >&2
  rm -f /usr/sbin/policy-rc.d
  trap - EXIT
}
install_packages postgresql-15 mariadb-server mariadb-plugin-rocksdb chromium librocksdb-dev g++ sysbench

mkdir -p .testdata
go build -buildvcs=auto -o .testdata/dbperf ./cmd/dbperf
export DBPERF_SERVER_PASSWORD=dbperf-test
# The servers are stopped when the script ends, whether the tests pass, fail or are interrupted.
stop_servers() {
  local kind
  for kind in postgres mariadb; do
    if .testdata/dbperf server status "$kind" --datadir "/tmp/dbperf-test-$kind" >/dev/null 2>&1; then
      .testdata/dbperf server stop "$kind" --datadir "/tmp/dbperf-test-$kind" >/dev/null || true
    fi
  done
}
trap stop_servers EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for server in postgres:15439 mariadb:13309; do
  kind=${server%:*} port=${server#*:}
  # Restarted every time: a server left running may have another port, config or password.
  if .testdata/dbperf server status "$kind" --datadir "/tmp/dbperf-test-$kind" >/dev/null; then
    .testdata/dbperf server stop "$kind" --datadir "/tmp/dbperf-test-$kind" >/dev/null
  fi
  .testdata/dbperf server start "$kind" --datadir "/tmp/dbperf-test-$kind" --port "$port" --config cached-by-os >/dev/null
done
export DBPERF_TEST_POSTGRES=postgres://postgres:dbperf-test@127.0.0.1:15439/dbperf
export DBPERF_TEST_MYSQL=mysql://dbperf:dbperf-test@127.0.0.1:13309/dbperf

go vet ./...
# The packages whose goroutines share state (workers, recorders, the monitor's goroutine, pools,
# the processor governor, raw sockets, the socket paths and their cancellation) run under the
# race detector first; then every package.
go test -race -count=1 -timeout 10m "$@" ./internal/runner/ ./internal/measure/ ./internal/monitor/ \
  ./internal/session/ ./internal/workload/ ./internal/clientprocs/ ./internal/driver/rawsock/ \
  ./internal/driver/wire/ ./internal/driver/sqldriver/ ./internal/workload/linkbench/lbsql/
go test -count=1 -timeout 25m "$@" ./...
# The lean wire paths' parsers, fuzzed for 10 s each (a found input fails the run and is kept
# under testdata/fuzz, where later runs replay it).
if [ $# -eq 0 ]; then
  go test -run '^$' -fuzz '^FuzzPGReply$' -fuzztime 10s ./internal/driver/wire/
  go test -run '^$' -fuzz '^FuzzMySQLReply$' -fuzztime 10s ./internal/driver/wire/
  go test -run '^$' -fuzz '^FuzzMySQLHandshake$' -fuzztime 10s ./internal/driver/sqldriver/
fi
# The RocksDB engine is cgo behind a build tag (the default build stays pure Go): its packages
# again with the tag, against Debian's librocksdb-dev.
go vet -tags rocksdb ./internal/driver/kvdriver/ ./internal/workload/kv/
go test -tags rocksdb -count=1 -timeout 15m "$@" ./internal/driver/kvdriver/ ./internal/workload/kv/ ./internal/counters/ ./internal/workload/ycsb/ycsbdb/
if [ $# -eq 0 ]; then go test -tags rocksdb -count=1 -timeout 5m -run '^TestRocksDB' ./internal/crash/; fi
