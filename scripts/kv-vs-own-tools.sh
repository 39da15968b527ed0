#!/usr/bin/env bash
# kv-vs-own-tools.sh: dbperf's bbolt and Badger beside each engine's own benchmark command, on
# the steps whose operations match (docs/performance.md "bbolt and Badger beside their own
# tools"). Each tool loads its own database of KEYS keys of 20+400 bytes and then reads it; which
# tool goes first alternates by repetition; medians of REPEATS.
#
#   bbolt (go.etcd.io/bbolt/cmd/bbolt of the linked version, `bbolt bench`): sequential puts,
#     one read-write transaction each, no fsync (--batch-size 1 --no-sync), beside dbperf's
#     fillseq (one put a transaction, --sync off: the reference's); then Gets of the written
#     keys in one thread (--read-mode rnd), beside readrandom with --threads 1. bbolt's reads all
#     run in one read transaction and, as its "rnd" reads visit the keys in the order they were
#     written, in key order; dbperf's readrandom opens one per Get, at random keys, as an
#     application reading one key does: the figures say what that costs.
#   Badger (github.com/dgraph-io/badger/v4/badger, `badger benchmark`): `write -s` beside
#     dbperf's fillseq: a bulk load through Badger's StreamWriter (4 goroutines build tables of
#     sorted 8-byte keys directly; it ignores -k), with dbperf's value threshold (-t 64: values in
#     the value log); its rate is keys over the process's wall time. `read` (random lookups of
#     sampled keys by a key iterator, without reading the values, THREADS goroutines, SECS)
#     beside readrandom.
#
# Beside each rate, the CPU per operation (user + system): dbperf's client_cpu_us_per_op, and
# the own tool's process CPU over its operations, which a busy machine disturbs less than the
# rates. bbolt bench's one process writes and then reads: its CPU is charged to the writes
# (its one pass of reads is under a tenth of it), and its reads have none.
#
#   GOBIN=$PWD go install go.etcd.io/bbolt/cmd/bbolt@v1.5.0
#   GOBIN=$PWD go install github.com/dgraph-io/badger/v4/badger@v4.9.6
#   go build -o dbperf ./cmd/dbperf && scripts/kv-vs-own-tools.sh
#
# Environment: ENGINES (bbolt badger), KEYS (1000000), THREADS (2: Badger's reads), SECS (10),
# REPEATS (3), DBPERF (./dbperf), BBOLT (./bbolt), BADGER (./badger), DIR (a temporary directory).
set -euo pipefail

ENGINES=${ENGINES:-bbolt badger}
KEYS=${KEYS:-1000000}
THREADS=${THREADS:-2}
SECS=${SECS:-10}
REPEATS=${REPEATS:-3}
DBPERF=${DBPERF:-./dbperf}
BBOLT=${BBOLT:-./bbolt}
BADGER=${BADGER:-./badger}
DIR=${DIR:-$(mktemp -d /tmp/kv-vs-own.XXXXXX)}
results=$DIR/results.tsv
printf 'rep\tengine\ttool\tstep\tops_sec\tcpu_us_op\n' >"$results"

