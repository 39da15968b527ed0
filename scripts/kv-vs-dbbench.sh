#!/usr/bin/env bash
# kv-vs-dbbench.sh: dbperf's key-value steps on RocksDB beside RocksDB's own db_bench, on the same
# library (Debian's librocksdb 7.8.3, which db_bench from rocksdb-tools links too), the same keys,
# values, threads, step length and options, in the reference's step order.
#
# Each repetition gives each tool a fresh database and runs every step with both, one step at a
# time: db_bench (a process per step with benchmark.sh's flags, tools/benchmark.sh at
# facebook/rocksdb 1dfa729), then `dbperf run kv --target rocksdb --steps STEP` (a process per
# step too), or the other way round: which goes first alternates from step to step and from
# repetition to repetition, so a change in the machine's load hits both. The table has each
# step's median ops/s over the repetitions, the ratio dbperf/db_bench, and CPU µs per op
# (user+system CPU of the process, or of dbperf's step, over the step's ops).
# docs/performance.md ("RocksDB beside db_bench") has the figures and what they mean.
#
#   go build -tags rocksdb -o dbperf ./cmd/dbperf
#   scripts/kv-vs-dbbench.sh                       # 1M keys, 2 threads, 10 s steps, 3 repetitions
#   KEYS=500000 SECS=8 STEPS=fillseq,readrandom REPEATS=1 scripts/kv-vs-dbbench.sh
#
# ENGINE=pebble runs Pebble's own `pebble bench ycsb` (cmd/pebble of the linked Pebble version:
# GOBIN=$PWD go install github.com/cockroachdb/pebble/v2/cmd/pebble@v2.1.7) beside dbperf's
# Pebble on the steps whose operations match: readrandom (ycsb read=100), fwdrange (scan=100,
# --scans 10) and overwriteandwait's overwrite (update=100), uniform keys, 400-byte values half
# compressible, no WAL on either side (ycsb's WAL writes are synced); each tool loads its own
# keys (ycsb's are hashed, "user" + digits + 10 bytes) and ycsb keeps its own options.
#
# Environment: KEYS (1000000), THREADS (2), SECS (10: every timed step), DRAIN (SECS: revrange),
# REPEATS (3), SETUP (byrx: no compression, cache twice the data; byos: cache data/16; iodir:
# byos with lz4 and O_DIRECT), STEPS (all, comma-separated, reference order), DBPERF (./dbperf),
# DB_BENCH (db_bench), ENGINE (rocksdb or pebble), PEBBLE (./pebble), DIR (a new temporary
# directory for the databases), OUT (the results: results.tsv, table.txt, each step's logs).
set -euo pipefail

KEYS=${KEYS:-1000000}
THREADS=${THREADS:-2}
SECS=${SECS:-10}
DRAIN=${DRAIN:-$SECS}
REPEATS=${REPEATS:-3}
SETUP=${SETUP:-byrx}
STEPS=${STEPS:-fillseq,revrange,readrandom,fwdrange,multireadrandom,overwritesome,flush_mt_l0,revrangewhilewriting,fwdrangewhilewriting,readwhilewriting,overwriteandwait}
DBPERF=${DBPERF:-./dbperf}
DB_BENCH=${DB_BENCH:-db_bench}
ENGINE=${ENGINE:-rocksdb}
PEBBLE=${PEBBLE:-./pebble}
OUT=${OUT:-runs/kv-vs-dbbench-$(date -u +%Y%m%d-%H%M%S)}
DIR=${DIR:-$(mktemp -d /tmp/kv-vs-dbbench.XXXXXX)}
KEY_SIZE=20
VALUE_SIZE=400
M=$((1024 * 1024))

if [ "$ENGINE" = pebble ]; then
	STEPS=${PEBBLE_STEPS:-fillseq,readrandom,fwdrange,overwriteandwait}
	[ -x "$PEBBLE" ] || { echo "no $PEBBLE: see the ENGINE=pebble note at the top" >&2; exit 1; }
else
	command -v "$DB_BENCH" >/dev/null || { echo "no $DB_BENCH: apt-get install rocksdb-tools" >&2; exit 1; }
	"$DBPERF" targets 2>/dev/null | grep -q '^ *rocksdb' ||
		{ echo "$DBPERF has no rocksdb target: go build -tags rocksdb -o dbperf ./cmd/dbperf" >&2; exit 1; }
fi
mkdir -p "$OUT"

