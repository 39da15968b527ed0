#!/usr/bin/env bash
# linkbench-vs-java.sh: LinkBench's request step, dbperf beside the Java client it follows (the
# mdcallag fork, whose 2017 mix dbperf offers), on one MariaDB (InnoDB, cached-by-dbms) that
# dbperf starts, in both statement modes (docs/linkbench.md "Beside the Java client").
#
#   simple:   Connector/J with useServerPrepStmts=false (each statement text, the values written
#             in), beside dbperf --query-mode simple;
#   prepared: the fork as shipped (useServerPrepStmts=true, cachePrepStmts=true:
#             COM_STMT_PREPARE once, then COM_STMT_EXECUTE), beside dbperf --query-mode prepared.
#
# The fork runs with never_change=true (LBJ_NEVER_CHANGE): the original's id2 choice, which
# dbperf follows. Its default, false, changes four things (distributions/ID2Chooser.java:33-53),
# among them adds that draw id2 from the whole id space, so the hottest id1s' lists grow by
# thousands of links over a few runs where the original's stay near 20 a type: the two clients
# would no longer read the same graph (docs/linkbench.md "Beside the Java client").
#
# Each client loads its own copy of the graph once (Java into linkdb0 with the fork's DDL,
# dbperf into lbvsjava), maxid1 LBJ_MAXID, the 2017 mix, no out-degree cap (--max-degree 0: the
# fork has none), LBJ_LOADERS loaders; then LBJ_ROUNDS rounds of the request step, each mode in
# each round, LBJ_REQUESTERS requesters for LBJ_SECONDS seconds, the order alternating (Java
# first in odd rounds, dbperf first in even ones) so both see the same background
# load. Beside each run's requests a second: the server's statements per request (Questions,
# and the BEGINs among them, from SHOW GLOBAL STATUS), the server's CPU per request (mariadbd's
# utime + stime from /proc, sampled every 0.2 s, over the request step alone: from Java's first
# requester to its phase's end, from dbperf's step start to end, which leaves out a request-only
# run's first scans), the client's CPU per request (Java's process over the same window, after
# its JVM started and loaded the distribution; the step's getrusage for dbperf) and GET_NODE's
# p50 (Java's as its histogram bucket). The medians of the rounds and dbperf's ratio to Java end
# the output; every run is in $LBJ_DIR/results.tsv, with the load average when it ended.
#
# Usage: LINKBENCH_HOME=DIR scripts/linkbench-vs-java.sh [simple|prepared|both]   (default both)
#   LINKBENCH_HOME  a build of the fork: git clone https://github.com/mdcallag/linkbench DIR &&
#                   (cd DIR && mvn -q -B -DskipTests package)   (9ef9cc8 measured; needs a JDK
#                   and Maven: apt-get install -y default-jdk-headless maven). The original's
#                   Connector/J 5.1.22 cannot connect to MariaDB 10.11.
# Environment:
#   LBJ_PORT (13398), LBJ_DATADIR (/tmp/lb-maria): the MariaDB dbperf starts (or finds running)
#   LBJ_MAXID (20001), LBJ_LOADERS (2), LBJ_REQUESTERS (2), LBJ_SECONDS (20), LBJ_ROUNDS (3)
#   LBJ_NEVER_CHANGE (true): the fork's never_change; false is its default behaviour
#   LBJ_LOAD (1): 0 skips the loads (the graphs of an earlier run are used)
#   LBJ_DIR (/tmp/lb-vs-java): work directory; LBJ_DBPERF: the dbperf binary (default: built)
#   DBPERF_SERVER_PASSWORD: the benchmark user's password (default lbjava)
# Needs the mariadb client, python3, a JDK's javac and /usr/bin/time.
set -euo pipefail

cd "$(dirname "$0")/.."
modes=${1:-both}
[ "$modes" = both ] && modes="simple prepared"
home=${LINKBENCH_HOME:?set LINKBENCH_HOME to a build of github.com/mdcallag/linkbench (see the header)}
jar=$home/target/FacebookLinkBench.jar
[ -f "$jar" ] || { echo "linkbench-vs-java: $jar is missing: cd $home && mvn -q -B -DskipTests package" >&2; exit 1; }
port=${LBJ_PORT:-13398}
datadir=${LBJ_DATADIR:-/tmp/lb-maria}
maxid=${LBJ_MAXID:-20001}
loaders=${LBJ_LOADERS:-2}
requesters=${LBJ_REQUESTERS:-2}
secs=${LBJ_SECONDS:-20}
rounds=${LBJ_ROUNDS:-3}
dir=${LBJ_DIR:-/tmp/lb-vs-java}
never_change=${LBJ_NEVER_CHANGE:-true}
export DBPERF_SERVER_PASSWORD=${DBPERF_SERVER_PASSWORD:-lbjava}
export MYSQL_PWD=$DBPERF_SERVER_PASSWORD LINKBENCH_HOME=$home
mkdir -p "$dir/cls" "$dir/runs"

