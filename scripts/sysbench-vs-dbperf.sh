#!/usr/bin/env bash
# sysbench-vs-dbperf.sh: sysbench 1.0.20's oltp_read_write and oltp_point_select beside
# `dbperf run sysbench` on the same server and the same tables (issue 29, docs/sysbench.md
# "Beside sysbench").
#
# sysbench prepares SV_TABLES tables of SV_TABLE_SIZE rows once per server (its own prepare,
# its own tables); then, for each test, SV_ROUNDS rounds of a sysbench run and a dbperf run
# (--steps run, on those tables) of SV_THREADS threads for SV_SECONDS seconds each, in
# alternating order (sysbench first in odd rounds, dbperf first in even ones) so both see the
# same background load and neither always runs in the other's wake. Both use their defaults
# otherwise: --rand-type special, statements prepared on the server (--db-ps-mode auto /
# --query-mode prepared).
#
# Figures: transactions/s and queries/s as each client reports them (sysbench's final
# "transactions:" and "queries:" lines; dbperf's summary.json tps and qps), and the client's
# CPU per transaction: utime + stime of the client process from /proc/PID/stat, read when it has
# exited but before it is reaped (so nothing after its last tick is lost), over its whole life,
# startup and connections included, the same way for both. dbperf's CPU over the run step alone
# (getrusage, summary.json) is printed beside it, and so is the number of Go processors dbperf's
# run step used (client_procs). With SV_PERF=1 each client runs under `perf stat`, which counts
# its context switches, system calls and futex calls: figures per transaction that the machine's
# other load barely moves, unlike CPU time (docs/performance.md, "Lean socket reads"). The
# medians of the rounds and dbperf's ratios to sysbench end the output; every run is in
# $SV_DIR/results.tsv.
#
# Usage: scripts/sysbench-vs-dbperf.sh [pg|maria|both]   (default both)
# Environment:
#   SV_PG, SV_MY   the servers (postgres://USER:PASS@HOST:PORT/DB, mysql://USER:PASS@HOST:PORT/DB;
#                  the database is created if missing); default: servers dbperf starts here on
#                  ports 15498 and 13398 (config cached-by-os)
#   SV_TESTS (read_write point_select), SV_TABLES (4), SV_TABLE_SIZE (100000), SV_THREADS (4),
#   SV_SECONDS (20), SV_ROUNDS (3), SV_NICE (0: run the clients under nice -n N)
#   SV_PREPARE (1): 0 uses the tables of an earlier run
#   SV_PERF (0): 1 counts each client's context switches and system calls with perf stat (needs
#                perf and access to the raw_syscalls tracepoints: root, or perf_event_paranoid -1)
#   SV_DIR (/tmp/sysbench-vs-dbperf), SV_DBPERF: the dbperf binary (default: built into SV_DIR)
# Needs sysbench, python3, and psql and mariadb clients for creating the databases.
set -euo pipefail

cd "$(dirname "$0")/.."
what=${1:-both}
dir=${SV_DIR:-/tmp/sysbench-vs-dbperf}
tests=${SV_TESTS:-read_write point_select}
tables=${SV_TABLES:-4}
size=${SV_TABLE_SIZE:-100000}
threads=${SV_THREADS:-4}
secs=${SV_SECONDS:-20}
rounds=${SV_ROUNDS:-3}
nice=(nice -n "${SV_NICE:-0}")
mkdir -p "$dir/runs"
results=$dir/results.tsv
printf 'side\tdbms\ttest\tround\ttransactions\ttps\tqps\tcpu_user_s\tcpu_sys_s\tstep_cpu_s\tclient_procs\tctx_switches\tsyscalls\tfutex\tload1\n' >"$results"
command -v sysbench >/dev/null || { echo "sysbench-vs-dbperf: sysbench is missing: apt-get install sysbench" >&2; exit 1; }
perf=${SV_PERF:-0}
if [ "$perf" = 1 ] && ! perf stat -e raw_syscalls:sys_enter true 2>/dev/null; then
	echo "sysbench-vs-dbperf: SV_PERF=1 needs perf with access to the raw_syscalls tracepoints (run as root, or sysctl kernel.perf_event_paranoid=-1)" >&2
	exit 1
fi

dbperf=${SV_DBPERF:-$dir/dbperf}
[ -n "${SV_DBPERF:-}" ] || go build -o "$dbperf" ./cmd/dbperf
export DBPERF_SERVER_PASSWORD=${DBPERF_SERVER_PASSWORD:-svtest}
if [ -z "${SV_PG:-}" ] && [ "$what" != maria ]; then
	"$dbperf" server start postgres --datadir "$dir/pg" --port 15498 --config cached-by-os >/dev/null
	SV_PG=postgres://postgres:$DBPERF_SERVER_PASSWORD@127.0.0.1:15498/sbtest
