#!/usr/bin/env bash
# TIBCO BWMI acknowledgements benchmark, run by scripts/bench.sh with the /healthz figure of the same run as the reference:
#  (1e) PUT /bwmi/{appKey}/acks: one distinct live managed notification per request, pre-generated; wrk -t2 -c256 -d5s
#       (CONNECTIONS=… to change), as the receipts row (1d). The 201 follows the commit of the acknowledgement and of
#       the delivery's read receipt; the device's badge-only push (not a message: straight to the push simulator,
#       coalesced per device, in batches) is sent after it.
#       Afterwards every acknowledged notification and every read receipt is counted in the database: none may be lost.
#       A run held up outside the server (`held_up` in bench-lib.sh) is reported and measured once more.
# Usage: scripts/bench-bwmi.sh path/to/tandem WORKDIR HEALTHZ_RPS [NOTIFICATIONS]
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
bin="$1"; work="$2"; healthz="$3"; notifications="${4:-320000}"; connections="${CONNECTIONS:-256}"
devices=1000
db="$work/bwmi.sqlite"
cat > "$work/bwmi.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 }, "database": { "path": "$db" },
  "policies": "$(pwd)/Policies", "log": { "accessLog": false }, "simulator": { "logEvents": false },
  "scheduler": { "expectedTimers": $((notifications * 2 + 1000)) } }
JSON
token=$("$bin" account create Bench --config "$work/bwmi.json" | awk '/product token/ {print $3}')
key=$("$bin" app create BenchApp --account "$token" --config "$work/bwmi.json" | awk '/app key/ {print $3}')
# BWMI devices as PUT /devices leaves them. Their tokens start `noack`: the push simulator accepts those pushes and
# its simulated app never acknowledges them, so every notification stays live until wrk acknowledges it.
sqlite3 "$db" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $devices)
  INSERT INTO registrations (device_id, app_id, platform, push_token, status, origin, created_at, updated_at)
  SELECT printf('00000000-0000-4000-8000-%012d', i), (SELECT id FROM apps WHERE app_key = '$key'),
         'Android', printf('noack-%d', i), 'Unverified', 'bwmi', 0, 0 FROM n;
  INSERT INTO bwmi_devices (registration_id, app_id, phone) SELECT id, app_id, NULL FROM registrations WHERE origin = 'bwmi'"

start_server "$bin" "$work/bwmi.json" "$work/bwmi"
trap 'kill "$server" 2>/dev/null || true' EXIT

# The managed notifications to acknowledge: every device in each request, 4 senders.
python3 - "$url" "$token" "$key" "$devices" "$((notifications / devices))" <<'PY'
import http.client, json, sys, threading, urllib.parse
url, token, key, devices, requests = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
body = json.dumps({"to": [{"deviceId": "noack-%d" % i} for i in range(1, devices + 1)], "text": "Gate changed",
                   "bid": "GATE_CHANGE", "faf": False})
host = urllib.parse.urlsplit(url)
def send(count):
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=600)
    for _ in range(count):
        connection.request("POST", f"/bwmi/{key}/notifications", body,
                           {"Content-Type": "application/json", "X-CM-PRODUCTTOKEN": token})
        response = connection.getresponse(); reply = json.loads(response.read())
        assert response.status == 201 and len(reply["notifications"]) == devices, (response.status, reply.get("unreached"))
threads = [threading.Thread(target=send, args=(requests // 4 + (1 if i < requests % 4 else 0),)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
PY

live() { sqlite3 "$db" "SELECT count(*) FROM bwmi_notifications WHERE acked_at IS NULL"; }
stored=$(live)

# One 5 s load on the notifications still live, one pre-generated ack each ("nid|token"). Sets rps p50 p99 requests
# bad (of wrk) and server_cpu (% of one core).
measure() {
  sqlite3 -separator '|' "$db" "SELECT n.delivery_id, r.push_token FROM bwmi_notifications n
    JOIN registrations r ON r.id = n.registration_id WHERE n.acked_at IS NULL ORDER BY n.delivery_id" > "$work/bwmi-acks.txt"
  acks_lua "$work/bwmi-acks.txt" "$key" "$work/bwmi.lua"
  local cpu_before cpu_after
  cpu_before=$(server_ticks)
  WRK_THREADS=2 wrk -t2 -c"$connections" -d5s --latency -s "$work/bwmi.lua" "$url" > "$work/wrk-bwmi.txt"
  cpu_after=$(server_ticks)
  read -r rps p50 p99 requests bad <<< "$(wrk_summary "$work/wrk-bwmi.txt")"
  server_cpu=$(( (cpu_after - cpu_before) * 100 / $(getconf CLK_TCK) / 5 ))
}
echo "== (1e) PUT /bwmi/{appKey}/acks (one live managed notification each): wrk -t2 -c$connections -d5s"
measure
total_requests=$requests; total_bad=$bad
# A run held up outside the server (`held_up`) is reported and measured once more on the notifications still live
# (if at least half are), the figure being the second run's.
if held_up "$server_cpu" "$p99" && [ "$(live)" -ge $((stored / 2)) ]; then
  printf '   first run held up: %s acks/s, p99 %s, with the server using %s%% of one core: measured again\n' \
    "$rps" "$p99" "$server_cpu"
  record bwmi_acks_held_up "$rps acks/s, server CPU $server_cpu% of one core"
  measure
  total_requests=$((total_requests + requests)); total_bad=$((total_bad + bad))
fi
sleep 1
acked=$(sqlite3 "$db" "SELECT count(*) FROM bwmi_notifications WHERE acked_at IS NOT NULL")
reads=$(sqlite3 "$db" "SELECT count(*) FROM delivery_events WHERE kind = 'readReported'")
printf '   acks/s: %s   p50: %s   p99: %s   beside /healthz %s req/s (ratio %s)   (target >= 0.4x /healthz, none lost)\n' \
  "$rps" "$p50" "$p99" "$healthz" "$(python3 -c "print(f'{$rps/$healthz:.2f}')")"
printf '   notifications prepared: %s; requests completed: %s, non-2xx: %s; acknowledged: %s; read receipts: %s\n' \
  "$stored" "$total_requests" "$total_bad" "$acked" "$reads"
printf '   server CPU during the run: %s%% of one core (wrk shares the same %s cores)\n' "$server_cpu" "$(nproc)"
record bwmi_acks_rps "$rps"; record bwmi_acks_p50 "$p50"; record bwmi_acks_p99 "$p99"; record bwmi_acks_requests "$total_requests"
record bwmi_acks_non2xx "$total_bad"; record bwmi_acks_acked "$acked"
record bwmi_acks_conditions "PUT /bwmi/{appKey}/acks, one live notification each, acked and read receipt committed before the 201; wrk -t2 -c$connections -d5s"
if [ "$total_requests" -gt "$stored" ]; then
  echo "   MORE REQUESTS THAN NOTIFICATIONS: the later ones acknowledged notifications already acknowledged (raise NOTIFICATIONS)"
fi
if [ "$total_bad" != 0 ] || [ "$acked" -lt $((total_requests - total_bad)) ] || [ "$reads" -lt $((total_requests - total_bad)) ]; then
  echo "   ACKS LOST OR REFUSED"; grep -m5 '"level":"error"' "$work/bwmi.log" || true
fi
kill -TERM "$server"; wait "$server" || true
trap - EXIT