# dbperf_steps ENGINE DB THREADS STEPS: prints "step ops_sec cpu_us_op" per step.
dbperf_steps() {
	"$DBPERF" run kv --target "$1:$2" --keys "$KEYS" --key-size 20 --value-size 400 --threads "$3" \
		--step-seconds "$SECS" --steps "$4" --quiet --out "$2.run-$3" >"$2-$3.log" 2>&1
	for s in ${4//,/ }; do echo "$s $(jq -r '"\(.workload.ops_sec // 0) \(.client_cpu_us_per_op // "-")"' "$2.run-$3/$s/summary.json")"; done
}

# cpu_us FILE N: microseconds of CPU (user + system, GNU time's -f '%U %S') per operation of N.
cpu_us() { awk -v n="$2" '{ printf "%.2f", ($1 + $2) * 1e6 / n }' "$1"; }

bbolt_own() { # prints "fillseq OPS CPU" and "readrandom OPS -" from bbolt bench's Write and Read lines
	/usr/bin/time -f '%U %S' -o "$1.time" "$BBOLT" bench --path "$1" --count "$KEYS" --batch-size 1 --no-sync \
		--write-mode seq --read-mode rnd --key-size 20 --value-size 400 2>/dev/null |
		awk '/^# Write/ { gsub(/[(]/, ""); print "fillseq", $(NF-1) } /^# Read/ { gsub(/[(]/, ""); print "readrandom", $(NF-1), "-" }' >"$1.out"
	awk -v c="$(cpu_us "$1.time" "$KEYS")" '$1 == "fillseq" { $3 = c } { print }' "$1.out"
}

badger_own() { # write: keys over the process's wall time; read: the last "entries read" speed
	local t0 t1 n
	t0=$(date +%s.%N)
	/usr/bin/time -f '%U %S' -o "$1.write.time" "$BADGER" benchmark write --dir "$1" \
		-m "$(awk -v k="$KEYS" 'BEGIN { print k / 1e6 }')" -k 20 --val-size 400 -t 64 -s >"$1.write.log" 2>&1
	t1=$(date +%s.%N)
	echo "fillseq $(awk -v k="$KEYS" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", k / (b - a) }') $(cpu_us "$1.write.time" "$KEYS")"
	/usr/bin/time -f '%U %S' -o "$1.read.time" "$BADGER" benchmark read --dir "$1" -d "${SECS}s" -g "$THREADS" >"$1.read.log" 2>&1
	n=$(grep -o 'entries read: [0-9]*' "$1.read.log" | tail -1 | awk '{print $NF}')
	echo "readrandom $(grep -o 'entries read: [0-9]*, speed: [0-9]*' "$1.read.log" | tail -1 | awk '{print $NF}') $(cpu_us "$1.read.time" "${n:-1}")"
}

for r in $(seq 1 "$REPEATS"); do
	for e in $ENGINES; do
		order="own dbperf"
		[ $((r % 2)) -eq 0 ] && order="dbperf own"
		for tool in $order; do
			db=$DIR/$e-$tool-$r
			rm -rf "$db" "$db".run-*
			echo "repetition $r, $e: $tool (load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%H:%M:%S))" >&2
			if [ "$tool" = own ] && [ "$e" = bbolt ]; then
				out=$(bbolt_own "$db")
			elif [ "$tool" = own ]; then
				out=$(badger_own "$db")
			elif [ "$e" = bbolt ]; then
				out=$(dbperf_steps bbolt "$db" 1 fillseq,readrandom)
			else
				out=$( (dbperf_steps badger "$db" 1 fillseq) && (dbperf_steps badger "$db" "$THREADS" readrandom))
			fi
			echo "$out" | while read -r s v c; do printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$e" "$tool" "$s" "$v" "$c" >>"$results"; done
			rm -rf "$db"
		done
	done
done

echo "keys $KEYS of 20+400 bytes, Badger's reads $THREADS threads, ${SECS}s, $REPEATS repetitions (medians)"
printf "%-20s %12s %12s %7s %14s %14s\n" "engine step" "own tool" "dbperf" "ratio" "own CPU µs/op" "dbperf CPU"
awk -F'\t' 'NR > 1 { x = $2 " " $4 " " $3; v[x] = v[x] " " $5; if ($6 != "-") c[x] = c[x] " " $6; k[$2 " " $4] = 1 }
function median(s,    n, a, i, j, t) {
	n = split(s, a, " ")
	if (n == 0) return "-"
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	for (x in k) {
		o = median(v[x " own"]); d = median(v[x " dbperf"])
		printf "%-20s %12.0f %12.0f %7.2f %14s %14s\n", x, o, d, o ? d / o : 0, median(c[x " own"]), median(c[x " dbperf"])
	}
}' "$results" | sort
echo "results: $results"