dbperf=${LBJ_DBPERF:-$dir/dbperf}
[ -n "${LBJ_DBPERF:-}" ] || go build -o "$dbperf" ./cmd/dbperf

# The fork's LinkStoreMysql with Connector/J's statement mode from -Dlbmode (its URL options are
# fixed in getJdbcOptions): compiled here, beside the jar, not a change to the fork.
cat >"$dir/LinkStoreMysqlMode.java" <<'EOF'
import com.facebook.LinkBench.LinkStoreMysql;

public class LinkStoreMysqlMode extends LinkStoreMysql {
  @Override
  protected String getJdbcOptions() {
    String o = super.getJdbcOptions();
    if ("simple".equals(System.getProperty("lbmode")))
      o = o.replace("useServerPrepStmts=true", "useServerPrepStmts=false");
    return o;
  }
}
EOF
javac -d "$dir/cls" -cp "$jar" "$dir/LinkStoreMysqlMode.java"

"$dbperf" server status mariadb --port "$port" >/dev/null 2>&1 ||
	"$dbperf" server start mariadb --config cached-by-dbms --port "$port" --datadir "$datadir" >/dev/null
target="mysql://dbperf:$DBPERF_SERVER_PASSWORD@127.0.0.1:$port/lbvsjava?engine=innodb"
sql() { mariadb -h127.0.0.1 -P"$port" -udbperf -N -B "$@"; }
mpid=$(sql -e "SELECT @@pid_file" | xargs cat)

java_lb() { # java_lb MODE LOG -l|-r
	(cd "$home" && /usr/bin/time -f "%U %S" -o "$2.time" java -Dlbmode="$1" -cp "$dir/cls:$jar" \
		com.facebook.LinkBench.LinkBenchDriver -c config/LinkConfigMysql.properties \
		-Dlinkstore=LinkStoreMysqlMode -Dnodestore=LinkStoreMysqlMode -Dhost=127.0.0.1 -Dport="$port" \
		-Duser=dbperf -Dpassword="$DBPERF_SERVER_PASSWORD" -Dmaxid1="$maxid" -Dloaders="$loaders" \
		-Drequesters="$requesters" -Dmaxtime="$secs" -Drequests=1000000000 -Dnever_change="$never_change" "$3") >"$2" 2>&1
}

# status: the server's statement counters (Com_begin, Questions), one line.
status() {
	sql -e "SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions','Com_begin')" | sort | awk '{printf "%s ", $2}'
}

if [ "${LBJ_LOAD:-1}" = 1 ]; then
	echo "== loads: maxid1 $maxid, $loaders loaders, mix 2017, no degree cap ($(uptime | sed 's/.*load/load/'))"
	sql <<'EOF'
DROP DATABASE IF EXISTS linkdb0; CREATE DATABASE linkdb0; USE linkdb0;
CREATE TABLE linktable (id1 bigint unsigned NOT NULL DEFAULT '0', id2 bigint unsigned NOT NULL DEFAULT '0',
  link_type bigint unsigned NOT NULL DEFAULT '0', visibility tinyint NOT NULL DEFAULT '0',
  data varchar(255) NOT NULL DEFAULT '', time bigint unsigned NOT NULL DEFAULT '0',
  version int unsigned NOT NULL DEFAULT '0', PRIMARY KEY (link_type, id1, id2),
  KEY id1_type (id1, link_type, visibility, time, id2, version, data)) ENGINE=InnoDB DEFAULT CHARSET=latin1;
CREATE TABLE counttable (id bigint unsigned NOT NULL DEFAULT '0', link_type bigint unsigned NOT NULL DEFAULT '0',
  count int unsigned NOT NULL DEFAULT '0', time bigint unsigned NOT NULL DEFAULT '0',
  version bigint unsigned NOT NULL DEFAULT '0', PRIMARY KEY (id, link_type)) ENGINE=InnoDB DEFAULT CHARSET=latin1;
