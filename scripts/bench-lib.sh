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