fi
if [ -z "${SV_MY:-}" ] && [ "$what" != pg ]; then
	"$dbperf" server start mariadb --datadir "$dir/maria" --port 13398 --config cached-by-os >/dev/null
	SV_MY=mysql://dbperf:$DBPERF_SERVER_PASSWORD@127.0.0.1:13398/sbtest
fi

# proccpu CMD...: runs CMD; prints its utime and stime in seconds, read from /proc/PID/stat once
# it has exited and before it is reaped (waitid WNOWAIT), to stderr's last line; exits as CMD.
# The times of the children it waited for are added: under SV_PERF, CMD is perf and the client
# its child.
proccpu() {
	python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
with open("/proc/%d/stat" % pid) as f:
    st = f.read().rsplit(")", 1)[1].split()
tick = os.sysconf("SC_CLK_TCK")
_, status = os.waitpid(pid, 0)
print("cpu %.2f %.2f" % ((int(st[11]) + int(st[13])) / tick, (int(st[12]) + int(st[14])) / tick), file=sys.stderr)
sys.exit(os.waitstatus_to_exitcode(status))' "$@"
}

# sbargs DBMS URL: sysbench's connection options for a dbperf target URL.
sbargs() {
	python3 -c '
import sys, urllib.parse as u
d, url = sys.argv[1], u.urlparse(sys.argv[2])
p = "pgsql" if d == "pg" else "mysql"
print("--db-driver=%s --%s-host=%s --%s-port=%s --%s-user=%s --%s-password=%s --%s-db=%s" % (p, p, url.hostname, p, url.port, p,
      u.unquote(url.username or ""), p, u.unquote(url.password or ""), p, url.path.strip("/")))' "$1" "$2"
}

# createdb DBMS URL: creates the URL's database if it is missing.
createdb() {
	python3 - "$1" "$2" <<'PY'
import subprocess, sys, urllib.parse as u
d, url = sys.argv[1], u.urlparse(sys.argv[2])
db, pw = url.path.strip("/"), u.unquote(url.password or "")
if d == "pg":
    env = {"PGPASSWORD": pw, "PATH": "/usr/bin:/bin"}
    base = ["psql", "-XAtq", "-h", url.hostname, "-p", str(url.port), "-U", u.unquote(url.username), "-d", "postgres"]
    if subprocess.run(base + ["-c", "SELECT 1 FROM pg_database WHERE datname = '%s'" % db], env=env, capture_output=True, text=True, check=True).stdout.strip() != "1":
        subprocess.run(base + ["-c", 'CREATE DATABASE "%s"' % db], env=env, check=True)
else:
    env = {"MYSQL_PWD": pw, "PATH": "/usr/bin:/bin"}
    subprocess.run(["mariadb", "-h", url.hostname, "-P", str(url.port), "-u", u.unquote(url.username), "-e", "CREATE DATABASE IF NOT EXISTS `%s`" % db], env=env, check=True)
PY
}

# counter OUT: the perf stat command (an array, counted) that counts a client's context switches
# and system calls into OUT.perf under SV_PERF=1; nothing otherwise.
counter() {
	counted=()
	[ "$perf" = 1 ] || return 0
	rm -f "$1.perf"
	counted=(perf stat -x, -o "$1.perf" -e context-switches,raw_syscalls:sys_enter,syscalls:sys_enter_futex --)
}

# counts OUT: "CTX_SWITCHES SYSCALLS FUTEX" from OUT.perf, or "- - -".
counts() {
	if [ -f "$1.perf" ]; then
		awk -F, '$3 == "context-switches" {c = $1} $3 == "raw_syscalls:sys_enter" {s = $1} $3 == "syscalls:sys_enter_futex" {f = $1}
			END {print c, s, f}' "$1.perf"
	else
		echo - - -
	fi
}

# record SIDE DBMS TEST ROUND TRANSACTIONS TPS QPS USER SYS STEP_CPU PROCS CTX_SWITCHES SYSCALLS FUTEX
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" "$(cut -d' ' -f1 /proc/loadavg)" >>"$results"
	awk -v s="$1" -v d="$2" -v t="$3" -v r="$4" -v n="$5" -v tps="$6" -v qps="$7" -v u="$8" -v y="$9" -v sc="${10}" \
		-v p="${11}" -v cs="${12}" -v sy="${13}" -v fu="${14}" 'BEGIN {
		printf "%-8s %-5s %-12s round %s: %9.1f tps %10.1f qps  client cpu %7.1f us/trx", s, d, t, r, tps, qps, (u + y) * 1e6 / n
		if (sc != "-") printf " (run step alone %.1f, %s Go processors)", sc * 1e6 / n, p
		if (cs != "-") printf "; per trx %.2f context switches, %.2f system calls, %.3f futex", cs / n, sy / n, fu / n
		printf "\n" }'
}

