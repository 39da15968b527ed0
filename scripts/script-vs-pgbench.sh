#!/usr/bin/env bash
# script-vs-pgbench.sh: pgbench's built-in scripts run by pgbench and by `dbperf run script
# --builtin` on the same tables of the same server, side by side (docs/script.md, "Beside
# pgbench"). For each built-in and round, pgbench and dbperf alternate (pgbench first in odd
# rounds, dbperf first in even ones), so neither always runs in the other's wake; the figures
# are medians over the rounds.
#
#   throughput:      pgbench's "tps = N (without initial connection time)"; dbperf's step figure
#                    tps (successful transactions / the step's seconds)
#   client CPU / tx: user + system time of the client process divided by its transactions:
#                    /usr/bin/time for pgbench; for dbperf the run step's own getrusage figures
#                    in summary.json (its startup, init and checks are not counted, its monitor
#                    and runner are)
#   counts / tx:     with SVP_PERF=1, each client runs under `perf stat`, which counts its context
#                    switches and system calls (the whole process for both): figures per
#                    transaction that the machine's other load barely moves, unlike CPU time
#                    (docs/performance.md, "Lean socket reads")
#
# Both vacuum pgbench_branches and pgbench_tellers and truncate pgbench_history before each
# run (pgbench's default; dbperf's too, without --no-vacuum).
#
# Usage: scripts/script-vs-pgbench.sh
# Environment:
#   SVP_PG       PostgreSQL target (default postgres://postgres@127.0.0.1:15432/dbperf_svp)
#   SVP_SCALE    pgbench -i -s (default 10)
#   SVP_CLIENTS  clients of both (default 4)
#   SVP_JOBS     pgbench's threads, -j (default 1, pgbench's default: one thread serves every client)
#   SVP_THREADS  how dbperf runs its clients: pgbench (default) as pgbench does, SVP_JOBS threads
#                sharing them and waiting for replies together (--client-path raw --client-procs
#                SVP_JOBS); dbperf, its own default, a thread per client waiting in the kernel
#                (--client-path SVP_CLIENT_PATH, --client-procs auto)
#   SVP_SECONDS  length of each run (default 20)
#   SVP_ROUNDS   rounds (default 3)
#   SVP_MODE     query mode of both, pgbench's -M (default prepared)
#   SVP_SCRIPTS  built-ins to compare (default "tpcb-like select-only")
#   SVP_CLIENT_PATH  dbperf's --client-path under SVP_THREADS=dbperf: kernel (default), raw,
#                netconn or driver
#   SVP_DBPERF   the dbperf binary (default: built into $SVP_DIR)
#   SVP_DIR      work directory (default /tmp/script-vs-pgbench)
#   SVP_PERF     1: count context switches and system calls (needs perf with access to the
#                raw_syscalls tracepoints: root, or perf_event_paranoid -1); default 0
set -euo pipefail

cd "$(dirname "$0")/.."
pg=${SVP_PG:-postgres://postgres@127.0.0.1:15432/dbperf_svp}
scale=${SVP_SCALE:-10}
clients=${SVP_CLIENTS:-4}
jobs=${SVP_JOBS:-1}
threads=${SVP_THREADS:-pgbench}
secs=${SVP_SECONDS:-20}
rounds=${SVP_ROUNDS:-3}
mode=${SVP_MODE:-prepared}
scripts=${SVP_SCRIPTS:-tpcb-like select-only}
client_path=${SVP_CLIENT_PATH:-kernel}
case $threads in
pgbench) dbperf_threads=(--client-path raw --client-procs "$jobs") ;;
dbperf) dbperf_threads=(--client-path "$client_path") ;;
*)
	echo "script-vs-pgbench: SVP_THREADS must be pgbench or dbperf (got $threads)" >&2
	exit 1
	;;
esac
dir=${SVP_DIR:-/tmp/script-vs-pgbench}
perf=${SVP_PERF:-0}
mkdir -p "$dir"
if [ "$perf" = 1 ] && ! perf stat -e raw_syscalls:sys_enter true 2>/dev/null; then
	echo "script-vs-pgbench: SVP_PERF=1 needs perf with access to the raw_syscalls tracepoints (run as root, or sysctl kernel.perf_event_paranoid=-1)" >&2
	exit 1
fi
dbperf=${SVP_DBPERF:-$dir/dbperf}
if [ -z "${SVP_DBPERF:-}" ]; then
	go build -buildvcs=auto -o "$dbperf" ./cmd/dbperf
fi

# The database, then pgbench's tables: dbperf's init step creates the same ones, but both
# clients must start from the same data.
admin=${pg%/*}/postgres
psql -q "$admin" -c "CREATE DATABASE ${pg##*/}" 2>/dev/null || true
pgbench -i -q -s "$scale" "$pg" >"$dir/init.log" 2>&1

