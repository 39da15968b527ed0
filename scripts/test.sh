#!/usr/bin/env bash
# The test command. On a fresh machine it installs and starts everything the tests need
# (PostgreSQL 15 from Debian's packages, on loopback; Go modules come with 'go test'), then runs
# every test: unit tests, integration tests on SQLite, Pebble, bbolt and PostgreSQL, CLI tests.
#   scripts/test.sh                 everything
#   scripts/test.sh -run TestName   extra arguments go to 'go test'
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v go >/dev/null; then
  echo "Go is not installed: install Go 1.26 or later (https://go.dev/doc/install)" >&2
  exit 1
fi
DBPERF_TEST_POSTGRES=$(scripts/postgres-server.sh start)
export DBPERF_TEST_POSTGRES
go vet ./...
go test -count=1 -timeout 25m "$@" ./...
