#!/usr/bin/env bash
# client-cost.sh: the client's own CPU per operation, dbperf beside a C client on the same
# statements against the same server (issue 13, docs/performance.md "dbperf beside C clients").
#
#   PostgreSQL: pgbench -M prepared with custom scripts (the Insert Benchmark's range query and
#               10-id point query), and pgbench -M simple for l.i0's 100-row literal INSERT
#               (dbperf sends that one as text over the simple protocol, so pgbench must too);
#               dbperf: qr100, qp100 and l.i0 with one client.
#   MariaDB:    sysbench with a Lua script sending the same statements as SQL text (dbperf's
#               default, the reference's form); dbperf: the same steps.
#
#   LinkBench:  dbperf's request step with one requester beside pgbench (one script per request
#               type, weighted as the 2013 mix) and sysbench (a Lua script drawing the type) sending
#               each type's statements on its most common path, on the tables dbperf loaded.
#   l.i1:       dbperf's inserter and deleter (two connections, the reference's processes) beside
#               the C client sending INSERT and DELETE in turn on one connection ("l.i1"), and
#               beside two C processes, an inserter and a deleter, each paced at the rate dbperf
#               reached ("l.i1x2", the reference's shape; CPU per pair = the inserter's per
#               INSERT + the deleter's per DELETE).
#
# Rounds alternate C client and dbperf (A B B A A B ...: the C client first in odd rounds, dbperf
# first in even ones, except for l.i1, where the C client uses the table dbperf's run left), so
# both see the same background load and neither always runs in the other's wake.
# CPU per operation is user + system time of the client process (/usr/bin/time for the C
# clients; for dbperf the step's own getrusage figures in summary.json, so its startup and
# checks are not counted) divided by the statements it sent. dbperf's q steps also run their
# inserter and deleter at 100 rows/s each; their cost is in dbperf's figure.
#
# Usage: scripts/client-cost.sh [pg|maria|both]   (default both)
# Environment:
#   CC_PG       PostgreSQL target (default: a server started here with dbperf, port 15497)
#   CC_MY       MariaDB target    (default: a server started here with dbperf, port 13397)
#   CC_SECONDS  length of each measured run (default 15)
#   CC_ROUNDS   rounds of each pair (default 3)
#   CC_ROWS     rows loaded for the queries (default 200000)
#   CC_INSERT_ROWS the most rows each dbperf l.i0 run inserts (default 50000000); it ends after
#               CC_SECONDS (--step-seconds), as long as the C client's run
#   CC_L1_BASE  rows loaded before each dbperf l.i1 run (default 100000)
#   CC_L1_ROWS  rows each dbperf l.i1 run inserts and deletes (default 300000)
#   CC_AB       1 (default): also run dbperf with --client-path driver, the statements through
#               pgx on PostgreSQL and database/sql on MariaDB rather than on the socket
#               (driver/wire), to show what the lean paths bought
#   CC_PROCS_AB 1 (default): also run dbperf's l.i1 with --client-procs all (a Go processor per
#               CPU, as before internal/clientprocs), to show what sizing them saves
#   CC_DBPERF   the dbperf binary (default: built into $CC_DIR)
#   CC_DIR      work directory (default /tmp/client-cost)
# Needs pgbench (postgresql-15's client), sysbench and /usr/bin/time; installs sysbench and time
# with apt-get when missing and it can.
set -euo pipefail

cd "$(dirname "$0")/.."
what=${1:-both}
dir=${CC_DIR:-/tmp/client-cost}
secs=${CC_SECONDS:-15}
rounds=${CC_ROUNDS:-3}
rows=${CC_ROWS:-200000}
insrows=${CC_INSERT_ROWS:-50000000}
l1base=${CC_L1_BASE:-100000}
l1rows=${CC_L1_ROWS:-300000}
mkdir -p "$dir"
rm -rf "$dir/runs" # dbperf refuses to write into a run directory of an earlier run
results=$dir/results.tsv
: >"$results"

need() { # need CMD PACKAGE: install PACKAGE if CMD is missing
	command -v "$1" >/dev/null && return
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y "$2" >/dev/null || { apt-get update >/dev/null && apt-get install -y "$2" >/dev/null; }
	fi
	command -v "$1" >/dev/null || { echo "client-cost: $1 is missing: apt-get install $2" >&2; exit 1; }
}
need /usr/bin/time time
case $what in pg | both) need pgbench postgresql-client-15 ;; esac
case $what in maria | both) need sysbench sysbench ;; esac

dbperf=${CC_DBPERF:-$dir/dbperf}
if [ -z "${CC_DBPERF:-}" ]; then
	go build -o "$dbperf" ./cmd/dbperf
fi
export DBPERF_SERVER_PASSWORD=${DBPERF_SERVER_PASSWORD:-cctest}
if [ -z "${CC_PG:-}" ] && [ "$what" != maria ]; then
	"$dbperf" server start postgres --datadir "$dir/pg" --port 15497 >/dev/null
	CC_PG=postgres://postgres:$DBPERF_SERVER_PASSWORD@127.0.0.1:15497/dbperf
fi
if [ -z "${CC_MY:-}" ] && [ "$what" != pg ]; then
	"$dbperf" server start mariadb --datadir "$dir/maria" --port 13397 >/dev/null
	CC_MY=mysql://dbperf:$DBPERF_SERVER_PASSWORD@127.0.0.1:13397/dbperf
