#!/usr/bin/env bash
# Several nodes on one PostgreSQL (docs/cluster.md), run by scripts/bench-postgres.sh on its PostgreSQL server: for
# one, two and three `tandem serve` nodes on a fresh database each,
#  (C1) single-recipient CM accept, POST /v1.0/message JSON, durable before the reply: one wrk per node, in parallel,
#       -t1 and 64 connections split between them, 10 s (a load balancer's round robin, without its cost);
#  (C2) BWMI receipts: PUT /bwmi/{appKey}/acks, one live managed notification each (the notifications sent
#       round-robin through the nodes beforehand, so each node owns a share), the acks spread over the nodes by the
#       same wrk split — with n nodes, (n−1)/n of them reach a node that does not own the delivery and are forwarded;
#  (C3) device API receipts: PUT /v1.0/messages (MAC-signed delivery acks), one in-flight push each, spread the same way;
# and for each: the PostgreSQL server's CPU share, and its cost per accepted delivery / per receipt: statements
# (pg_stat_statements' calls) and bytes of WAL (pg_current_wal_lsn). Nodes, PostgreSQL and wrk share this machine's
# cores, so the figures do not rise with nodes here; they say what a delivery costs the database.
# Usage: scripts/bench-cluster.sh path/to/tandem WORKDIR   (PG_HOST, PG_DATA set by scripts/bench-postgres.sh)
set -euo pipefail
bin="$1"; work="$2"
source "$(dirname "$0")/bench-lib.sh"
export TANDEM_BENCH_CLUSTER_SECRET="bench-cluster-secret-of-at-least-32-bytes"
# Enough live notifications that no ack of the 10 s repeats one (a repeated ack is answered without a write).
notifications=100000
receipt_deliveries=100000
devices=1000
psql_db() { psql -h "$PG_HOST" -U tandem -d "$1" -XAtq -F '|' -c "$2"; }
# db_counters DB: "statements wal_bytes" so far (statements over every database: the nodes' own).
db_counters() {
  psql_db "$1" "SELECT (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements), pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')" | tr '|' ' '
}
# cost_per COUNT S0 W0 S1 W1: the statements and WAL bytes between two db_counters readings, per one of COUNT.
cost_per() {
  python3 -c "n, s0, w0, s1, w1 = $1, $2, $3, $4, $5; print(f'{(s1 - s0) / max(n, 1):.1f} statements, {(w1 - w0) / max(n, 1):,.0f} bytes of WAL')"
}
# thousands X: X rounded, with thousands separators.
thousands() { python3 -c "print(f'{$1:,.0f}')"; }
nodes_pids=()
stop_nodes() { for pid in "${nodes_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
               for pid in "${nodes_pids[@]}"; do wait "$pid" 2>/dev/null || true; done; nodes_pids=(); }
trap stop_nodes EXIT

for n in 1 2 3; do
  db="cluster$n"
  createdb -h "$PG_HOST" -U tandem "$db"
  psql_db "$db" "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" > /dev/null
  cat > "$work/$db.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 },
  "database": { "url": "postgresql:///$db?host=$PG_HOST&user=tandem" },
  "policies": "$(pwd)/Policies", "log": { "accessLog": false }, "simulator": { "logEvents": false },
  "scheduler": { "expectedTimers": $((notifications * 2 + receipt_deliveries + 1000)) },
  "deviceAPI": { "hosts": ["bench.tandem.test"] },
  "cluster": { "node": "node-1", "secret": { "env": "TANDEM_BENCH_CLUSTER_SECRET" }, "renewInterval": "500ms",
               "leaseLifetime": "3s", "safetyMargin": "1s", "maxClaimsPerRound": 256 } }
