# Shared by the benchmark scripts (sourced, not run).

# start_server BIN CONFIG PREFIX: runs `BIN serve --config CONFIG` in the background with its stdout in
# PREFIX.out and stderr in PREFIX.log; sets `server` (the pid) and `url` once it listens, or exits 1.
start_server() {
  "$1" serve --config "$2" > "$3.out" 2> "$3.log" &
  server=$!
  url=""
  for _ in $(seq 1 200); do
    url=$(grep -o 'http://[0-9.:]*' "$3.out" | head -1 || true)
    [ -n "$url" ] && return 0
    sleep 0.05
  done
  echo "server did not start:"; cat "$3.log"; exit 1
}

# wrk_summary FILE: "requests/s p50 p99 requests non-2xx" from wrk --latency output.
wrk_summary() {
  awk '/Requests\/sec/ {r=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2} /requests in/ {n=$1} /Non-2xx/ {bad=$NF}
       END {printf "%s %s %s %s %s", r, p50, p99, n, (bad==""?0:bad)}' "$1"
}

# record KEY VALUE: appends "KEY=VALUE" to WORKDIR/results.env (needs `work` set), the figures that
# scripts/bench-table.py prints as the summary table at the end of `make bench`.
record() {
  printf '%s=%s\n' "$1" "$2" >> "$work/results.env"
}

# The in-flight push benchmarks' helpers (scripts/bench-memory.sh, scripts/bench-recovery.sh); they use `url`, `db`,
# `token`, `key` and `server` as set by the caller.
# send FIRST COUNT: Default pushes to numbers FIRST..FIRST+COUNT-1, 1,000 per request, 2 senders; every one 200.
send() { python3 "$(dirname "${BASH_SOURCE[0]}")/bench-send-pushes.py" "$url" "$token" "$key" "$1" "$2"; }
accepted() { sqlite3 "$db" "SELECT count(*) FROM delivery_events WHERE kind = 'pushAccepted'"; }
# await_accepted EXPECTED: waits (≤ 5 min) until EXPECTED pushes were accepted, then 2 s more; fails if they never are.
await_accepted() {
  local seen=0
  for _ in $(seq 1 1500); do
    seen=$(accepted)
    [ "$seen" -ge "$1" ] && { sleep 2; return 0; }
    sleep 0.2
  done
  echo "   only $seen of $1 pushes accepted after 5 minutes"; return 1
}
rss() { curl -fsS "$url/metrics" | awk '$1 == "process_resident_memory_bytes" {printf "%.0f", $2}'; }
vmrss() { awk '/^VmRSS/ {print $2 * 1024}' "/proc/$server/status"; }
