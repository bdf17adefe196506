#!/usr/bin/env bash
# Rows 1-3 of `make bench` for two binaries in one run, so that a change can be held against its base:
#  (1)  GET /healthz — wrk -t2 -c64 -d10s, access log on (to a file)
#  (1b) POST /v1.0/message, 1 recipient, JSON, durable before the reply — wrk -t2 -c64 -d10s
#  (1c) POST /v1.0/message, 1,000 recipients per request (spooled) — wrk -t2 -c8 -d10s, recipients/s
# Each binary is measured ROUNDS times (default 2), alternating (base, new, base, new …) so that a drift of the
# machine's load hits both alike; each round starts a fresh server on a fresh database. Every accepted recipient
# is counted in the database afterwards (at least every answered request; at most one more per connection). The table prints each figure's median per binary and new/base.
# Uses only what every Tandem binary since round 1 has (`serve`, `account create`, the CM gateway).
# Usage: scripts/bench-compare.sh BASE_BIN NEW_BIN [ROUNDS]   (make bench-compare BASE=<git revision>)
set -euo pipefail
base_bin="$(readlink -f "$1")"; new_bin="$(readlink -f "$2")"; rounds="${3:-2}"
scripts="$(cd "$(dirname "$0")" && pwd)"
source "$scripts/bench-lib.sh"
work="$(mktemp -d)"
server=""
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
: > "$work/results.env"

echo "== rows 1-3 of make bench, base beside new — $(nproc) cores, $(uname -sr), $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   base: $base_bin"
echo "   new:  $new_bin"

measure() {  # LABEL BIN ROUND
  local label="$1" bin="$2" round="$3" dir="$work/$1-$3"
  mkdir -p "$dir"
  cat > "$dir/healthz.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 }, "database": { "path": "$dir/healthz.sqlite" }, "policies": "$(pwd)/Policies" }
JSON
  start_server "$bin" "$dir/healthz.json" "$dir/healthz"
  curl -fsS "$url/healthz" > /dev/null
  wrk -t2 -c64 -d10s --latency "$url/healthz" > "$dir/wrk-healthz.txt"
  kill -TERM "$server"; wait "$server" || true
  read -r rps _ <<< "$(wrk_summary "$dir/wrk-healthz.txt")"
  record "${label}_healthz" "$rps"

  cat > "$dir/gateway.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 }, "database": { "path": "$dir/gateway.sqlite" },
  "policies": "$(pwd)/Policies", "log": { "accessLog": false }, "simulator": { "logEvents": false } }
JSON
  local token
  token=$("$bin" account create Bench --config "$dir/gateway.json" | awk '/product token/ {print $3}')
  python3 - "$token" "$dir" <<'PY'
import json, sys
token, work = sys.argv[1], sys.argv[2]
for name, numbers in (("single", ["0031612345678"]), ("bulk", ["00316%08d" % i for i in range(1000)])):
    body = json.dumps({"messages": {"authentication": {"producttoken": token}, "msg": [
        {"from": "Bench", "to": [{"number": n} for n in numbers], "body": {"content": "Your code is 123456"},
         "reference": "bench"}]}})
    with open(f"{work}/{name}.lua", "w") as lua:
        lua.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
        lua.write("wrk.body = " + json.dumps(body) + "\n")
PY
  start_server "$bin" "$dir/gateway.json" "$dir/gateway"
  count() { sqlite3 "$dir/gateway.sqlite" "SELECT (SELECT count(*) FROM deliveries) + (SELECT coalesce(sum(total - started), 0) FROM message_spools)"; }
  local before after requests bad
  before=$(count)
  wrk -t2 -c64 -d10s --latency -s "$dir/single.lua" "$url/v1.0/message" > "$dir/wrk-single.txt"
  read -r rps _ _ requests bad <<< "$(wrk_summary "$dir/wrk-single.txt")"
  sleep 0.5; after=$(count)
  # wrk counts only the answers it read; up to one request per connection was stored but not counted.
  [ "$bad" = 0 ] && [ "$((after - before))" -ge "$requests" ] && [ "$((after - before))" -le "$((requests + 64))" ] \
    || { echo "   !! $label single: $bad non-2xx, $((after - before)) stored of $requests"; exit 1; }
  record "${label}_single" "$rps"
  before=$(count)
  wrk -t2 -c8 -d10s --latency -s "$dir/bulk.lua" "$url/v1.0/message" > "$dir/wrk-bulk.txt"
  read -r rps _ _ requests bad <<< "$(wrk_summary "$dir/wrk-bulk.txt")"
  sleep 0.5; after=$(count)
  [ "$bad" = 0 ] && [ "$((after - before))" -ge "$((requests * 1000))" ] && [ "$((after - before))" -le "$(((requests + 8) * 1000))" ] \
    || { echo "   !! $label bulk: $bad non-2xx, $((after - before)) stored of $((requests * 1000))"; exit 1; }
  record "${label}_bulk" "$(python3 -c "print(f'{$rps*1000:.0f}')")"
  kill -TERM "$server"; wait "$server" || true
  rm -rf "$dir"/*.sqlite*
  printf '   round %s %-4s  healthz %s req/s   single %s req/s   bulk %s recipients/s\n' "$round" "$label" \
    "$(awk -F= -v k="${label}_healthz" '$1==k {v=$2} END {print v}' "$work/results.env")" \
    "$(awk -F= -v k="${label}_single" '$1==k {v=$2} END {print v}' "$work/results.env")" \
    "$(awk -F= -v k="${label}_bulk" '$1==k {v=$2} END {print v}' "$work/results.env")"
  sync
}

for round in $(seq 1 "$rounds"); do
  measure base "$base_bin" "$round"
  measure new "$new_bin" "$round"
done

python3 - "$work/results.env" <<'PY'
import statistics, sys
values = {}
for line in open(sys.argv[1]):
    key, value = line.strip().split("=", 1)
    values.setdefault(key, []).append(float(value))
print()
print(f"   {'figure (median of each binary)':<44} {'base':>12} {'new':>12} {'new/base':>9}")
for key, name in (("healthz", "(1) GET /healthz, req/s"), ("single", "(1b) CM 1 recipient, req/s"),
                  ("bulk", "(1c) CM 1,000 recipients, recipients/s")):
    base, new = statistics.median(values[f"base_{key}"]), statistics.median(values[f"new_{key}"])
    print(f"   {name:<44} {base:>12,.0f} {new:>12,.0f} {new / base:>9.3f}")
PY