# The setup's cache, compression and O_DIRECT, as dbperf's kv.Config.EngineOptions picks them.
data=$((KEYS * (KEY_SIZE + VALUE_SIZE)))
case $SETUP in
byrx) cache=$((2 * data)); [ $cache -lt $((64 * M)) ] && cache=$((64 * M)); compression=none; odirect= ;;
byos) cache=$((data / 16)); [ $cache -lt $M ] && cache=$M; compression=none; odirect= ;;
iodir) cache=$((data / 16)); [ $cache -lt $M ] && cache=$M; compression=lz4; odirect=1 ;;
*) echo "SETUP must be byrx, byos or iodir" >&2; exit 1 ;;
esac

# benchmark.sh's flags for leveled compaction with benchmark_compare.sh's defaults
# (benchmark.sh:264-310 const_params_base and level_const_params, 366-382 l0_config and
# params_w; benchmark_compare.sh:26-55 the values), DB_BENCH_NO_SYNC=1 (benchmark_compare.sh:231).
bytes_per_sync=$M
odirect_flags=()
if [ -n "$odirect" ]; then # benchmark.sh:222-226
	odirect_flags=(--use_direct_reads --use_direct_io_for_flush_and_compaction --prepopulate_block_cache=1)
	bytes_per_sync=0
fi
common=(--num="$KEYS" --key_size=$KEY_SIZE --value_size=$VALUE_SIZE --block_size=8192
	--cache_size="$cache" --cache_numshardbits=6 --compression_max_dict_bytes=0 --compression_ratio=0.5
	--compression_type=$compression --bytes_per_sync=$bytes_per_sync "${odirect_flags[@]}"
	--write_buffer_size=$((32 * M)) --target_file_size_base=$((32 * M)) --max_bytes_for_level_base=$((128 * M))
	--verify_checksum=1 --delete_obsolete_files_period_micros=$((60 * M)) --max_bytes_for_level_multiplier=8
	--statistics=0 --stats_per_interval=1 --stats_interval_seconds=20 --report_interval_seconds=1 --histogram=1
	--memtablerep=skip_list --bloom_bits=10 --open_files=-1 --subcompactions=1
	--compaction_style=0 --num_levels=8 --min_level_to_compress=-1 --level_compaction_dynamic_level_bytes=true
	--pin_l0_filter_and_index_blocks_in_cache=1
	--level0_file_num_compaction_trigger=4 --level0_slowdown_writes_trigger=20 --level0_stop_writes_trigger=30
	--max_background_jobs=8 --max_write_buffer_number=8)
nolim=(--benchmark_write_rate_limit=0)
lim=(--benchmark_write_rate_limit=$((2 * M))) # MB_WRITE_PER_SEC=2 (benchmark_compare.sh:22, 246-247)

# dbbench_step runs one step as benchmark.sh does (its run_* functions, benchmark.sh:838-1063) and
# prints "ops_sec cpu_seconds" (the main benchmark's ops/sec line; user+system of the process).
dbbench_step() {
	local step=$1 db=$2 log=$3 args name
	local base=(--db="$db" --wal_dir="$db" "${common[@]}" --seed="$RANDOM$RANDOM" --report_file="$log.report.csv")
	case $step in
	fillseq) name=fillseq args=(--benchmarks=fillseq,stats "${nolim[@]}" --allow_concurrent_memtable_write=false
		--min_level_to_compress=0 --use_existing_db=0 --sync=0 --threads=1 --memtablerep=vector --disable_wal=1) ;;
	revrange) name=seekrandom args=(--benchmarks=seekrandom,stats "${nolim[@]}" --use_existing_db=1 --threads=1
		--num=100 --duration="$DRAIN" --seek_nexts=10 --reverse_iterator=true) ;;
	readrandom) name=readrandom args=(--benchmarks=readrandom,stats "${nolim[@]}" --use_existing_db=1
		--threads="$THREADS" --duration="$SECS") ;;
	fwdrange) name=seekrandom args=(--benchmarks=seekrandom,stats "${nolim[@]}" --use_existing_db=1
		--threads="$THREADS" --duration="$SECS" --seek_nexts=10 --reverse_iterator=false) ;;
	multireadrandom) name=multireadrandom args=(--benchmarks=multireadrandom,stats "${lim[@]}" --use_existing_db=1
		--threads="$THREADS" --duration="$SECS" --batch_size=10 --multiread_batched) ;;
	overwritesome) name=overwrite args=(--benchmarks=overwrite,stats "${nolim[@]}" --use_existing_db=1 --sync=0
		--threads="$THREADS" --merge_operator=put --writes=$(((KEYS / THREADS + 5) / 10))) ;;
	flush_mt_l0) name= args=(--benchmarks=levelstats,flush,waitforcompaction,compact0,waitforcompaction,memstats,levelstats,stats
		"${nolim[@]}" --use_existing_db=1 --sync=0 --threads=1) ;;
	revrangewhilewriting | fwdrangewhilewriting)
		local rev=false; [ "$step" = revrangewhilewriting ] && rev=true
		name=seekrandomwhilewriting args=(--benchmarks=seekrandomwhilewriting,stats "${lim[@]}" --use_existing_db=1
			--sync=0 --threads="$THREADS" --duration="$SECS" --merge_operator=put --seek_nexts=10 --reverse_iterator=$rev) ;;
	readwhilewriting) name=readwhilewriting args=(--benchmarks=readwhilewriting,stats "${lim[@]}" --use_existing_db=1
		--sync=0 --threads="$THREADS" --duration="$SECS" --merge_operator=put) ;;
	overwriteandwait) name=overwrite args=(--benchmarks=overwrite,waitforcompaction,stats "${nolim[@]}"
		--use_existing_db=1 --sync=0 --threads="$THREADS" --duration="$SECS" --merge_operator=put) ;;
	esac
	/usr/bin/time -f '%e %U %S' -o "$log.time" "$DB_BENCH" "${base[@]}" "${args[@]}" >"$log" 2>&1
	local ops cpu
	ops=$(awk -v n="$name" '$1 == n && $2 == ":" { for (i = 3; i < NF; i++) if ($(i+1) == "ops/sec") v = $i } END { print v + 0 }' "$log")
	cpu=$(awk '{ print $2 + $3 }' "$log.time")
	echo "$ops $cpu"
}