CREATE TABLE nodetable (id bigint unsigned NOT NULL AUTO_INCREMENT, type int unsigned NOT NULL,
  version bigint unsigned NOT NULL, time int unsigned NOT NULL, data mediumtext NOT NULL,
  PRIMARY KEY (id)) ENGINE=InnoDB DEFAULT CHARSET=latin1;
EOF
	# Each load's links/s as its client reports it, and the server's and the client's CPU per
	# link over the whole load (mariadbd's ticks from /proc; the client's user+system).
	ticks() { awk '{print $14 + $15}' "/proc/$mpid/stat"; }
	t0=$(ticks)
	java_lb prepared "$dir/java-load.log" -l
	t1=$(ticks)
	python3 - "$dir/java-load.log" "$t0" "$t1" <<'EOF'
import re, sys
log, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
text = open(log).read()
m = (re.search(r"(\d+) links \([^)]*\), .* ([\d.]+) seconds, (\d+) Links/s", text) or  # never_change=false
     re.search(r"Loaded (\d+) links \([^)]*\)\.\s+Took ([\d.]+) seconds\.\s+Links/second = (\d+)", text))
links, secs, rate = int(m.group(1)), float(m.group(2)), int(m.group(3))
client = sum(map(float, open(log + ".time").read().split()))
print("java:   %d Links/s (%d links in %.1f s), server %.2f us/link, client %.2f us/link (JVM start included)"
      % (rate, links, secs, (t1 - t0) / 100 * 1e6 / links, client * 1e6 / links))
EOF
	rm -rf "$dir/runs/load"
	t0=$(ticks)
	"$dbperf" run linkbench --target "$target" --steps load --maxid "$maxid" --mix 2017 --loaders "$loaders" \
		--max-degree 0 --no-verify --seed 1 --out "$dir/runs/load" >"$dir/dbperf-load.log" 2>&1
	t1=$(ticks)
	python3 - "$dir/runs/load/load/summary.json" "$t0" "$t1" <<'EOF'
import json, sys
s, t0, t1 = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3])
links = s["ops"]["load_links"]["count"]
print("dbperf: %d Links/s (%d links in %.1f s), server %.2f us/link, client %.2f us/link"
      % (s["ops"]["load_links"]["per_sec"], links, s["seconds"], (t1 - t0) / 100 * 1e6 / links,
         s["client_cpu_sec"] * 1e6 / links))
EOF
fi

results=$dir/results.tsv
printf 'mode\tround\tclient\tfirst\trps\tstatements_per_req\tbegins_per_req\tserver_us_per_req\tclient_us_per_req\tget_node_p50\tuptime_load1\n' >"$results"

# sample PID...: every 0.2 s the time and each process's CPU ticks (utime + stime), a line, until
# killed; the CPU per request is taken over the request step's window in it (cpu.py).
sample() {
	while :; do
		line=$(date +%s.%N)
		for p in "$@"; do line="$line $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo nan)"; done
		echo "$line"
		sleep 0.2
	done
}
cat >"$dir/cpu.py" <<'EOF'
import bisect
def cpu(path, start, end, col):
    """CPU seconds of sampled process col between two times (epoch s), interpolated."""
    rows = [list(map(float, l.split())) for l in open(path) if "nan" not in l]
    t = [r[0] for r in rows]
    def at(x):
        i = min(max(bisect.bisect_left(t, x), 1), len(t) - 1)
        (t0, v0), (t1, v1) = (t[i - 1], rows[i - 1][col]), (t[i], rows[i][col])
        return v0 + (v1 - v0) * (x - t0) / (t1 - t0) if t1 > t0 else v1
    return (at(end) - at(start)) / 100
EOF