# counter OUT: the perf stat command (an array, counted) that counts a client's context switches
# and system calls into OUT.perf under SVP_PERF=1; nothing otherwise.
counter() {
	counted=()
	[ "$perf" = 1 ] || return 0
	rm -f "$1.perf"
	counted=(perf stat -x, -o "$1.perf" -e context-switches,raw_syscalls:sys_enter --)
}

# counts OUT TX: context switches and system calls per transaction from OUT.perf, or "- -".
counts() {
	if [ -f "$1.perf" ]; then
		awk -F, -v n="$2" '$3 == "context-switches" {c = $1} $3 == "raw_syscalls:sys_enter" {s = $1}
			END {printf "%.2f %.2f\n", c / n, s / n}' "$1.perf"
	else
		echo - -
	fi
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

run_pgbench() { # script round -> "tps cpu_us_per_tx"; its counts per transaction to $dir/pgbench.counts
	local out="$dir/pgbench-$1-$2"
	counter "$out"
	/usr/bin/time -f '%U %S' -o "$out.time" "${counted[@]}" pgbench -M "$mode" -c "$clients" -j "$jobs" -T "$secs" -b "$1" "$pg" >"$out.log" 2>&1
	local tps tx cpu
	tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$out.log")
	tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$out.log")
	cpu=$(awk '{print $1 + $2}' "$out.time")
	counts "$out" "$tx" >"$dir/pgbench.counts"
	echo "$tps $(awk -v c="$cpu" -v n="$tx" 'BEGIN {printf "%.2f", c * 1e6 / n}')"
}

run_dbperf() { # script round -> "tps cpu_us_per_tx transactions client_procs"
	local out="$dir/dbperf-$1-$2"
	rm -rf "$out"
	counter "$out"
	"${counted[@]}" "$dbperf" "${dbperf_threads[@]}" run script --builtin "$1" --steps run --query-mode "$mode" --clients "$clients" \
		--step-seconds "$secs" --target "$pg" --quiet --out "$out" >"$out.log" 2>&1
	python3 - "$out/run/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
w = s["workload"]
print(w["tps"], "%.2f" % (s["client_cpu_sec"] * 1e6 / max(w["transactions"], 1)), w["transactions"], s.get("host", {}).get("client_procs", "-"))
PY
}

echo "pgbench -M $mode -c $clients -j $jobs; dbperf ${dbperf_threads[*]} --query-mode $mode --clients $clients" | tee "$dir/rounds.txt"
printf '%-12s %-8s %10s %10s %12s %12s %6s %s\n' script round pg_tps dbperf_tps pg_cpu_us dbperf_cpu_us procs \
	"ctxsw/syscalls per tx: pgbench, dbperf" | tee -a "$dir/rounds.txt"
for s in $scripts; do
	: >"$dir/$s.pg"
	: >"$dir/$s.db"
	for r in $(seq 1 "$rounds"); do
		if [ $((r % 2)) -eq 1 ]; then
			p=$(run_pgbench "$s" "$r"); d=$(run_dbperf "$s" "$r")
		else
			d=$(run_dbperf "$s" "$r"); p=$(run_pgbench "$s" "$r")
		fi
		# shellcheck disable=SC2086
		set -- $d
		echo "$p" >>"$dir/$s.pg"
		echo "$1 $2" >>"$dir/$s.db"
		printf '%-12s %-8s %10s %10s %12s %12s %6s %s\n' "$s" "$r" ${p%% *} "$1" ${p##* } "$2" "$4" \
			"$(cat "$dir/pgbench.counts"), $(counts "$dir/dbperf-$s-$r" "$3")" | tee -a "$dir/rounds.txt"
	done
done
echo
printf '%-12s %10s %10s %8s %12s %12s %8s\n' script pg_tps dbperf_tps ratio pg_cpu_us dbperf_cpu_us ratio
for s in $scripts; do
	pt=$(cut -d' ' -f1 "$dir/$s.pg" | median); dt=$(cut -d' ' -f1 "$dir/$s.db" | median)
	pc=$(cut -d' ' -f2 "$dir/$s.pg" | median); dc=$(cut -d' ' -f2 "$dir/$s.db" | median)
	printf '%-12s %10.0f %10.0f %8.3f %12.2f %12.2f %8.3f\n' "$s" "$pt" "$dt" "$(awk -v a="$dt" -v b="$pt" 'BEGIN {print a / b}')" \
		"$pc" "$dc" "$(awk -v a="$dc" -v b="$pc" 'BEGIN {print a / b}')"
done
