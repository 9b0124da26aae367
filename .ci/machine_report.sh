#!/usr/bin/env bash
# What else is on this machine, printed before CI runs (and the load again at the end): a slow run on a
# machine right after a working session is explained by load, memory and leftovers, not by the code.
# Read-only; every probe is bounded in time so a huge leftover directory cannot stall CI.
# Usage: .ci/machine_report.sh [start|end]
set -uo pipefail
phase=${1:-start}
probe() { timeout 15 "$@" 2>/dev/null; }
size() { [ -e "$1" ] && echo "  $(probe du -sh "$1" | cut -f1 || echo '?')	$1"; }

echo "== machine report ($phase) $(date -u +%FT%TZ)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for kind in cpu io memory; do
  [ -r "/proc/pressure/$kind" ] && echo "pressure $kind: $(head -1 "/proc/pressure/$kind")"
done
free -m | awk 'NR<=2 {print "  " $0}'
[ "$phase" = end ] && exit 0

echo "busiest processes:"
ps -eo pid,etime,pcpu,rss,args --sort=-pcpu | awk 'NR>1 && NR<=9 {printf "  %s\n", substr($0, 1, 160)}'
echo "Neo4j / Chroma / Chromium / python processes already running: $(ps -eo args | grep -cE '^[^ ]*(java|chroma|chromium|python)' || true)"
ps -eo pid,etime,pcpu,rss,args | grep -E 'org\.neo4j|chroma run|chromium|kgmem' | grep -v grep | awk '{printf "  %s\n", substr($0, 1, 160)}'
if command -v ss >/dev/null; then
  echo "listening on kgmem's default ports (7687 7474 18800; tests/CI pick free ones):"
  ss -ltnH 2>/dev/null | awk '{print $4}' | grep -E ':(7687|7474|18800)$' | sed 's/^/  /'
  echo "TCP listeners in all: $(ss -ltnH 2>/dev/null | wc -l)"
fi
echo "leftovers (sizes; CI reads none of them):"
tmp=${TMPDIR:-/tmp}
echo "  $(ls -d "$tmp"/kgmem-ci.* 2>/dev/null | wc -l) earlier CI temp dirs ($tmp/kgmem-ci.*)"
size "$tmp"
size "$tmp/pytest-of-$(id -un)"
size "$HOME/.cache/pip"
size "$HOME/.cache/huggingface"
size "$HOME/.m2"
size "$HOME/.local/share/kgmem"
df -h "$tmp" "$HOME" 2>/dev/null | awk 'NR>1 {print "  disk " $6 ": " $4 " free of " $2}' | sort -u