run_java() { # run_java MODE ROUND FIRST
	local log=$dir/java-$1-$2.log before after job jpid spid
	before=$(status)
	java_lb "$1" "$log" -r &
	job=$!
	sleep 0.5
	jpid=$(pgrep -n -f "LinkBenchDriver.*-Dport=$port")
	sample "$mpid" "$jpid" >"$log.samples" &
	spid=$!
	wait "$job" || { kill "$spid"; echo "java failed: $log" >&2; return 1; }
	kill "$spid"
	after=$(status)
	python3 - "$1" "$2" "$3" "$log" "$before" "$after" "$(cut -d' ' -f1 /proc/loadavg)" "$dir" >>"$results" <<'EOF'
import re, sys, time
mode, rnd, first, log, before, after, load, d = sys.argv[1:]
sys.path.insert(0, d)
from cpu import cpu
text = open(log).read()
reqs = int(re.search(r"REQUEST PHASE COMPLETED\. (\d+) requests", text).group(1))
rps = float(re.search(r"Requests/second = (\d+)", text).group(1))
b, a = [list(map(float, s.split())) for s in (before, after)]
begins, questions = [(y - x) for x, y in zip(b, a)]  # sorted names: Com_begin, Questions
def stamp(pat):  # a log line's time (local, to the ms)
    m = re.search(r"INFO (\S+ \S+)\.(\d+) \[[^]]*\]: " + pat, text)
    return time.mktime(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")) + int(m.group(2)) / 1000
start, end = stamp(r"Requester thread #\d+ started"), stamp("REQUEST PHASE COMPLETED")
server, client = cpu(log + ".samples", start, end, 1), cpu(log + ".samples", start, end, 2)
p50 = re.search(r"GET_NODE count = \d+ .*?p50 = (\[[^]]*\]ms)", text).group(1)
print("\t".join(map(str, [mode, rnd, "java", first, rps, round(questions / reqs, 3), round(begins / reqs, 3),
      round(server * 1e6 / reqs, 1), round(client * 1e6 / reqs, 1), p50, load])))
EOF
}

run_dbperf() { # run_dbperf MODE ROUND FIRST
	local out=$dir/runs/dbperf-$1-$2 before after spid
	rm -rf "$out"
	before=$(status)
	sample "$mpid" >"$out.samples" &
	spid=$!
	"$dbperf" run linkbench --target "$target" --steps request --maxid "$maxid" --mix 2017 --max-degree 0 \
		--requesters "$requesters" --requests 0 --requests-seconds "${secs}s" --query-mode "$1" --no-verify \
		--out "$out" >"$out.log" 2>&1
	kill "$spid"
	after=$(status)
	python3 - "$1" "$2" "$3" "$out" "$before" "$after" "$(cut -d' ' -f1 /proc/loadavg)" "$dir" >>"$results" <<'EOF'
import datetime, json, sys
mode, rnd, first, out, before, after, load, d = sys.argv[1:]
sys.path.insert(0, d)
from cpu import cpu
s = json.load(open(out + "/request/summary.json"))
reqs = s["workload"]["requests"]
b, a = [list(map(float, x.split())) for x in (before, after)]
begins, questions = [(y - x) for x, y in zip(b, a)]
epoch = lambda iso: datetime.datetime.fromisoformat(iso[:26].rstrip("Z") + "+00:00").timestamp()
server = cpu(out + ".samples", epoch(s["start"]), epoch(s["end"]), 1)
print("\t".join(map(str, [mode, rnd, "dbperf", first, s["workload"]["requests_per_sec"], round(questions / reqs, 3),
      round(begins / reqs, 3), round(server * 1e6 / reqs, 1), s["client_cpu_us_per_op"],
      "%.0fus" % s["ops"]["get_node"]["p50_us"], load])))
EOF
}

for r in $(seq 1 "$rounds"); do
	for m in $modes; do
		echo "== round $r, $m ($(uptime | sed 's/.*load/load/'))"
		if [ $((r % 2)) = 1 ]; then
			run_java "$m" "$r" java
			run_dbperf "$m" "$r" java
		else
			run_dbperf "$m" "$r" dbperf
			run_java "$m" "$r" dbperf
		fi
		tail -2 "$results" | cut -f1-10
	done
done

python3 - "$results" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
num = ["rps", "statements_per_req", "begins_per_req", "server_us_per_req", "client_us_per_req"]
print("\n== medians of the rounds (dbperf / java)")
print("%-9s %-7s" % ("mode", "client") + "".join("%20s" % n for n in num))
for mode in dict.fromkeys(r["mode"] for r in rows):
    med = {}
    for client in ("java", "dbperf"):
        rs = [r for r in rows if r["mode"] == mode and r["client"] == client]
        med[client] = [statistics.median(float(r[n]) for r in rs) for n in num]
        print("%-9s %-7s" % (mode, client) + "".join("%20.3f" % v for v in med[client]))
    print("%-9s %-7s" % (mode, "ratio") + "".join("%19.2fx" % (d / j if j else 0) for d, j in zip(med["dbperf"], med["java"])))
EOF
echo "every run: $results"
