#!/usr/bin/env bash
# Writes docs/open-loop.png: the same Insert Benchmark q step on a Pebble that stalls for 1 s
# every 4 s (stall+pebble), once with closed-loop queriers (as the reference runs them) and once
# with queries arriving open loop at a constant 2000 a second; 'dbperf report' of the two, and a
# screenshot of its qr100 latency-by-percentile chart by headless Chromium (Debian's package
# chromium), through scripts/shot.
#   scripts/open-loop-chart.sh
set -euo pipefail
cd "$(dirname "$0")/.."
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "no $chromium: install the Debian package chromium (apt-get install chromium)" >&2
  exit 1
fi
tmp=$(mktemp -d /tmp/dbperf-openloop-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
go build -buildvcs=auto -o "$tmp/dbperf" ./cmd/dbperf
stall='stall+pebble?at=1s&for=1s&every=4s'
common=(--target "$stall" --seed 1 --rows 20000 --steps l.i0,l.x,qr100 --q-seconds 12 --quiet)
"$tmp/dbperf" run insert "${common[@]}" --out "$tmp/closed" >>"$tmp/run.log"
"$tmp/dbperf" run insert "${common[@]}" --arrival constant --rate 2000 --out "$tmp/open" >>"$tmp/run.log"
"$tmp/dbperf" compare --base "$tmp/closed" "$tmp/open" | grep -E '^(step|qr100)' || true
"$tmp/dbperf" report "$tmp/closed" "$tmp/open" -o "$tmp/report.html"
go run ./scripts/shot -chromium "$chromium" -page "$tmp/report.html" -selector '#s2-percentile' -out docs/open-loop.png
echo "wrote docs/open-loop.png"