# pebble_step runs one step with `pebble bench ycsb` and prints "ops_sec cpu_seconds": fillseq
# loads KEYS keys (no matching figure: 0), the others run for SECS (cmd/pebble/ycsb.go; --cache
# is the setup's, the other options ycsb's own, cmd/pebble/db.go).
pebble_step() {
	local step=$1 db=$2 log=$3 wl
	local common=(--values 400/2 --keys uniform -c "$THREADS" --cache "$cache")
	case $step in
	fillseq) wl=(--wipe --initial-keys "$KEYS" --workload read=100 -n 1) ;;
	readrandom) wl=(--prepopulated-keys "$KEYS" --initial-keys 0 --workload read=100 -d "${SECS}s") ;;
	fwdrange) wl=(--prepopulated-keys "$KEYS" --initial-keys 0 --workload scan=100 --scans 10 -d "${SECS}s") ;;
	overwriteandwait) wl=(--prepopulated-keys "$KEYS" --initial-keys 0 --workload update=100 -d "${SECS}s" --disable-wal) ;;
	*) echo "0 0"; return ;;
	esac
	/usr/bin/time -f '%e %U %S' -o "$log.time" "$PEBBLE" bench ycsb "$db" "${wl[@]}" "${common[@]}" >"$log" 2>&1
	[ "$step" = fillseq ] && { echo "0 0"; return; }
	awk '/^Benchmarkycsb/ { for (i = 1; i < NF; i++) if ($(i+1) == "ops/sec") v = $i } END { printf "%s ", v + 0 }' "$log"
	awk '{ print $2 + $3 }' "$log.time"
}

# ycsb's writes are synced unless it runs without a WAL (cmd/pebble/ycsb.go:281-284), and the
# reference's are neither: beside ycsb, both sides write without the WAL.
dbperf_extra=()
[ "$ENGINE" = pebble ] && dbperf_extra=(--disable-wal)

# dbperf_step runs one step with dbperf, as a process of its own (as benchmark.sh runs db_bench),
# into $3, and prints "ops_sec cpu_seconds" (the step's own CPU, from its summary.json).
dbperf_step() {
	local step=$1 db=$2 out=$3
	"$DBPERF" run kv --target "$ENGINE:$db" --keys "$KEYS" --key-size $KEY_SIZE --value-size $VALUE_SIZE \
		--threads "$THREADS" --step-seconds "$SECS" --drain-seconds "$DRAIN" --setup "$SETUP" --cache-mb $((cache / M)) \
		--steps "$step" --quiet --out "$out" "${dbperf_extra[@]}" >"$out.log" 2>&1 || { echo "0 0"; return; }
	jq -r '"\(.workload.ops_sec // 0) \(.client_cpu_sec // 0)"' "$out/$step/summary.json"
}

# options_snapshot keeps the OPTIONS file RocksDB last wrote for a step (dbperf's check after a
# step reopens the database with compactions off, which writes another: that one is skipped),
# normalised to sorted option lines, so that options.diff shows every option that differs.
options_snapshot() {
	local f
	for f in $(ls -t "$1"/OPTIONS-* 2>/dev/null); do
		grep -q 'disable_auto_compactions=true' "$f" && continue
		grep -v '^#\|^ *$\|^ *\[' "$f" | sed 's/^ *//' | grep -v 'rocksdb_version\|options_file_version\|db_log_dir\|wal_dir\|db_host_id' | sort >"$2"
		return
	done
}

