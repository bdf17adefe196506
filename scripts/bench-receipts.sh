#!/usr/bin/env bash
# Receipts benchmark, run by scripts/bench.sh with the /healthz figure of the same run as the reference:
#  (1d) PUT /v1.0/messages (delivery acks), MAC-signed as an SDK signs them, one distinct in-flight delivery per
#       request, pre-generated; wrk -t2 -c256 -d5s (CONNECTIONS=… to change). Each receipt is committed
#       (scheduler event + delivery update) before its 204. Afterwards every acknowledged delivery is counted in
#       the database. A run in which the server used less than one core while answering in milliseconds (held
#       up outside it) is reported and measured once more. PERF=1 also records a perf profile of the server during the run.
# Usage: scripts/bench-receipts.sh path/to/tandem WORKDIR HEALTHZ_RPS [DELIVERIES]
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
bin="$1"; work="$2"; healthz="$3"; deliveries="${4:-400000}"; connections="${CONNECTIONS:-256}"
devices=1000
cat > "$work/receipts.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 }, "database": $(db_config receipts),
  "policies": "$(pwd)/Policies", "log": { "accessLog": false }, "simulator": { "logEvents": false },
  "scheduler": { "expectedTimers": $((deliveries + 1000)) },
  "deviceAPI": { "hosts": ["bench.tandem.test"] } }
JSON
token=$("$bin" account create Bench --config "$work/receipts.json" | awk '/product token/ {print $3}')
app=$("$bin" app create BenchApp --account "$token" --config "$work/receipts.json")
key=$(awk '/app key/ {print $3}' <<< "$app"); secret=$(awk '/app secret/ {print $3}' <<< "$app")
# Verified, pushable installs, one per number (as the device API leaves them after a PIN check). Their tokens
# start `noack`: the push simulator accepts those pushes and its simulated app never acknowledges them, so every
# receipt wrk sends is the first for a delivery still in flight (other tokens the simulated app would ack and read
# itself, and the run would measure receipts for deliveries already final).
if on_postgres; then
  dbq receipts "INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
    SELECT format('00000000-0000-4000-8000-%s', lpad(i::text, 12, '0')), (SELECT id FROM apps WHERE app_key = '$key'),
           format('+316%s', lpad(i::text, 8, '0')), 'Android', format('noack-%s', i), 'PinVerified', 0, 0
    FROM generate_series(1, $devices) AS i"
else
  dbq receipts "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $devices)
    INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
    SELECT printf('00000000-0000-4000-8000-%012d', i), (SELECT id FROM apps WHERE app_key = '$key'),
           printf('+316%08d', i), 'Android', printf('noack-%d', i), 'PinVerified', 0, 0 FROM n"
fi

start_server "$bin" "$work/receipts.json" "$work/receipts"
trap 'kill "$server" 2>/dev/null || true' EXIT

# The deliveries to acknowledge: Default pushes to every install, 1,000 recipients per request, 4 senders.
python3 - "$url" "$token" "$key" "$devices" "$((deliveries / devices))" <<'PY'
import http.client, json, sys, threading, urllib.parse
url, token, key, devices, requests = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
body = json.dumps({"messages": {"authentication": {"producttoken": token}, "msg": [
    {"from": "Bench", "to": [{"number": "+316%08d" % i} for i in range(1, devices + 1)], "body": {"content": "Hello"},
     "appKey": key, "allowedChannels": ["Push"]}]}})
host = urllib.parse.urlsplit(url)
def send(count):
    connection = http.client.HTTPConnection(host.hostname, host.port)
    for _ in range(count):
        connection.request("POST", "/v1.0/message", body, {"Content-Type": "application/json"})
        response = connection.getresponse(); response.read()
        assert response.status == 200, response.status
