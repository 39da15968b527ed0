#!/usr/bin/env bash
# pingpong.sh: what a client's way of waiting for each reply costs, apart from any DBMS. A C
# server with a thread per connection (WORK_US of CPU a request) and closed-loop clients with
# THINK_US of CPU between a reply and the next request: a C client blocking in read, and Go
# clients waiting as dbperf's client paths do (scripts/pingpong/main.go). Each prints requests
# a second and its process's CPU per request; ROUNDS rounds in turn (docs/performance.md,
# "Waiting in the kernel"). Run it on a quiet machine: the effect is that of idle CPUs.
#
# Usage: [CLIENTS=2] [SECS=3] [WORK_US=40] [THINK_US=15] [ROUNDS=3] scripts/pingpong.sh
# Needs gcc.
set -euo pipefail
cd "$(dirname "$0")/.."
clients=${CLIENTS:-2} secs=${SECS:-3} work=${WORK_US:-40} think=${THINK_US:-15} rounds=${ROUNDS:-3}
dir=$(mktemp -d /tmp/pingpong.XXXXXX)
trap 'kill $srv 2>/dev/null; rm -rf "$dir"' EXIT
gcc -O2 -o "$dir/srv" scripts/pingpong/csrc/srv.c -lpthread
gcc -O2 -o "$dir/cli" scripts/pingpong/csrc/cli.c -lpthread
go build -o "$dir/gocli" ./scripts/pingpong
port=$((20000 + RANDOM % 20000))
"$dir/srv" "$port" "$work" & srv=$!
sleep 0.3
echo "clients $clients, server $work us a request, client $think us between ($(uptime | sed 's/.*load/load/'))"
for r in $(seq 1 "$rounds"); do
	echo "== round $r"
	"$dir/cli" "$port" "$clients" "$secs" "$think"
	for m in net raw kernel; do "$dir/gocli" "$port" "$clients" "$secs" "$think" "$m"; done
done