fi

# record SIDE OP ROUND OPS SECONDS USER_SEC SYS_SEC
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$results"
	awk -v s="$1" -v o="$2" -v r="$3" -v n="$4" -v t="$5" -v u="$6" -v y="$7" 'BEGIN {
		printf "%-16s %-6s round %s: %8d ops %8.0f/s  cpu %6.2f us/op (user %.2f, system %.2f)\n",
			s, o, r, n, n / t, (u + y) * 1e6 / n, u * 1e6 / n, y * 1e6 / n }'
}

# timed FILE CMD...: runs CMD under /usr/bin/time, its user and system seconds into FILE.time.
timed() {
	local out=$1
	shift
	/usr/bin/time -f '%U %S' -o "$out.time" "$@" >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
}

# dbperf_step SIDE OP ROUND TARGET STEP [FLAGS]: one dbperf run of STEP; its figures from summary.json.
dbperf_step() {
	local side=$1 op=$2 round=$3 target=$4 step=$5
	shift 5
	local out=$dir/runs/$side-$op-$round last=${step##*,} # the figures are the last step's
	rm -rf "$out"
	"$dbperf" run insert --target "$target" --clients 1 --steps "$step" --quiet --no-verify \
		--seed 1 --out "$out" "$@" >"$out.log" 2>&1 || { cat "$out.log" >&2; exit 1; }
	local n
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m="query" if "query" in d["ops"] else "insert"; print(d["ops"][m]["statements"], d["seconds"], d["client_cpu_user_sec"], d["client_cpu_system_sec"])' "$out/$last/summary.json")
	read -r last_ops last_secs _ <<<"$n"
	# shellcheck disable=SC2086
	record "$side" "$op" "$round" $n
}

# lb_step SIDE ROUND TARGET [FLAGS]: dbperf's LinkBench request step, one requester, $secs seconds, on
# TARGET's loaded tables; its operations (all types) and client CPU from summary.json.
lb_step() {
	local side=$1 round=$2 target=$3 out=$dir/runs/$1-linkbench-$2
	shift 3
	rm -rf "$out"
	"$dbperf" run linkbench --target "$target" --steps request --requesters 1 --requests 0 \
		--requests-seconds "${secs}s" --quiet --no-verify --seed "$round" --out "$out" "$@" >"$out.log" 2>&1 ||
		{ cat "$out.log" >&2; exit 1; }
	local n
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(o["count"] for o in d["ops"].values()), d["seconds"], d["client_cpu_user_sec"], d["client_cpu_system_sec"])' "$out/request/summary.json")
	# shellcheck disable=SC2086
	record "$side" linkbench "$round" $n
}

# pair_rate: the statement rate of the last dbperf_step, the pace of the two-process C clients
pair_rate() { awk -v n="$last_ops" -v t="$last_secs" 'BEGIN { printf "%d", n / t }'; }

# record_pair SIDE OP ROUND INSERT_FILE DELETE_FILE N_INSERT N_DELETE: the two processes of a
# reference-shaped l.i1 as one figure per INSERT + DELETE pair: the inserts and the inserter's CPU
# as they are, the deleter's CPU scaled to as many deletes as inserts.
record_pair() {
	local side=$1 op=$2 r=$3 ni=$6 nd=$7 ui si ud sd
	read -r ui si <"$4.time"
	read -r ud sd <"$5.time"
	record "$side" "$op" "$r" "$ni" "$secs" \
		"$(awk -v a="$ui" -v b="$ud" -v i="$ni" -v d="$nd" 'BEGIN { printf "%.6f", a + b * i / d }')" \
		"$(awk -v a="$si" -v b="$sd" -v i="$ni" -v d="$nd" 'BEGIN { printf "%.6f", a + b * i / d }')"
}

# insert_rows TABLE PLACEHOLDER [ROWS]: l.i0's 100-row INSERT (l.i1's 50 with ROWS 50) into TABLE
# with ids PLACEHOLDER+1..+ROWS and row values of the same shapes as dbperf's (fixed here; dbperf
# draws them at random).
insert_rows() {
	local t=$1 id=$2 rows=${3:-100}
	awk -v t="$t" -v id="$id" -v rows="$rows" 'BEGIN {
		printf "INSERT INTO %s (transactionid, dateandtime, cashregisterid, customerid, productid, price, data) VALUES ", t
		for (i = 1; i <= rows; i++)
			printf "%s(%s+%d,'\''2026-11-23 10:%02d:00'\'',%d,%d,%d,%d,'\''aaaaaaaaa%07d'\'')", (i > 1 ? "," : ""), id, i, i % 60, (i * 37) % 1000, (i * 7919) % 100000, (i * 131) % 10000, (i * 17) % 500, i * 7919
		print ";" }'
}

# in_turn ROUND C_SIDE DBPERF_SIDE: runs the two sides' functions of a pair, the C client first in
# odd rounds and dbperf first in even ones, so that neither side always runs in the other's wake
# (the autovacuum its writes set off, the rows it added).
in_turn() {
	if (($1 % 2)); then
		"$2"
		"$3"
	else
		"$3"
		"$2"
	fi
}

