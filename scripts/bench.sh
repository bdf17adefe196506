#!/usr/bin/env bash
# Prints Tandem's performance figures, section by section, and ends with one summary table
# (scripts/bench-table.py) of the figures each section recorded in WORKDIR/results.env. Usage: scripts/bench.sh path/to/tandem
#  (1) GET /healthz through a real `tandem serve` (access log on, written to a file) with wrk -t2 -c64 -d10s — the
#      reference of (1b)–(1g), which scripts/bench-gateway.sh, scripts/bench-receipts.sh, scripts/bench-bwmi.sh and
#      scripts/bench-mymsp.sh measure
#  (1-PG) rows (1b)–(1d) again with the store on PostgreSQL (scripts/bench-postgres.sh), beside the SQLite figures
#  (2) group-commit durable rows/s with 64 waiting writers beside single-row transactions, same run
#  (3) the timer wheel beside a binary heap (tandem bench timers)
#  (4)–(5) APNs and SMPP providers against loopback peers (scripts/bench-providers.sh)
#  (6) resident memory per in-flight delivery (scripts/bench-memory.sh)
#  (7) start-up after kill -9 with 1M deliveries in flight (scripts/bench-recovery.sh)
# A section that fails is reported and the next one runs; its figures show as "n/a" in the table. Before the first
# section and after each HTTP section, `settle` removes the finished database and waits for the kernel's writeback.
set -euo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
work="$(mktemp -d)"
scripts="$(cd "$(dirname "$0")" && pwd)"
source "$scripts/bench-lib.sh"
server=""
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
: > "$work/results.env"

# section NAME FUNCTION [ARGS...]: runs one section in a subshell with errexit on; a failure is recorded as
# NAME_error (shown in the table) instead of ending the run.
section() {
  local name="$1" rc; shift
  record "load_$name" "$(cut -d' ' -f1 /proc/loadavg)"
  set +e; ( set -e; "$@" ); rc=$?; set -e
  if [ "$rc" != 0 ]; then
    echo "   !! section $name failed (exit $rc); its figures are n/a in the table"
    record "${name}_error" "$name section failed, exit $rc"
  fi
  return 0
}
# settle FILE...: removes a finished section's database files and waits (sync) for the kernel to write back what
# is still dirty, so that one section's writeback (the bulk section leaves gigabytes) does not run during the next.
settle() {
  rm -f "$@"
  local dirty; dirty=$(awk '/^Dirty:/ {print $2}' /proc/meminfo)
  sync
  echo "   (settled: $dirty kB dirty in the page cache written back before the next section)"
}
# result KEY: the last value recorded for KEY, or nothing.
result() { awk -F= -v k="$1" '$1 == k {v = substr($0, length(k) + 2)} END {print v}' "$work/results.env"; }

mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
real_bin=$(readlink -f "$bin")
case "$real_bin" in */release/*) mode="release";; */debug/*) mode="DEBUG";; *) mode="unknown";; esac
record cores "$(nproc)"; record memory "$mem"; record kernel "$(uname -sr)"; record cpu "${cpu:-unknown}"
record date "$(date -u +%Y-%m-%dT%H:%MZ)"; record build "$mode ($real_bin)"
record commit "$(git -C "$scripts/.." describe --always --dirty 2>/dev/null || echo unknown)"
record load_start "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "== Tandem benchmarks — $(nproc) cores, $mem, $(uname -sr), $mode build, $(date -u +%Y-%m-%dT%H:%MZ)"
echo

healthz() {
  echo "== (1) GET /healthz: wrk -t2 -c64 -d10s against tandem serve (http.threads 2, access log to a file, same machine)"
  cat > "$work/config.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 }, "database": { "path": "$work/bench.sqlite" },
  "policies": "$(pwd)/Policies" }
JSON
  start_server "$bin" "$work/config.json" "$work/serve"
  trap 'kill "$server" 2>/dev/null || true' EXIT
  curl -fsS "$url/healthz" > /dev/null
  wrk -t2 -c64 -d10s --latency "$url/healthz" > "$work/wrk.txt"
  local rps p50 p99 requests bad errors
  read -r rps p50 p99 requests bad <<< "$(wrk_summary "$work/wrk.txt")"
  errors=$(grep -E 'Socket errors|Non-2xx' "$work/wrk.txt" || true)
  printf '   requests/s: %s   p50: %s   p99: %s   (target >= 50,000 req/s)\n' "$rps" "$p50" "$p99"
  [ -z "$errors" ] || echo "   $errors"
  echo "   access-log lines written: $(grep -c '"log":"access"' "$work/serve.log")"
  record healthz_rps "$rps"; record healthz_p50 "$p50"; record healthz_p99 "$p99"; record healthz_non2xx "$bad"
  record healthz_conditions "wrk -t2 -c64 -d10s, access log on (to a file)"
  kill -TERM "$server"; wait "$server" || true
}
settle  # the release build's output, written back before the first section
section healthz healthz
echo
healthz_rps=$(result healthz_rps)
settle "$work"/bench.sqlite*
section gateway "$scripts/bench-gateway.sh" "$bin" "$work" "${healthz_rps:-0}"
echo
settle "$work"/gateway.sqlite*
section receipts "$scripts/bench-receipts.sh" "$bin" "$work" "${healthz_rps:-0}"
echo
settle "$work"/receipts.sqlite*
section bwmi "$scripts/bench-bwmi.sh" "$bin" "$work" "${healthz_rps:-0}"
echo
settle "$work"/bwmi.sqlite*
section mymsp "$scripts/bench-mymsp.sh" "$bin" "$work" "${healthz_rps:-0}"
echo
settle "$work"/mymsp.sqlite*
echo "== (1-PG) rows (1b)–(1d) on PostgreSQL: the same sections with the store on a PostgreSQL server on this machine"
section postgres "$scripts/bench-postgres.sh" "$bin" "$work" "${healthz_rps:-0}"
echo
echo "== (2) store: group commit vs single-row transactions (tandem bench store)"
section store "$bin" bench store --directory "$work"
echo
timers() {
  echo "== (3) timers: hierarchical timer wheel beside a binary heap (tandem bench timers)"
  "$bin" bench timers 2> /dev/null | tee "$work/timers.txt"
  # Workload A's largest size (the last row of its table) and the real-clock lateness rows; the fields are
  # checked to be numbers, so a changed report format leaves the table's cells n/a instead of wrong.
  awk '
    function number(v) { return v ~ /^-?[0-9]+(\.[0-9]+)?$/ }
    /^A\. PRODUCTION/ { a = 1 } /^B\. UNIFORM/ { a = 0 }
    a && $1 ~ /^[0-9]+[kM]?$/ && number($2) && number($4) { size = $1; wheel = $2; heap = $4; bytes = $6 }
    a && $1 == "ratio" { ratio = $3; heapratio = $4 }
    /^firing lateness, real clock:/ { late = 1; timers = $5; over = $9 }
    late && ($1 == "wheel" || $1 == "heap") && number($2) && number($8) {
      printf "timers_late_%s=%s %s %s %s %s %s %s %s %s\n", $1, $2, $4, $6, $8, $10, $12, $14, $19, (NF > 19 ? "incomplete" : "complete")
    }
    END {
      if (size != "") printf "timers_size=%s\ntimers_wheel_ns=%s\ntimers_heap_ns=%s\ntimers_wheel_bytes=%s\ntimers_ratio=%s\ntimers_heap_ratio=%s\n", size, wheel, heap, bytes, ratio, heapratio
      if (timers != "") printf "timers_late_timers=%s\ntimers_late_seconds=%s\n", timers, over
    }' "$work/timers.txt" >> "$work/results.env"
}
section timers timers
echo
section providers env PYTHON="${PYTHON:-.venv/bin/python}" "$scripts/bench-providers.sh" "$bin" "$work"
echo
section memory "$scripts/bench-memory.sh" "$bin" "$work" "${MEMORY_DELIVERIES:-200000}"
settle "$work/memory.sqlite" "$work/memory.sqlite-wal" "$work/memory.sqlite-shm"
echo
section recovery "$scripts/bench-recovery.sh" "$bin" "$work" "${RECOVERY_DELIVERIES:-1000000}"
settle "$work/recovery.sqlite" "$work/recovery.sqlite-wal" "$work/recovery.sqlite-shm"
record load_end "$(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 "$scripts/bench-table.py" "$work/results.env"