JSON
  token=$("$bin" account create Bench --config "$work/$db.json" | awk '/product token/ {print $3}')
  app=$("$bin" app create BenchApp --account "$token" --config "$work/$db.json")
  key=$(awk '/app key/ {print $3}' <<< "$app"); secret=$(awk '/app secret/ {print $3}' <<< "$app")
  # BWMI devices as PUT /devices leaves them; `noack` tokens: the simulated app never acknowledges, so every managed
  # notification stays live until wrk acknowledges it.
  psql_db "$db" "INSERT INTO registrations (device_id, app_id, platform, push_token, status, origin, created_at, updated_at)
    SELECT '00000000-0000-4000-8000-' || lpad(i::text, 12, '0'), (SELECT id FROM apps WHERE app_key = '$key'),
           'Android', 'noack-' || i, 'Unverified', 'bwmi', 0, 0 FROM generate_series(1, $devices) i;
    INSERT INTO bwmi_devices (registration_id, app_id, phone) SELECT id, app_id, NULL FROM registrations WHERE origin = 'bwmi';
    INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
    SELECT '00000000-0000-4000-9000-' || lpad(i::text, 12, '0'), (SELECT id FROM apps WHERE app_key = '$key'),
           '+316' || lpad(i::text, 8, '0'), 'Android', 'noack-d-' || i, 'PinVerified', 0, 0 FROM generate_series(1, $devices) i" > /dev/null
  urls=()
  for i in $(seq 1 "$n"); do
    TANDEM_CLUSTER_NODE="node-$i" start_server "$bin" "$work/$db.json" "$work/$db-node$i"
    nodes_pids+=("$server"); urls+=("$url")
  done
  # Until the nodes hold every partition between them, each its share.
  python3 - "${urls[@]}" <<'PY'
import json, sys, time, urllib.request
urls, deadline = sys.argv[1:], time.time() + 60
while True:
    held = [json.loads(urllib.request.urlopen(u + "/healthz", timeout=5).read())["cluster"]["partitions"] for u in urls]
    if sum(held) == 256 and max(held) - min(held) <= 1:
        break
    assert time.time() < deadline, f"partitions not shared out: {held}"
    time.sleep(0.2)
PY
  python3 - "$token" "$work/$db-single.lua" <<'PY'
import json, sys
body = json.dumps({"messages": {"authentication": {"producttoken": sys.argv[1]}, "msg": [
    {"from": "Bench", "to": [{"number": "0031612345678"}], "body": {"content": "Your code is 123456"}, "reference": "bench"}]}})
with open(sys.argv[2], "w") as lua:
    lua.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = ' + json.dumps(body) + "\n")
PY
  # parallel_wrk NAME SCRIPT PATH [SECONDS]: one wrk per node at once (default 10 s), 64 connections split; sums
  # requests/s, worst p99.
  parallel_wrk() {
    local pids=() i=0
    for u in "${urls[@]}"; do
      i=$((i + 1))
      OFFSET=$((i - 1)) NODES=$n wrk -t1 -c$((64 / n)) -d"${4:-10}"s --latency -s "$2" "$u$3" > "$work/wrk-$db-$1-$i.txt" &
      pids+=($!)
    done
    wait "${pids[@]}"
    python3 - "$work"/wrk-$db-$1-*.txt <<'PY'
import re, sys
def ms(text):
    number, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]
total = requests = bad = 0; worst = 0.0
for name in sys.argv[1:]:
    text = open(name).read()
    total += float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    requests += int(re.search(r"(\d+) requests in", text).group(1))
    found = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    bad += int(found.group(1)) if found else 0
    worst = max(worst, ms(re.search(r"\s99%\s+(\S+)", text).group(1)))
