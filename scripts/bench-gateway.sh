#!/usr/bin/env bash
# Gateway benchmarks, run by scripts/bench.sh with the /healthz figure of the same run as the reference:
#  (1b) single-recipient JSON POST /v1.0/message — durable before the reply — wrk -t2 -c64 -d10s
#  (1b') the same through the SCG API: POST /scg-external-api/api/v1/messaging/message_requests with a bearer
#       token, one phone number, durable before the reply — wrk -t2 -c64 -d10s, right after (1b) on the same server
#  (1c) 1,000-recipient JSON requests — recipients/s accepted — wrk -t2 -c8 -d10s; such a message is spooled
#       (its recipient list stored as one row, durable before the reply) and started by the spool drainer, so
#       (1d) follows: the drainer's rate, deliveries started per second in the 10 s after the load stopped
# Every accepted recipient is counted in the database afterwards (deliveries + spooled recipients == 2xx
# requests × recipients).
# Usage: scripts/bench-gateway.sh path/to/tandem WORKDIR HEALTHZ_RPS
set -euo pipefail
bin="$1"; work="$2"; healthz="$3"
source "$(dirname "$0")/bench-lib.sh"
cat > "$work/gateway.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 }, "database": $(db_config gateway),
  "policies": "$(pwd)/Policies", "log": { "accessLog": false }, "simulator": { "logEvents": false } }
JSON
token=$("$bin" account create Bench --config "$work/gateway.json" | awk '/product token/ {print $3}')
scg_token=$("$bin" scg token create "$token" --label bench --config "$work/gateway.json" | awk '/^token:/ {print $2}')
python3 - "$token" "$work" "$scg_token" <<'PY'
import json, sys
token, work, scg_token = sys.argv[1], sys.argv[2], sys.argv[3]
with open(f"{work}/scg.lua", "w") as lua:
    lua.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
    lua.write('wrk.headers["Authorization"] = "Bearer ' + scg_token + '"\n')
    lua.write("wrk.body = " + json.dumps(json.dumps({"from": "Bench", "to": ["+31612345678"], "body": "Your code is 123456",
                                                      "external_id": "bench"})) + "\n")
def request(numbers):
    return json.dumps({"messages": {"authentication": {"producttoken": token}, "msg": [
        {"from": "Bench", "to": [{"number": n} for n in numbers], "body": {"content": "Your code is 123456"},
         "reference": "bench"}]}})
for name, numbers in (("single", ["0031612345678"]), ("bulk", ["00316%08d" % i for i in range(1000)])):
    body = request(numbers)
    with open(f"{work}/{name}.lua", "w") as lua:
        lua.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
        lua.write("wrk.body = " + json.dumps(body) + "\n")
PY
start_server "$bin" "$work/gateway.json" "$work/gateway"
trap 'kill "$server" 2>/dev/null || true' EXIT

# Accepted recipients stored: those with a delivery and those still waiting in a spool.
count() { dbq gateway "SELECT (SELECT count(*) FROM deliveries) + (SELECT coalesce(sum(total - started), 0) FROM message_spools)"; }
started() { dbq gateway "SELECT count(*) FROM deliveries"; }
run() {  # name connections duration [path]
  wrk -t2 -c"$2" -d"$3" --latency -s "$work/$1.lua" "$url${4:-/v1.0/message}" > "$work/wrk-$1.txt"
}

before=$(count); pg_before=$(pg_ticks)
run single 64 10s
pg_used=$(( $(pg_ticks) - pg_before ))
read -r rps p50 p99 requests bad <<< "$(wrk_summary "$work/wrk-single.txt")"
sleep 0.5; after=$(count)
echo "== (1b) POST /v1.0/message, 1 recipient, JSON: wrk -t2 -c64 -d10s (http.threads 2, durable before reply)"
printf '   requests/s: %s   p50: %s   p99: %s   beside /healthz %s req/s (ratio %s)   (target >= 20,000 req/s, p99 < 10 ms)\n' \
  "$rps" "$p50" "$p99" "$healthz" "$(python3 -c "print(f'{$rps/$healthz:.2f}')")"
