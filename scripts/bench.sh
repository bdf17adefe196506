#!/usr/bin/env bash
# Prints Tandem's performance table. Usage: scripts/bench.sh path/to/tandem
#  (1) GET /healthz through a real `tandem serve` (access log on, written to a file) with wrk -t2 -c64 -d10s
#  (2) group-commit durable rows/s with 64 waiting writers beside single-row transactions, same run
set -euo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
work="$(mktemp -d)"
source "$(dirname "$0")/bench-lib.sh"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT

echo "== Tandem benchmarks — $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr), $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "== (1) GET /healthz: wrk -t2 -c64 -d10s against tandem serve (http.threads 2, access log to a file, same machine)"
cat > "$work/config.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 }, "database": { "path": "$work/bench.sqlite" },
  "policies": "$(pwd)/Policies" }
JSON
start_server "$bin" "$work/config.json" "$work/serve"
curl -fsS "$url/healthz" > /dev/null
wrk -t2 -c64 -d10s --latency "$url/healthz" > "$work/wrk.txt"
rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
p50=$(awk '$1 == "50%" {print $2}' "$work/wrk.txt")
p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.txt")
errors=$(grep -E 'Socket errors|Non-2xx' "$work/wrk.txt" || true)
printf '   requests/s: %s   p50: %s   p99: %s   (target >= 50,000 req/s)\n' "$rps" "$p50" "$p99"
[ -z "$errors" ] || echo "   $errors"
echo "   access-log lines written: $(grep -c '"log":"access"' "$work/serve.log")"
kill -TERM "$server"; wait "$server" || true
echo
scripts/bench-gateway.sh "$bin" "$work" "$rps"
echo
scripts/bench-receipts.sh "$bin" "$work" "$rps"
echo
echo "== (2) store: group commit vs single-row transactions (tandem bench store)"
"$bin" bench store --directory "$work"
echo
echo "== (3) timers: hierarchical timer wheel beside a binary heap (tandem bench timers)"
"$bin" bench timers 2> /dev/null
echo
PYTHON="${PYTHON:-.venv/bin/python}" scripts/bench-providers.sh "$bin" "$work"