# The sides of pg_round's pairs; they see pg_round's locals (r, c, pgdb, lbdb, mix).
pg_range_c() {
	timed "$c-range" pgbench -n -M prepared -c 1 -T "$secs" -f "$dir/pg-range.sql" "$CC_PG"
	record pgbench range "$r" "$(awk '/actually processed/ {print $NF}' "$c-range")" "$secs" $(cat "$c-range.time")
}
pg_range_d() {
	dbperf_step dbperf-pg range "$r" "$CC_PG" qr100 --q-seconds "$secs"
	if [ "${CC_AB:-1}" = 1 ]; then dbperf_step dbperf-pg-pgconn range "$r" "$CC_PG" qr100 --q-seconds "$secs" --client-path driver; fi
}
pg_point_c() {
	local lo hi
	read -r lo hi < <(psql -XAt -F ' ' -c 'SELECT min(transactionid), max(transactionid) FROM pi1' "$CC_PG")
	timed "$c-point" pgbench -n -M prepared -c 1 -T "$secs" -D lo="$lo" -D hi="$hi" -f "$dir/pg-point.sql" "$CC_PG"
	record pgbench point "$r" "$(awk '/actually processed/ {print $NF}' "$c-point")" "$secs" $(cat "$c-point.time")
}
pg_point_d() {
	dbperf_step dbperf-pg point "$r" "$CC_PG" qp100 --q-seconds "$secs"
	if [ "${CC_AB:-1}" = 1 ]; then dbperf_step dbperf-pg-pgconn point "$r" "$CC_PG" qp100 --q-seconds "$secs" --client-path driver; fi
}
pg_insert_c() {
	psql -Xq -c 'DROP TABLE IF EXISTS pgb_i0' -c "$pg_table" "$pgdb"
	timed "$c-insert" pgbench -n -M simple -c 1 -T "$secs" -D id=0 -f "$dir/pg-insert.sql" "$pgdb"
	record pgbench insert "$r" "$(awk '/actually processed/ {print $NF}' "$c-insert")" "$secs" $(cat "$c-insert.time")
}
pg_insert_d() {
	dbperf_step dbperf-pg insert "$r" "$pgdb" l.i0 --rows "$insrows" --step-seconds "$secs" --drop
	if [ "${CC_AB:-1}" = 1 ]; then
		dbperf_step dbperf-pg-pgconn insert "$r" "$pgdb" l.i0 --rows "$insrows" --step-seconds "$secs" --drop --client-path driver
	fi
}
pg_lb_c() {
	timed "$c-lb" pgbench -n -M prepared -c 1 -T "$secs" -D maxid=10001 "${mix[@]}" "$lbdb"
	record pgbench linkbench "$r" "$(awk '/actually processed/ {print $NF}' "$c-lb")" "$secs" $(cat "$c-lb.time")
}
pg_lb_d() {
	lb_step dbperf-pg "$r" "$lbdb"
	if [ "${CC_AB:-1}" = 1 ]; then lb_step dbperf-pg-pgconn "$r" "$lbdb" --client-path driver; fi
}