# Steps interleave: within a repetition each step runs with one tool, then at once with the other
# (each on its own database, loaded by its own fillseq), the first tool alternating from step to
# step and from repetition to repetition, so that the machine's load, which moves over minutes,
# falls on both alike.
results=$OUT/results.tsv
printf 'rep\ttool\tstep\tops_sec\tcpu_s\tload1\n' >"$results"
for r in $(seq 1 "$REPEATS"); do
	rm -rf "${DIR:?}/dbbench" "${DIR:?}/dbperf"
	mkdir -p "$DIR/dbbench" "$DIR/dbperf" "$OUT/dbbench-$r" "$OUT/dbperf-$r"
	i=0
	for s in ${STEPS//,/ }; do
		i=$((i + 1))
		order="dbbench dbperf"
		[ $(((r + i) % 2)) -eq 0 ] && order="dbperf dbbench"
		for tool in $order; do
			load=$(cut -d' ' -f1 /proc/loadavg)
			echo "repetition $r, $s: $tool (load $load, $(date -u +%H:%M:%S))" >&2
			if [ $tool = dbbench ] && [ "$ENGINE" = pebble ]; then
				read -r ops cpu < <(pebble_step "$s" "$DIR/dbbench/db" "$OUT/dbbench-$r/$s.log")
			elif [ $tool = dbbench ]; then
				read -r ops cpu < <(dbbench_step "$s" "$DIR/dbbench/db" "$OUT/dbbench-$r/$s.log")
			else
				read -r ops cpu < <(dbperf_step "$s" "$DIR/dbperf/db" "$OUT/dbperf-$r/$s")
			fi
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$tool" "$s" "$ops" "$cpu" "$load" >>"$results"
			[ "$ENGINE" = rocksdb ] && [ "$r" = 1 ] && options_snapshot "$DIR/$tool/db" "$OUT/options-$tool-$s"
		done
	done
	rm -rf "${DIR:?}/dbbench" "${DIR:?}/dbperf"
done

# The table: per step, the median ops/s of each tool over the repetitions, their ratio, and CPU
# µs per op: the process's user+system seconds over the step's ops (db_bench's include opening
# the database and, for overwriteandwait, the compaction wait, as dbperf's step CPU does).
[ "$ENGINE" = pebble ] && echo "Pebble: the db_bench column is pebble bench ycsb"
echo "keys $KEYS, threads $THREADS, steps ${SECS}s, setup $SETUP, $REPEATS repetitions; load average at the steps' starts $(awk 'NR > 1 { if (!n++ || $6 < lo) lo = $6; if ($6 > hi) hi = $6 } END { print lo "-" hi }' "$results")"
awk -F'\t' -v steps="$STEPS" -v secs="$SECS" -v drain="$DRAIN" -v keys="$KEYS" '
function median(s,    n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n ? a[int((n + 1) / 2)] : 0
}
# The ops that the CPU of a step divides by: a count for the load and overwritesome, else a length.
function count(step, rate) {
	if (step == "fillseq") return keys
	if (step == "overwritesome") return int(keys / 10)
	return rate * (step == "revrange" ? drain : secs)
}
NR > 1 { ops[$2, $3] = ops[$2, $3] " " $4; if ($4 > 0) us[$2, $3] = us[$2, $3] " " 1e6 * $5 / count($3, $4) }
END {
	printf "%-22s %12s %12s %7s %14s %14s\n", "step", "db_bench", "dbperf", "ratio", "cpu_us/op dbb", "cpu_us/op dbp"
	n = split(steps, s, ",")
	for (i = 1; i <= n; i++) {
		b = median(ops["dbbench", s[i]]); p = median(ops["dbperf", s[i]])
		timed = s[i] != "flush_mt_l0"
		ratio = "-"; ub = "-"; up = "-"
		if (b > 0) ratio = sprintf("%.2f", p / b)
		if (timed) { ub = sprintf("%.2f", median(us["dbbench", s[i]])); up = sprintf("%.2f", median(us["dbperf", s[i]])) }
		printf "%-22s %12.0f %12.0f %7s %14s %14s\n", s[i], b, p, ratio, ub, up
	}
}' "$results" | tee "$OUT/table.txt"
if [ "$ENGINE" = rocksdb ]; then # every option that differs, step by step (docs/kv.md lists the expected ones)
	for s in ${STEPS//,/ }; do
		[ -f "$OUT/options-dbbench-$s" ] && [ -f "$OUT/options-dbperf-$s" ] &&
			{ echo "== $s"; diff "$OUT/options-dbbench-$s" "$OUT/options-dbperf-$s" || true; }
	done >"$OUT/options.diff"
	echo "options that differ (< db_bench, > dbperf): $OUT/options.diff" >&2
fi
echo "results: $results" >&2
