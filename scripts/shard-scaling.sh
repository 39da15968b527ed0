#!/usr/bin/env bash
# shard-scaling.sh: how N local shards scale the client's ceiling (issue 26, docs/scale-out.md
# "The client's ceiling"). The Insert Benchmark's qr100 against the synthetic target (--target
# synth: a database that answers at once, so the run measures the client alone), as one whole
# run and as N shard processes on this host met at --start-at and merged. For each N it prints
# one line: queries a second over all shards and of each shard, the client CPU seconds the
# shards used together, and queries per client CPU-second, the per-core figure: it does not
# depend on how many cores were idle, so it compares across busy and idle hosts. The load
# average beside each line says how busy the host was.
#
# Usage: go build -o dbperf ./cmd/dbperf && scripts/shard-scaling.sh [N...]   (default: 1 2)
# Environment: DBPERF (./dbperf), SECS (qr100's --q-seconds, 10), CLIENTS (8), NICE (19),
# DIR (a temporary directory, removed at the end unless given).
set -euo pipefail

DBPERF=${DBPERF:-./dbperf}
SECS=${SECS:-10}
CLIENTS=${CLIENTS:-8}
NICE=${NICE:-19}
shards=("$@")
[ ${#shards[@]} -gt 0 ] || shards=(1 2)
if [ -z "${DIR:-}" ]; then
	DIR=$(mktemp -d)
	trap 'rm -rf "$DIR"' EXIT
fi
A=(--target synth --clients "$CLIENTS" --rows 20000 --steps l.i0,l.x,qr100 --q-seconds "$SECS"
	--no-verify --seed 1 --quiet)

load() { cut -d' ' -f1 /proc/loadavg; }

# run N DIR: one whole run (N = 1) or N shards merged into DIR.
run() {
	local n=$1 out=$2
	if [ "$n" = 1 ]; then
		nice -n "$NICE" "$DBPERF" run insert "${A[@]}" --out "$out" >/dev/null
		return
	fi
	local at i dirs=()
	at=$(date -u -d '+3 sec' +%Y-%m-%dT%H:%M:%SZ)
	for ((i = 0; i < n; i++)); do
		nice -n "$NICE" "$DBPERF" run insert "${A[@]}" --shard "$i/$n" --start-at "$at" --out "$out-s$i" >/dev/null &
		dirs+=("$out-s$i")
	done
	wait
	"$DBPERF" merge "${dirs[@]}" --out "$out" >/dev/null
}

echo "qr100 on --target synth, $CLIENTS clients, ${SECS} s; $(nproc) cores; dbperf $("$DBPERF" --version | cut -d' ' -f2-)"
printf '%-6s  %12s  %-27s  %9s  %13s  %13s  %s\n' shards 'queries/s' 'queries/s of each shard' 'client s' 'queries/cpu-s' 'cores used' 'load 1m before/after'
for n in "${shards[@]}"; do
	before=$(load)
	run "$n" "$DIR/n$n"
	after=$(load)
	s="$DIR/n$n/qr100/summary.json"
	each=$(if [ "$n" = 1 ]; then jq -r '.ops.query.per_sec' "$s"; else
		for ((i = 0; i < n; i++)); do jq -r '.ops.query.per_sec' "$DIR/n$n/qr100/shard-$i/summary.json"; done; fi |
		awk '{printf "%s%.0f", (NR > 1 ? " + " : ""), $1}')
	jq -r --arg n "$n" --arg each "$each" --arg load "$before / $after" \
		'[$n, .ops.query.per_sec, $each, .client_cpu_sec, .ops.query.count / .client_cpu_sec, .client_cpu_sec / .seconds, $load] |
		 "\(.[0])\t\(.[1])\t\(.[2])\t\(.[3])\t\(.[4])\t\(.[5])\t\(.[6])"' "$s" |
		awk -F'\t' '{printf "%-6s  %12.0f  %-27s  %9.2f  %13.0f  %13.2f  %s\n", $1, $2, $3, $4, $5, $6, $7}'
done