print(f"{total:.0f} {worst:.2f}ms {requests} {bad}")
PY
  }
  deliveries() { psql_db "$db" "SELECT count(*) FROM deliveries"; }

  # (C1) accept
  before=$(deliveries); read -r s0 w0 <<< "$(db_counters "$db")"; t0=$(pg_ticks)
  read -r rps p99 requests bad <<< "$(parallel_wrk single "$work/$db-single.lua" /v1.0/message)"
  t1=$(pg_ticks); read -r s1 w1 <<< "$(db_counters "$db")"; sleep 0.5; after=$(deliveries)
  stored=$((after - before))
  per=$(cost_per "$stored" "$s0" "$w0" "$s1" "$w1")
  echo "== (C1) $n node(s): POST /v1.0/message, 1 recipient, one wrk -t1 -c$((64 / n)) per node, 10 s"
  printf '   requests/s: %s (sum)   worst p99: %s   requests: %s, non-2xx: %s, deliveries stored: %s\n' \
    "$(thousands "$rps")" "$p99" "$requests" "$bad" "$stored"
  echo "   PostgreSQL CPU: $(pg_share $((t1 - t0)) 10); per accepted delivery: $per (statements and WAL of the whole run)"
  record "cluster${n}_accept_rps" "$rps"; record "cluster${n}_accept_p99" "$p99"; record "cluster${n}_accept_dbcpu" "$(pg_share $((t1 - t0)) 10)"
  record "cluster${n}_accept_cost" "$per"

  # (C2) receipts: the notifications, round-robin through the nodes (each creates them in its own partitions).
  python3 - "$token" "$key" "$devices" "$((notifications / devices))" "${urls[@]}" <<'PY'
import http.client, json, sys, threading, urllib.parse
token, key, devices, requests, urls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
body = json.dumps({"to": [{"deviceId": "noack-%d" % i} for i in range(1, devices + 1)], "text": "Gate changed",
                   "bid": "GATE_CHANGE", "faf": False})
def send(index, count):
    host = urllib.parse.urlsplit(urls[index % len(urls)])
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=600)
    for _ in range(count):
        connection.request("POST", f"/bwmi/{key}/notifications", body, {"Content-Type": "application/json", "X-CM-PRODUCTTOKEN": token})
        response = connection.getresponse(); reply = json.loads(response.read())
        assert response.status == 201 and len(reply["notifications"]) == devices, (response.status, reply)