# sysbench_side, dbperf_side: one run each; they see the loop's dbms, url, test and r.
sysbench_side() {
	local out=$dir/runs/sysbench-$dbms-$test-$r
	counter "$out"
	# shellcheck disable=SC2046
	proccpu "${nice[@]}" "${counted[@]}" sysbench "oltp_$test" $(sbargs "$dbms" "$url") --tables="$tables" --table-size="$size" \
		--threads="$threads" --time="$secs" --report-interval=0 run >"$out" 2>"$out.cpu" || { cat "$out" "$out.cpu" >&2; exit 1; }
	local n tps qps cpu
	read -r n tps < <(awk '/transactions:/ {gsub(/\(/, "", $3); print $2, $3}' "$out")
	qps=$(awk '/queries:/ {gsub(/\(/, "", $3); print $3}' "$out")
	cpu=$(awk '/^cpu / {print $2, $3}' "$out.cpu")
	# shellcheck disable=SC2086
	record sysbench "$dbms" "$test" "$r" "$n" "$tps" "$qps" $cpu - - $(counts "$out")
}
dbperf_side() {
	local out=$dir/runs/dbperf-$dbms-$test-$r
	rm -rf "$out"
	counter "$out"
	proccpu "${nice[@]}" "${counted[@]}" "$dbperf" run sysbench "$test" --target "$url" --steps run --tables "$tables" --table-size "$size" \
		--threads "$threads" --time "$secs" --no-verify --quiet --out "$out" >"$out.log" 2>"$out.cpu" ||
		{ cat "$out.log" "$out.cpu" >&2; exit 1; }
	local f cpu
	f=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); w=d["workload"]; print(w["transactions"], w["tps"], w["qps"], d["client_cpu_user_sec"] + d["client_cpu_system_sec"], d.get("host", {}).get("client_procs", "-"))' "$out/run/summary.json")
	cpu=$(awk '/^cpu / {print $2, $3}' "$out.cpu")
	set -- $f
	# shellcheck disable=SC2086
	record dbperf "$dbms" "$test" "$r" "$1" "$2" "$3" $cpu "$4" "$5" $(counts "$out")
}

dbmses=()
case $what in pg | both) dbmses+=(pg) ;; esac
case $what in maria | both) dbmses+=(maria) ;; esac
for dbms in "${dbmses[@]}"; do
	url=$SV_PG
	[ "$dbms" = maria ] && url=$SV_MY
	createdb "$dbms" "$url"
	if [ "${SV_PREPARE:-1}" = 1 ]; then
		# shellcheck disable=SC2046
		sysbench oltp_read_write $(sbargs "$dbms" "$url") --tables="$tables" cleanup >/dev/null
		# shellcheck disable=SC2046
		sysbench oltp_read_write $(sbargs "$dbms" "$url") --tables="$tables" --table-size="$size" --threads="$threads" prepare >/dev/null
	fi
	for test in $tests; do
		for ((r = 1; r <= rounds; r++)); do
			if ((r % 2)); then
				sysbench_side
				dbperf_side
			else
				dbperf_side
				sysbench_side
			fi
		done
	done
done

# The medians of the rounds, and dbperf's ratios to sysbench.
python3 - "$results" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
med = {}
for key in sorted({(r["dbms"], r["test"], r["side"]) for r in rows}):
    rs = [r for r in rows if (r["dbms"], r["test"], r["side"]) == key]
    cpu = [(float(r["cpu_user_s"]) + float(r["cpu_sys_s"])) * 1e6 / float(r["transactions"]) for r in rs]
    per = lambda col: "%.2f" % statistics.median(float(r[col]) / float(r["transactions"]) for r in rs) if rs[0][col] != "-" else "-"
    med[key] = (statistics.median(float(r["tps"]) for r in rs), statistics.median(float(r["qps"]) for r in rs), statistics.median(cpu), len(rs),
                per("ctx_switches"), per("syscalls"))
print("\nmedians of the rounds (client cpu: us per transaction, the whole process; with SV_PERF=1, context switches and system calls per transaction)")
print("%-6s %-13s %-9s %10s %11s %10s %7s %9s %9s" % ("dbms", "test", "client", "tps", "qps", "cpu/trx", "rounds", "ctxsw/trx", "calls/trx"))
for (d, t, s), (tps, qps, cpu, n, cs, sc) in med.items():
    print("%-6s %-13s %-9s %10.1f %11.1f %10.1f %7d %9s %9s" % (d, t, s, tps, qps, cpu, n, cs, sc))
print("\ndbperf / sysbench (throughput: 0.95 or more is the goal; cpu per transaction: 1.2 or less)")
for (d, t, s) in med:
    if s == "dbperf" and (d, t, "sysbench") in med:
        a, b = med[(d, t, "dbperf")], med[(d, t, "sysbench")]
        print("%-6s %-13s tps %.3f  qps %.3f  cpu/trx %.3f" % (d, t, a[0] / b[0], a[1] / b[1], a[2] / b[2]))
PY