printf '   requests completed: %s, non-2xx: %s, deliveries stored: %s\n' "$requests" "$bad" "$((after - before))"
if on_postgres; then echo "   PostgreSQL server CPU during the run: $(pg_share "$pg_used" 10)"; record single_dbcpu "$(pg_share "$pg_used" 10)"; fi
record single_rps "$rps"; record single_p50 "$p50"; record single_p99 "$p99"; record single_requests "$requests"
record single_non2xx "$bad"; record single_stored "$((after - before))"; record single_conditions "POST /v1.0/message JSON, 1 recipient, durable before reply; wrk -t2 -c64 -d10s"
single_rps=$rps

before=$(count)
run scg 64 10s /scg-external-api/api/v1/messaging/message_requests
read -r rps p50 p99 requests bad <<< "$(wrk_summary "$work/wrk-scg.txt")"
sleep 0.5; after=$(count)
echo "== (1b') POST /scg-external-api/api/v1/messaging/message_requests, 1 phone number: wrk -t2 -c64 -d10s (bearer token, durable before reply)"
printf '   requests/s: %s   p50: %s   p99: %s   beside the CM single-recipient %s req/s of this run (ratio %s)   (target >= 0.9x)\n' \
  "$rps" "$p50" "$p99" "$single_rps" "$(python3 -c "print(f'{$rps/$single_rps:.2f}')")"
printf '   requests completed: %s, non-2xx: %s, deliveries stored: %s\n' "$requests" "$bad" "$((after - before))"
record scg_rps "$rps"; record scg_p50 "$p50"; record scg_p99 "$p99"; record scg_requests "$requests"
record scg_non2xx "$bad"; record scg_stored "$((after - before))"; record scg_conditions "POST …/messaging/message_requests JSON, Authorization: Bearer, 1 phone number, durable before reply; wrk -t2 -c64 -d10s after (1b) on the same server"

before=$(count); started_before=$(started); pg_before=$(pg_ticks)
run bulk 8 10s
drain_from=$(started); pg_used=$(( $(pg_ticks) - pg_before ))
read -r rps p50 p99 requests bad <<< "$(wrk_summary "$work/wrk-bulk.txt")"
sleep 0.5; after=$(count)
echo "== (1c) POST /v1.0/message, 1,000 recipients per request (spooled): wrk -t2 -c8 -d10s"
printf '   recipients/s: %s   (%s requests/s, p50 %s, p99 %s)   (target >= 200,000 recipients/s)\n' \
  "$(python3 -c "print(f'{$rps*1000:,.0f}')")" "$rps" "$p50" "$p99"
printf '   requests completed: %s, non-2xx: %s, recipients stored: %s (%s of them started during the run)\n' \
  "$requests" "$bad" "$((after - before))" "$((drain_from - started_before))"
if on_postgres; then echo "   PostgreSQL server CPU during the run: $(pg_share "$pg_used" 10)"; record bulk_dbcpu "$(pg_share "$pg_used" 10)"; fi
pg_before=$(pg_ticks)
sleep 9.5; drain_to=$(started)
pg_used=$(( $(pg_ticks) - pg_before ))
drain=$(( (drain_to - drain_from) / 10 ))
echo "== (1d) the spool drainer after the load: deliveries started (routed, SMS sent to the simulator) per second"
printf '   started/s: %s   (%s in 10 s; %s recipients still queued)\n' "$drain" "$((drain_to - drain_from))" "$(( $(count) - drain_to ))"
record bulk_drain_per_s "$drain"
if on_postgres; then echo "   PostgreSQL server CPU while draining: $(pg_share "$pg_used" 9.5)"; record drain_dbcpu "$(pg_share "$pg_used" 9.5)"; fi
record bulk_rps "$rps"; record bulk_recipients_per_s "$(python3 -c "print(f'{$rps*1000:.0f}')")"; record bulk_p99 "$p99"
record bulk_requests "$requests"; record bulk_non2xx "$bad"; record bulk_stored "$((after - before))"
record bulk_conditions "POST /v1.0/message JSON, 1,000 recipients per request, spooled, durable before reply; wrk -t2 -c8 -d10s; recipients/s = req/s × 1,000"
kill -TERM "$server"; wait "$server" || true
trap - EXIT