threads = [threading.Thread(target=send, args=(i, requests // 4 + (1 if i < requests % 4 else 0))) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
PY
  psql_db "$db" "SELECT n.delivery_id, r.push_token FROM bwmi_notifications n JOIN registrations r ON r.id = n.registration_id
    WHERE n.acked_at IS NULL ORDER BY random()" > "$work/$db-acks.txt"
  live=$(wc -l < "$work/$db-acks.txt")
  # Each node's wrk takes every n-th line from its own offset: the acks spread evenly, most to non-owners.
  acks_lua "$work/$db-acks.txt" "$key" "$work/$db-acks.lua"
  acked_before=$(psql_db "$db" "SELECT count(*) FROM bwmi_notifications WHERE acked_at IS NOT NULL")
  read -r s0 w0 <<< "$(db_counters "$db")"; t0=$(pg_ticks)
  read -r rps p99 requests bad <<< "$(parallel_wrk acks "$work/$db-acks.lua" "")"
  t1=$(pg_ticks); read -r s1 w1 <<< "$(db_counters "$db")"; sleep 1
  acked=$(( $(psql_db "$db" "SELECT count(*) FROM bwmi_notifications WHERE acked_at IS NOT NULL") - acked_before ))
  per=$(cost_per "$acked" "$s0" "$w0" "$s1" "$w1")
  echo "== (C2) $n node(s): PUT /bwmi/{appKey}/acks (receipts; $((n - 1)) in $n forwarded to the owner), one wrk -t1 -c$((64 / n)) per node, 10 s"
  printf '   acks/s: %s (sum)   worst p99: %s   requests: %s, non-2xx: %s, acknowledged: %s of %s live\n' \
    "$(thousands "$rps")" "$p99" "$requests" "$bad" "$acked" "$live"
  [ "$requests" -le "$live" ] || echo "   !! more acks than live notifications: repeated acks (answered without a write) are counted"
  echo "   PostgreSQL CPU: $(pg_share $((t1 - t0)) 10); per ack: $per"
  record "cluster${n}_acks_rps" "$rps"; record "cluster${n}_acks_p99" "$p99"; record "cluster${n}_acks_dbcpu" "$(pg_share $((t1 - t0)) 10)"
  record "cluster${n}_acks_cost" "$per"

  # (C3) device API receipts: Default pushes to the verified installs (1,000 per request, round-robin through the
  # nodes; spooled, so each is started by the node holding its spool's partition), then one MAC-signed delivery ack
  # per delivery, spread over the nodes like the acks.
  python3 - "$token" "$key" "$devices" "$((receipt_deliveries / devices))" "${urls[@]}" <<'PY'
import http.client, json, sys, threading, urllib.parse
token, key, devices, requests, urls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
body = json.dumps({"messages": {"authentication": {"producttoken": token}, "msg": [
    {"from": "Bench", "to": [{"number": "+316%08d" % i} for i in range(1, devices + 1)], "body": {"content": "Hello"},
     "appKey": key, "allowedChannels": ["Push"]}]}})
def send(index, count):
    host = urllib.parse.urlsplit(urls[index % len(urls)])
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=600)
    for _ in range(count):
        connection.request("POST", "/v1.0/message", body, {"Content-Type": "application/json"})
        response = connection.getresponse(); response.read()
        assert response.status == 200, response.status
threads = [threading.Thread(target=send, args=(i, requests // 4 + (1 if i < requests % 4 else 0))) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
PY
  for _ in $(seq 1 600); do
    pending=$(psql_db "$db" "SELECT (SELECT count(*) FROM deliveries d JOIN registrations r ON r.msisdn = d.msisdn
                                     WHERE d.status <> 'Accepted' AND NOT d.final) + (SELECT count(*) FROM message_spools)")
    [ "$pending" = 0 ] && break
    sleep 0.1
  done
  psql_db "$db" "SELECT r.device_id, '{\"UpdateID\":\"' || d.id || '\",\"Status\":\"Delivered\"}'
    FROM deliveries d JOIN registrations r ON r.msisdn = d.msisdn WHERE NOT d.final ORDER BY random()" > "$work/$db-receipts.txt"
  prepared=$(wc -l < "$work/$db-receipts.txt")
  receipts_lua "$work/$db-receipts.txt" "$(device_mac "$key" "$secret")" "$work/$db-receipts.lua"
  acks_before=$(psql_db "$db" "SELECT count(*) FROM delivery_events WHERE kind = 'deliveryAcknowledged'")
  read -r s0 w0 <<< "$(db_counters "$db")"; t0=$(pg_ticks)
  read -r _ p99 requests bad <<< "$(parallel_wrk receipts "$work/$db-receipts.lua" "" 5)"
  t1=$(pg_ticks); read -r s1 w1 <<< "$(db_counters "$db")"; sleep 1
  recorded=$(( $(psql_db "$db" "SELECT count(*) FROM delivery_events WHERE kind = 'deliveryAcknowledged'") - acks_before ))
  # Counted from the 2xx answers: past its share of the in-flight deliveries, a wrk repeats its first (answered 4xx).
  rps=$(( (requests - bad) / 5 ))
  per=$(cost_per "$recorded" "$s0" "$w0" "$s1" "$w1")
  echo "== (C3) $n node(s): PUT /v1.0/messages (device API delivery acks, MAC-signed; $((n - 1)) in $n forwarded), one wrk -t1 -c$((64 / n)) per node, 5 s"
  printf '   receipts/s: %s (2xx, sum)   worst p99: %s   requests: %s, non-2xx: %s, recorded: %s of %s in flight\n' \
    "$(thousands "$rps")" "$p99" "$requests" "$bad" "$recorded" "$prepared"
  [ "$recorded" -lt "$prepared" ] || echo "   (every in-flight delivery was acknowledged before the end: the figure is a lower bound)"
  echo "   PostgreSQL CPU: $(pg_share $((t1 - t0)) 5); per receipt: $per"
  record "cluster${n}_receipts_rps" "$rps"; record "cluster${n}_receipts_p99" "$p99"
  record "cluster${n}_receipts_dbcpu" "$(pg_share $((t1 - t0)) 5)"; record "cluster${n}_receipts_cost" "$per"
  stop_nodes
done
trap - EXIT
