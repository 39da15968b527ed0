#!/usr/bin/env bash
# Writes docs/report.png: two small Insert Benchmark runs (SQLite and Pebble, big enough that
# l.i0 lasts seconds and its charts have lines) into a temporary directory, 'dbperf report' of
# them, and a screenshot of the page at 1400 px (the first screen: each step's headline and the
# overview chart; then the summary, comparison, settings and the first step's charts;
# HEIGHT=px changes how far down), by headless Chromium
# (Debian's package chromium; scripts/test.sh installs it).
#   scripts/report-screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/.."
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "no $chromium: install the Debian package chromium (apt-get install chromium)" >&2
  exit 1
fi
tmp=$(mktemp -d /tmp/dbperf-report-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
go build -buildvcs=auto -o "$tmp/dbperf" ./cmd/dbperf
for t in sqlite:a.sqlite pebble:p; do
  "$tmp/dbperf" run insert --target "${t%%:*}:$tmp/${t#*:}" --seed 1 --rows 300000 \
    --steps l.i0,l.x,qr100 --q-seconds 6 --out "$tmp/runs/${t%%:*}" >>"$tmp/run.log"
done
"$tmp/dbperf" report "$tmp/runs/sqlite" "$tmp/runs/pebble" -o "$tmp/report.html"
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/profile" --hide-scrollbars \
  --screenshot="$PWD/docs/report.png" --window-size=1400,${HEIGHT:-2200} "file://$tmp/report.html" 2>"$tmp/chromium.log"
echo "wrote docs/report.png"