threads = [threading.Thread(target=send, args=(requests // 4 + (1 if i < requests % 4 else 0),)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
PY
for _ in $(seq 1 600); do
  # Every push accepted, and every spooled recipient started (1,000-recipient messages are spooled).
  pending=$(dbq receipts "SELECT (SELECT count(*) FROM deliveries WHERE status <> 'Accepted') + (SELECT count(*) FROM message_spools)")
  [ "$pending" = 0 ] && break
  sleep 0.1
done
stored=$(dbq receipts "SELECT count(*) FROM deliveries")

# One pre-generated receipt per delivery still in flight: "DeviceID|body". The MAC covers method, target, host
# and second only (the same for every install of the app), so one signature serves every request of this run.
write_receipts() {
  dbq receipts "SELECT r.device_id, '{\"UpdateID\":\"' || d.id || '\",\"Status\":\"Delivered\"}'
    FROM deliveries d JOIN registrations r ON r.msisdn = d.msisdn WHERE NOT d.final ORDER BY d.id" > "$work/receipts.txt"
}
auth=$(device_mac "$key" "$secret")
# Every request is formatted once, in init, so the load generator spends its CPU sending, not formatting.
receipts_lua "$work/receipts.txt" "$auth" "$work/receipts.lua"
acked() { dbq receipts "SELECT count(*) FROM delivery_events WHERE kind = 'deliveryAcknowledged'"; }

# One 5 s load on the deliveries still in flight. Sets rps p50 p99 requests bad (of wrk), acked (acks recorded
# meanwhile: `recorded`) and server_cpu (% of one core).
measure() {
  write_receipts
  local before cpu_before cpu_after
  before=$(acked); cpu_before=$(server_ticks); pg_before=$(pg_ticks)
  # PERF=1: profile the server during the run (perf record; report with `perf report -i WORKDIR/perf.data`).
  [ -z "${PERF:-}" ] || { perf record -F 499 ${PERFG:--g} -p "$server" -o "$work/perf.data" -- sleep 5 2> /dev/null & }
  WRK_THREADS=2 wrk -t2 -c"$connections" -d5s --latency -s "$work/receipts.lua" "$url" > "$work/wrk-receipts.txt"
  cpu_after=$(server_ticks); pg_used=$(( $(pg_ticks) - pg_before ))
  sleep 0.5; recorded=$(( $(acked) - before ))
  read -r rps p50 p99 requests bad <<< "$(wrk_summary "$work/wrk-receipts.txt")"
  server_cpu=$(( (cpu_after - cpu_before) * 100 / $(getconf CLK_TCK) / 5 ))
}

echo "== (1d) PUT /v1.0/messages (delivery acks, MAC-signed, one in-flight delivery each): wrk -t2 -c$connections -d5s"
measure
# A run held up outside the server (`held_up`; seen here twice in about 50 runs) is reported, and measured once more on
# the deliveries still in flight, the figure being the second run's.
total_requests=$requests; total_bad=$bad; total_acked=$recorded
if held_up "$server_cpu" "$p99" \
   && [ "$(dbq receipts "SELECT count(*) FROM deliveries WHERE NOT final")" -ge 300000 ]; then
  printf '   first run held up: %s receipts/s, p99 %s, with the server using %s%% of one core: measured again\n' \
    "$rps" "$p99" "$server_cpu"
  record receipts_held_up "$rps receipts/s, server CPU $server_cpu% of one core"
  measure
  total_requests=$((total_requests + requests)); total_bad=$((total_bad + bad)); total_acked=$((total_acked + recorded))
fi
final=$(dbq receipts "SELECT count(*) FROM deliveries WHERE final AND status = 'Delivered'")
printf '   receipts/s: %s   p50: %s   p99: %s   beside /healthz %s req/s (ratio %s)   (target >= 50,000/s, none dropped)\n' \
  "$rps" "$p50" "$p99" "$healthz" "$(python3 -c "print(f'{$rps/$healthz:.2f}')")"
printf '   deliveries prepared: %s; requests completed: %s, non-2xx: %s; acks recorded: %s (≥ 2xx; the excess is what was in flight at the cut-off); deliveries now Delivered: %s\n' \
  "$stored" "$total_requests" "$total_bad" "$total_acked" "$final"
printf '   server CPU during the run: %s%% of one core (wrk shares the same %s cores)\n' "$server_cpu" "$(nproc)"
if on_postgres; then echo "   PostgreSQL server CPU during the run: $(pg_share "$pg_used" 5)"; record receipts_dbcpu "$(pg_share "$pg_used" 5)"; fi
record receipts_rps "$rps"; record receipts_p50 "$p50"; record receipts_p99 "$p99"; record receipts_requests "$total_requests"
record receipts_non2xx "$total_bad"; record receipts_acked "$total_acked"; record receipts_prepared "$stored"
record receipts_conditions "PUT /v1.0/messages, MAC-signed, pre-generated, one in-flight delivery each, committed before the 204; wrk -t2 -c$connections -d5s"
if [ "$total_bad" != 0 ] || [ "$total_acked" -lt $((total_requests - total_bad)) ]; then
  echo "   RECEIPTS LOST OR REFUSED"; grep -m5 '"level":"error"' "$work/receipts.log" || true
fi
kill -TERM "$server"; wait "$server" || true
trap - EXIT