pg_round() {
	local r=$1 pgdb=${CC_PG%/*}/dbperf_ins
	local c="$dir/pgbench-$r"
	in_turn "$r" pg_range_c pg_range_d
	in_turn "$r" pg_point_c pg_point_d
	in_turn "$r" pg_insert_c pg_insert_d
	local lo hi
	# l.i1: dbperf loads pi1 (l.i0, l.x) and runs l.i1; pgbench then inserts and deletes on that table
	dbperf_step dbperf-pg l.i1 "$r" "$pgdb" l.i0,l.x,l.i1 --rows "$l1base" --l1-rows "$l1rows" --drop
	read -r lo hi < <(psql -XAt -F ' ' -c 'SELECT min(transactionid), max(transactionid) FROM pi1' "$pgdb")
	timed "$c-l1" pgbench -n -M simple -c 1 -T "$secs" -D lo="$lo" -D hi="$hi" -f "$dir/pg-l1.sql" "$pgdb"
	record pgbench l.i1 "$r" "$(awk '/actually processed/ {print $NF}' "$c-l1")" "$secs" $(cat "$c-l1.time")
	# l.i1 in the reference's shape: an inserter and a deleter process on connections of their
	# own, each paced (-R) at the pairs per second dbperf's l.i1 reached, so each statement starts
	# after a wake-up as dbperf's hand-off does; no queue couples them.
	local rate
	rate=$(pair_rate)
	read -r lo hi < <(psql -XAt -F ' ' -c 'SELECT min(transactionid), max(transactionid) FROM pi1' "$pgdb")
	timed "$c-l1i" pgbench -n -M simple -c 1 -T "$secs" -R "$rate" -D hi="$hi" -f "$dir/pg-l1-insert.sql" "$pgdb" &
	local pi=$!
	timed "$c-l1d" pgbench -n -M simple -c 1 -T "$secs" -R "$rate" -D lo="$lo" -f "$dir/pg-l1-delete.sql" "$pgdb" &
	local pd=$!
	wait "$pi" && wait "$pd" || exit 1
	record_pair pgbench l.i1x2 "$r" "$c-l1i" "$c-l1d" "$(awk '/actually processed/ {print $NF}' "$c-l1i")" \
		"$(awk '/actually processed/ {print $NF}' "$c-l1d")"
	if [ "${CC_PROCS_AB:-1}" = 1 ]; then
		dbperf_step dbperf-pg-allprocs l.i1 "$r" "$pgdb" l.i0,l.x,l.i1 --rows "$l1base" --l1-rows "$l1rows" --drop --client-procs all
	fi
	# LinkBench's request step, one requester, beside pgbench running the same statements in
	# the 2013 mix's proportions (one script per request type, weighted)
	local lbdb=${CC_PG%/*}/dbperf_lb mix=()
	local w
	for w in add_link:8.9886601 delete_link:2.9907664 update_link:8.0122125 count_link:4.8863567 \
		multiget_link:0.5261142 get_links_list:50.7119145 add_node:2.5732789 update_node:7.366437 \
		delete_node:1.0115914 get_node:12.9326683; do
		mix+=(-f "$dir/lb-${w%%:*}.sql@$(awk -v p="${w#*:}" 'BEGIN { printf "%d", p * 10000 }')")
	done
	in_turn "$r" pg_lb_c pg_lb_d
}

if [ "$what" != maria ]; then
	pg_table='CREATE TABLE pgb_i0 (transactionid bigint PRIMARY KEY, dateandtime timestamp without time zone, cashregisterid int NOT NULL, customerid int NOT NULL, productid int NOT NULL, price int NOT NULL, data varchar(4000))'
	cat >"$dir/pg-range.sql" <<'EOF'
\set idx random(0, 2)
\if :idx = 0
\set x random(0, 9999)
SELECT productid, customerid, price FROM pi1 WHERE productid >= :x ORDER BY productid, customerid, price LIMIT 10;
\elif :idx = 1
\set x random(0, 999)
SELECT cashregisterid, customerid, price FROM pi1 WHERE cashregisterid > :x ORDER BY cashregisterid, customerid, price LIMIT 10;
\else
\set x random(0, 499)
SELECT price, dateandtime, customerid FROM pi1 WHERE price >= :x ORDER BY price, dateandtime, customerid LIMIT 10;
\endif
EOF
	{
		for i in $(seq 10); do echo "\\set i$i random(:lo, :hi)"; done
		echo "SELECT transactionid, productid, data FROM pi1 WHERE transactionid IN ($(seq -s, -f ':i%g' 10));"
	} >"$dir/pg-point.sql"
	{
		echo '\set id :id + 100'
		insert_rows pgb_i0 :id
	} >"$dir/pg-insert.sql"
	{ # l.i1: 50 new rows, then the 50 oldest deleted, as dbperf's inserter and deleter send them
		insert_rows pi1 :hi 50
		echo '\set hi :hi + 50'
		echo 'delete from pi1 where transactionid in (select transactionid from pi1 where transactionid >= :lo order by transactionid asc limit 50);'
		echo '\set lo :lo + 50'
	} >"$dir/pg-l1.sql"
	{
		insert_rows pi1 :hi 50
		echo '\set hi :hi + 50'
	} >"$dir/pg-l1-insert.sql"
	{
		echo 'delete from pi1 where transactionid in (select transactionid from pi1 where transactionid >= :lo order by transactionid asc limit 50);'
		echo '\set lo :lo + 50'
	} >"$dir/pg-l1-delete.sql"
	# LinkBench's request types as dbperf sends them on PostgreSQL (internal/workload/linkbench/
	# lbsql), each on its most common path: a new link added, an existing one updated or hidden
	lb_link='INSERT INTO linktable (id1, id2, link_type, visibility, data, time, version) VALUES (:id1, :id2, 123456789, 1, '"'"'\x0102030405060708'"'"', 1795363200000, 0) ON CONFLICT DO NOTHING;'
	lb_key='link_type = 123456789 AND id1 = :id1 AND id2 = :id2'
	lb_ids='\set id1 random(1, :maxid - 1)
\set id2 random(1, :maxid - 1)'
	printf '%s\nBEGIN;\n%s\n%s\nCOMMIT;\n' "$lb_ids" "$lb_link" \
		'INSERT INTO counttable (id, link_type, count, time, version) VALUES (:id1, 123456789, 1, 1795363200000, 0) ON CONFLICT (id, link_type) DO UPDATE SET count = counttable.count + 1, version = counttable.version + 1, time = EXCLUDED.time;' >"$dir/lb-add_link.sql"
	printf '%s\nBEGIN;\nSELECT visibility FROM linktable WHERE %s FOR UPDATE;\nUPDATE linktable SET visibility = 0 WHERE %s;\n%s\nCOMMIT;\n' "$lb_ids" "$lb_key" "$lb_key" \
		'INSERT INTO counttable (id, link_type, count, time, version) VALUES (:id1, 123456789, 0, 1795363200000, 0) ON CONFLICT (id, link_type) DO UPDATE SET count = CASE WHEN counttable.count = 0 THEN 0 ELSE counttable.count - 1 END, version = counttable.version + 1, time = EXCLUDED.time;' >"$dir/lb-delete_link.sql"
	printf '%s\nBEGIN;\n%s\nSELECT visibility FROM linktable WHERE %s FOR UPDATE;\nUPDATE linktable SET visibility = 1, data = %s, time = 1795363200000, version = 1 WHERE %s;\nCOMMIT;\n' \
		"$lb_ids" "$lb_link" "$lb_key" "'\\x0102030405060708'" "$lb_key" >"$dir/lb-update_link.sql"
	printf '%s\nSELECT count FROM counttable WHERE id = :id1 AND link_type = 123456789;\n' "$lb_ids" >"$dir/lb-count_link.sql"
	printf '%s\nSELECT id1, id2, link_type, visibility, data, time, version FROM linktable WHERE id1 = :id1 AND link_type = 123456789 AND id2 IN (:id2);\n' "$lb_ids" >"$dir/lb-multiget_link.sql"
	printf '%s\nSELECT id1, id2, link_type, visibility, data, time, version FROM linktable WHERE id1 = :id1 AND link_type = 123456789 AND time >= 0 AND time <= 1795363200000 AND visibility = 1 ORDER BY time DESC, id2 DESC LIMIT 10000 OFFSET 0;\n' "$lb_ids" >"$dir/lb-get_links_list.sql"
	lb_data="'\\x$(printf '%0256d' 7)'" # 128 bytes, the 2013 mix's node median
	printf '\\set id random(1000000000, 9000000000)\nINSERT INTO nodetable (id, type, version, time, data) VALUES (:id, 2048, 1, 1795363200, %s);\n' "$lb_data" >"$dir/lb-add_node.sql"
	printf '%s\nUPDATE nodetable SET version = 2, time = 1795363200, data = %s WHERE id = :id1 AND type = 2048;\n' "$lb_ids" "$lb_data" >"$dir/lb-update_node.sql"
	printf '%s\nDELETE FROM nodetable WHERE id = :id1 AND type = 2048;\n' "$lb_ids" >"$dir/lb-delete_node.sql"
	printf '%s\nSELECT id, type, version, time, data FROM nodetable WHERE id = :id1;\n' "$lb_ids" >"$dir/lb-get_node.sql"
	echo "== PostgreSQL: loading LinkBench's tables (10,000 ids)"
	"$dbperf" run linkbench --target "${CC_PG%/*}/dbperf_lb" --steps load --quiet --no-verify --seed 1 \
		--out "$dir/runs/pg-lb-load" >"$dir/pg-lb-load.log" 2>&1
	echo "== PostgreSQL: loading pi1 ($rows rows, 3 indexes) for the queries"
	"$dbperf" run insert --target "$CC_PG" --clients 1 --rows "$rows" --steps l.i0,l.x,settle \
		--settle-wait 5s --quiet --no-verify --drop --seed 1 --out "$dir/runs/pg-load" >"$dir/pg-load.log" 2>&1
	"$dbperf" run insert --target "${CC_PG%/*}/dbperf_ins" --clients 1 --rows 100 --steps l.i0 \
		--quiet --no-verify --drop --out "$dir/runs/pg-ins-create" >/dev/null 2>&1 # creates the database
	for r in $(seq "$rounds"); do pg_round "$r"; done
fi

# my_args: sysbench's connection flags from $CC_MY (mysql://USER:PASSWORD@HOST:PORT/DB).
my_args() {
	local u=${CC_MY#mysql://} db
	db=${u#*/}
	db=${db%%\?*}
	u=${u%%/*}
	local cred=${u%@*} hp=${u#*@}
	printf -- '--mysql-user=%s --mysql-password=%s --mysql-host=%s --mysql-port=%s --mysql-db=%s' \
		"${cred%%:*}" "${cred#*:}" "${hp%:*}" "${hp##*:}" "$db"
}

sb() { # sb OUT LUA [VAR=VALUE...]: one sysbench run of the Lua script, one thread
	local out=$1 lua=$2
	shift 2
	# shellcheck disable=SC2046
	env "$@" /usr/bin/time -f '%U %S' -o "$out.time" sysbench $(my_args) --threads=1 --time="$secs" \
		--events=0 --rate="${SB_RATE:-0}" "$lua" run >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
	awk '/total number of events/ {print $NF}' "$out"
}

# The sides of my_round's pairs; they see my_round's locals (r, c, myins).
my_range_c() {
	local n
	n=$(sb "$c-range" "$dir/my-range.lua")
	record sysbench range "$r" "$n" "$secs" $(cat "$c-range.time")
}
my_range_d() {
	dbperf_step dbperf-maria range "$r" "$CC_MY" qr100 --q-seconds "$secs"
	if [ "${CC_AB:-1}" = 1 ]; then dbperf_step dbperf-maria-sql range "$r" "$CC_MY" qr100 --q-seconds "$secs" --client-path driver; fi
}
my_point_c() {
	local lo hi n
	read -r lo hi < <(mysql_q 'SELECT min(transactionid), max(transactionid) FROM pi1')
	n=$(sb "$c-point" "$dir/my-point.lua" CC_LO="$lo" CC_HI="$hi")
	record sysbench point "$r" "$n" "$secs" $(cat "$c-point.time")
}
my_point_d() {
	dbperf_step dbperf-maria point "$r" "$CC_MY" qp100 --q-seconds "$secs"
	if [ "${CC_AB:-1}" = 1 ]; then dbperf_step dbperf-maria-sql point "$r" "$CC_MY" qp100 --q-seconds "$secs" --client-path driver; fi
}
my_insert_c() {
	local n
	mysql_q 'DROP TABLE IF EXISTS sb_i0' "CREATE TABLE sb_i0 (transactionid bigint PRIMARY KEY, dateandtime datetime, cashregisterid int NOT NULL, customerid int NOT NULL, productid int NOT NULL, price int NOT NULL, data varchar(4000)) ENGINE=InnoDB"
	n=$(sb "$c-insert" "$dir/my-insert.lua")
	record sysbench insert "$r" "$n" "$secs" $(cat "$c-insert.time")
}
my_insert_d() {
	dbperf_step dbperf-maria insert "$r" "$myins" l.i0 --rows "$insrows" --step-seconds "$secs" --drop
	if [ "${CC_AB:-1}" = 1 ]; then
		dbperf_step dbperf-maria-sql insert "$r" "$myins" l.i0 --rows "$insrows" --step-seconds "$secs" --drop --client-path driver
	fi
}
my_lb_c() {
	local n
	n=$(sb "$c-lb" "$dir/my-lb.lua")
	record sysbench linkbench "$r" "$n" "$secs" $(cat "$c-lb.time")
}
my_lb_d() {
	lb_step dbperf-maria "$r" "${CC_MY%/*}/dbperf_lb"
	if [ "${CC_AB:-1}" = 1 ]; then lb_step dbperf-maria-sql "$r" "${CC_MY%/*}/dbperf_lb" --client-path driver; fi
}

my_round() {
	local r=$1 c="$dir/sysbench-$r" n
	local myins=${CC_MY%/*}/dbperf_ins
	in_turn "$r" my_range_c my_range_d
	in_turn "$r" my_point_c my_point_d
	in_turn "$r" my_insert_c my_insert_d
	local lo hi
	dbperf_step dbperf-maria l.i1 "$r" "$myins" l.i0,l.x,l.i1 --rows "$l1base" --l1-rows "$l1rows" --drop
	read -r lo hi < <(mysql_q 'SELECT min(transactionid), max(transactionid) FROM dbperf_ins.pi1')
	n=$(sb "$c-l1" "$dir/my-l1.lua" CC_LO="$lo" CC_HI="$hi")
	record sysbench l.i1 "$r" "$n" "$secs" $(cat "$c-l1.time")
	# The reference's shape, as for pgbench above (sysbench --rate hands each event from its
	# pacing thread to the worker thread).
	local rate
	rate=$(pair_rate)
	read -r lo hi < <(mysql_q 'SELECT min(transactionid), max(transactionid) FROM dbperf_ins.pi1')
	SB_RATE=$rate sb "$c-l1i" "$dir/my-l1-insert.lua" CC_HI="$hi" >"$c-l1i.n" &
	local pi=$!
	SB_RATE=$rate sb "$c-l1d" "$dir/my-l1-delete.lua" CC_LO="$lo" >"$c-l1d.n" &
	local pd=$!
	wait "$pi" && wait "$pd" || exit 1
	record_pair sysbench l.i1x2 "$r" "$c-l1i" "$c-l1d" "$(cat "$c-l1i.n")" "$(cat "$c-l1d.n")"
	if [ "${CC_PROCS_AB:-1}" = 1 ]; then
		dbperf_step dbperf-maria-allprocs l.i1 "$r" "$myins" l.i0,l.x,l.i1 --rows "$l1base" --l1-rows "$l1rows" --drop --client-procs all
	fi
	in_turn "$r" my_lb_c my_lb_d
}

mysql_q() { # mysql_q SQL...: runs each statement in $CC_MY's database, tab-separated output
	local u=${CC_MY#mysql://} db
	db=${u#*/}
	db=${db%%\?*}
	u=${u%%/*}
	local cred=${u%@*} hp=${u#*@} q
	for q in "$@"; do
		MYSQL_PWD=${cred#*:} mysql -N -B -u "${cred%%:*}" -h "${hp%:*}" -P "${hp##*:}" "$db" -e "$q"
	done
}

if [ "$what" != pg ]; then
	cat >"$dir/my-range.lua" <<'EOF2'
-- The Insert Benchmark's range query as dbperf sends it by default (the reference's text).
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  local idx = math.random(0, 2)
  if idx == 0 then
    con:query(string.format("SELECT productid, customerid, price FROM pi1 FORCE INDEX (pi1_marketsegment) WHERE (productid >= %d) ORDER BY productid, customerid, price LIMIT 10", math.random(0, 9999)))
  elseif idx == 1 then
    con:query(string.format("SELECT cashregisterid,customerid,price FROM pi1 FORCE INDEX (pi1_registersegment) WHERE (cashregisterid > %d) ORDER BY cashregisterid, customerid, price LIMIT 10", math.random(0, 999)))
  else
    con:query(string.format("SELECT price,dateandtime,customerid FROM pi1 FORCE INDEX (pi1_pdc) WHERE (price >= %d) ORDER BY price, dateandtime, customerid LIMIT 10", math.random(0, 499)))
  end
end
EOF2
	cat >"$dir/my-point.lua" <<'EOF2'
-- The point query: 10 ids uniform in [CC_LO, CC_HI], as SQL text.
local lo, hi = tonumber(os.getenv("CC_LO")), tonumber(os.getenv("CC_HI"))
local ids = {}
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  for i = 1, 10 do ids[i] = math.random(lo, hi) end
  con:query("SELECT transactionid, productid, data FROM pi1 WHERE transactionid in (" .. table.concat(ids, ",") .. ")")
end
EOF2
	{
		echo '-- l.i0'"'"'s 100-row INSERT as text, ids counting up.'
		echo 'local id = 0'
		echo 'function thread_init() con = sysbench.sql.driver():connect() end'
		echo 'function event()'
		echo '  con:query(string.format([['"$(insert_rows sb_i0 '%d' | sed 's/%d+\([0-9]*\)/%d/g')"']], '"$(seq -s, -f 'id+%g' 100)"'))'
		echo '  id = id + 100'
		echo 'end'
	} >"$dir/my-insert.lua"
	{
		echo '-- l.i1: 50 new rows as text, then the 50 oldest deleted, in dbperf'"'"'s l.i1 table.'
		echo 'local lo, hi = tonumber(os.getenv("CC_LO")), tonumber(os.getenv("CC_HI"))'
		echo 'function thread_init() con = sysbench.sql.driver():connect() end'
		echo 'function event()'
		echo '  con:query(string.format([['"$(insert_rows dbperf_ins.pi1 '%d' 50 | sed 's/%d+\([0-9]*\)/%d/g')"']], '"$(seq -s, -f 'hi+%g' 50)"'))'
		echo '  hi = hi + 50'
		echo '  con:query(string.format("delete from dbperf_ins.pi1 where transactionid >= %d order by transactionid asc limit 50", lo))'
		echo '  lo = lo + 50'
		echo 'end'
	} >"$dir/my-l1.lua"
	{
		echo '-- l.i1'"'"'s inserter alone: 50 new rows as text.'
		echo 'local hi = tonumber(os.getenv("CC_HI"))'
		echo 'function thread_init() con = sysbench.sql.driver():connect() end'
		echo 'function event()'
		echo '  con:query(string.format([['"$(insert_rows dbperf_ins.pi1 '%d' 50 | sed 's/%d+\([0-9]*\)/%d/g')"']], '"$(seq -s, -f 'hi+%g' 50)"'))'
		echo '  hi = hi + 50'
		echo 'end'
	} >"$dir/my-l1-insert.lua"
	{
		echo '-- l.i1'"'"'s deleter alone: the 50 oldest rows.'
		echo 'local lo = tonumber(os.getenv("CC_LO"))'
		echo 'function thread_init() con = sysbench.sql.driver():connect() end'
		echo 'function event()'
		echo '  con:query(string.format("delete from dbperf_ins.pi1 where transactionid >= %d order by transactionid asc limit 50", lo))'
		echo '  lo = lo + 50'
		echo 'end'
	} >"$dir/my-l1-delete.lua"
	cat >"$dir/my-lb.lua" <<'EOF2'
-- LinkBench's request types in the 2013 mix's proportions, as dbperf sends them to MariaDB
-- (SQL text: go-sql-driver interpolates the parameters), each on its most common path, on the
-- tables of dbperf's LinkBench load in dbperf_lb.
local pct = {8.9886601, 2.9907664, 8.0122125, 4.8863567, 0.5261142, 50.7119145, 2.5732789, 7.366437, 1.0115914, 12.9326683}
local lt, now, maxid = 123456789, 1795363200000, 10000
local node = "0x" .. string.rep("07", 128)
local key = "link_type = %d AND id1 = %d AND id2 = %d"
local cols = "id1, id2, link_type, visibility, data, time, version"
local function link(id1, id2)
  return string.format("INSERT INTO dbperf_lb.linktable (" .. cols .. ") VALUES (%d, %d, %d, 1, 0x0102030405060708, %d, 0) ON DUPLICATE KEY UPDATE id1 = id1", id1, id2, lt, now)
end
local function count(id1, new, upd)
  return string.format("INSERT INTO dbperf_lb.counttable (id, link_type, count, time, version) VALUES (%d, %d, %d, %d, 0) ON DUPLICATE KEY UPDATE count = %s, version = version + 1, time = VALUES(time)", id1, lt, new, now, upd)
end
local nextid -- new nodes' ids, counting up from the start time: the rounds' never meet
function thread_init() con = sysbench.sql.driver():connect(); nextid = os.time() * 100000 end
function event()
  local r, op, cum = math.random() * 100, 10, 0
  for i = 1, 10 do cum = cum + pct[i]; if r <= cum then op = i; break end end
  local id1, id2 = math.random(1, maxid), math.random(1, maxid)
  local k = string.format(key, lt, id1, id2)
  if op == 1 then
    con:query("BEGIN"); con:query(link(id1, id2)); con:query(count(id1, 1, "count + 1")); con:query("COMMIT")
  elseif op == 2 then
    con:query("BEGIN"); con:query("SELECT visibility FROM dbperf_lb.linktable WHERE " .. k .. " FOR UPDATE")
    con:query("UPDATE dbperf_lb.linktable SET visibility = 0 WHERE " .. k)
    con:query(count(id1, 0, "CASE WHEN count = 0 THEN 0 ELSE count - 1 END")); con:query("COMMIT")
  elseif op == 3 then
    con:query("BEGIN"); con:query(link(id1, id2)); con:query("SELECT visibility FROM dbperf_lb.linktable WHERE " .. k .. " FOR UPDATE")
    con:query(string.format("UPDATE dbperf_lb.linktable SET visibility = 1, data = 0x0102030405060708, time = %d, version = 1 WHERE ", now) .. k)
    con:query("COMMIT")
  elseif op == 4 then
    con:query(string.format("SELECT count FROM dbperf_lb.counttable WHERE id = %d AND link_type = %d", id1, lt))
  elseif op == 5 then
    con:query(string.format("SELECT " .. cols .. " FROM dbperf_lb.linktable WHERE id1 = %d AND link_type = %d AND id2 IN (%d)", id1, lt, id2))
  elseif op == 6 then
    con:query(string.format("SELECT " .. cols .. " FROM dbperf_lb.linktable FORCE INDEX (id1_type) WHERE id1 = %d AND link_type = %d AND time >= 0 AND time <= %d AND visibility = 1 ORDER BY time DESC, id2 DESC LIMIT 0, 10000", id1, lt, now))
  elseif op == 7 then
    con:query(string.format("INSERT INTO dbperf_lb.nodetable (id, type, version, time, data) VALUES (%d, 2048, 1, 1795363200, %s)", nextid, node))
    nextid = nextid + 1
  elseif op == 8 then
    con:query(string.format("UPDATE dbperf_lb.nodetable SET version = 2, time = 1795363200, data = %s WHERE id = %d AND type = 2048", node, id1))
  elseif op == 9 then
    con:query(string.format("DELETE FROM dbperf_lb.nodetable WHERE id = %d AND type = 2048", id1))
  else
    con:query(string.format("SELECT id, type, version, time, data FROM dbperf_lb.nodetable WHERE id = %d", id1))
  end
end
EOF2
	echo "== MariaDB: loading LinkBench's tables (10,000 ids)"
	"$dbperf" run linkbench --target "${CC_MY%/*}/dbperf_lb" --steps load --quiet --no-verify --seed 1 \
		--out "$dir/runs/my-lb-load" >"$dir/my-lb-load.log" 2>&1
	echo "== MariaDB: loading pi1 ($rows rows, 3 indexes) for the queries"
	"$dbperf" run insert --target "$CC_MY" --clients 1 --rows "$rows" --steps l.i0,l.x,settle \
		--settle-wait 5s --quiet --no-verify --drop --seed 1 --out "$dir/runs/my-load" >"$dir/my-load.log" 2>&1
	"$dbperf" run insert --target "${CC_MY%/*}/dbperf_ins" --clients 1 --rows 100 --steps l.i0 \
		--quiet --no-verify --drop --out "$dir/runs/my-ins-create" >/dev/null 2>&1 # creates the database
	for r in $(seq "$rounds"); do my_round "$r"; done
fi

# medians: per side and operation, the median and the range of the rounds' CPU per operation
echo
echo "== medians of $rounds rounds (client CPU per statement, us; user and system medians apart)"
awk -F'\t' '{
	k = $1 "\t" $2; n[k]++
	tot[k, n[k]] = ($6 + $7) * 1e6 / $4; usr[k, n[k]] = $6 * 1e6 / $4; sys[k, n[k]] = $7 * 1e6 / $4
	rate[k, n[k]] = $4 / $5; keys[k] = 1
} END {
	for (k in keys) {
		t = med(tot, k, n[k]); range = sprintf("%.1f-%.1f", lo, hi)
		printf "%s\t%.1f\t%.1f\t%.1f\t%s\t%.0f\n", k, t, med(usr, k, n[k]), med(sys, k, n[k]), range, med(rate, k, n[k])
	}
}
function med(a, k, m,   i, j, t, v) {
	for (i = 1; i <= m; i++) v[i] = a[k, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	lo = v[1]; hi = v[m]
	return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
}' "$results" | sort -k2,2 -k1,1 | column -t -s $'\t' -N side,op,cpu_us,user_us,sys_us,cpu_range,ops_per_s

# ratios: dbperf / the C client, each round's own ratio (both sides ran in that round), their
# median and range; the l.i1 pair also against two C processes in the reference's shape (l.i1x2)
echo
echo "== dbperf / C client, client CPU per operation: median of the rounds' ratios (range)"
python3 - "$results" <<'EOF2'
import collections, statistics, sys
cpu = collections.defaultdict(dict)  # (side, op) -> round -> µs per op
for line in open(sys.argv[1]):
    side, op, r, ops, secs, user, system = line.rstrip("\n").split("\t")
    cpu[side, op][r] = (float(user) + float(system)) / int(ops) * 1e6
for c, prefix in (("pgbench", "dbperf-pg"), ("sysbench", "dbperf-maria")):
    for dside in sorted({s for s, _ in cpu if s.startswith(prefix)}):
        for dop in sorted(o for s, o in cpu if s == dside):
            for cop in (dop, "l.i1x2") if dop == "l.i1" else (dop,):
                rounds = sorted(set(cpu[c, cop]) & set(cpu[dside, dop])) if (c, cop) in cpu else []
                if rounds:
                    x = [cpu[dside, dop][r] / cpu[c, cop][r] for r in rounds]
                    print(f"{dside:22} {dop:9} vs {c} {cop:9} {statistics.median(x):.2f}x ({min(x):.2f}-{max(x):.2f})")
EOF2
