#!/usr/bin/env bash
# Start-up after a crash with a large campaign in flight, run by scripts/bench.sh:
#  (7) a real `tandem serve` on the default simulator providers holds N Default pushes to verified `noack` installs
#      (accepted by the simulated provider, never acknowledged: each stays in flight, as in section 6), sent 1,000
#      recipients per request. Its RSS is read, then it is killed with SIGKILL and started again on the same database.
#      Measured from the new process's start: the time until it listens (its URL printed), until a new message is
#      accepted (a CM send answered Accepted, durable), and until every delivery is back in memory (its
#      "deliveries recovered" log line); then its RSS once recovered, beside the RSS before the crash.
#      Reference, same run: the time a plain SELECT of the same rows takes in the sqlite3 shell (every column the
#      recovery reads, summed so that each value is read; no decoding).
# Usage: scripts/bench-recovery.sh path/to/tandem WORKDIR [N]
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
bin="$1"; work="$2"; n="${3:-1000000}"
[ $((n % 2000)) = 0 ] || { echo "N must be a multiple of 2,000"; exit 2; }
db="$work/recovery.sqlite"
cat > "$work/recovery.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 }, "database": { "path": "$db" },
  "policies": "$(pwd)/Policies", "log": { "accessLog": false }, "simulator": { "logEvents": false },
  "scheduler": { "expectedTimers": $((n + 1000)) } }
JSON
token=$("$bin" account create Bench --config "$work/recovery.json" | awk '/product token/ {print $3}')
key=$("$bin" app create BenchApp --account "$token" --config "$work/recovery.json" | awk '/app key/ {print $3}')
sqlite3 "$db" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $n)
  INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
  SELECT printf('00000000-0000-4000-8000-%012d', i), (SELECT id FROM apps WHERE app_key = '$key'),
         printf('+316%08d', i), 'Android', printf('noack-%d', i), 'PinVerified', 0, 0 FROM n"

start_server "$bin" "$work/recovery.json" "$work/recovery-1"
trap 'kill -9 "$server" 2>/dev/null || true' EXIT
started=$(date +%s.%N)
send 1 "$n"; await_accepted "$n"
filled=$(python3 -c "import time; print(f'{time.time() - $started:.1f}')")
before=$(rss)
kill -9 "$server"; wait "$server" 2>/dev/null || true
in_flight=$(sqlite3 "$db" "SELECT count(*) FROM deliveries WHERE final = 0")

# The reference: the same rows through a plain SELECT, each value read.
select_s=$(python3 - "$db" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
t = time.perf_counter()
db.execute("""SELECT count(*), sum(length(d.msisdn)), sum(length(d.snapshot)), sum(length(m.message_id)), sum(length(m.sender)),
                     sum(length(m.body)), sum(length(m.reference)), sum(m.dcs), sum(length(p.app_key))
              FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN apps p ON p.id = m.app_id
              WHERE d.final = 0""").fetchall()
print(f"{time.perf_counter() - t:.2f}")
PY
)

launched=$(date +%s.%N)
start_server "$bin" "$work/recovery.json" "$work/recovery-2"
listening=$(python3 -c "import time; print(f'{time.time() - $launched:.2f}')")
accept_s=$(python3 - "$url" "$token" "$launched" <<'PY'
import http.client, json, sys, time, urllib.parse
url, token, launched = sys.argv[1], sys.argv[2], float(sys.argv[3])
host = urllib.parse.urlsplit(url)
connection = http.client.HTTPConnection(host.hostname, host.port, timeout=60)
connection.request("POST", "/v1.0/message", json.dumps({"messages": {"authentication": {"producttoken": token}, "msg": [
    {"from": "Bench", "to": [{"number": "+31699999999"}], "body": {"content": "Your code is 123456"}, "reference": "during-recovery"}]}}),
    {"Content-Type": "application/json"})
response = connection.getresponse()
reply = json.loads(response.read())
assert response.status == 200 and reply["messages"][0]["status"] == "Accepted", reply
print(f"{time.time() - launched:.2f}")
PY
)
recovered_s=""
for _ in $(seq 1 1200); do
  if grep -q '"deliveries recovered"' "$work/recovery-2.log"; then
    recovered_s=$(python3 -c "import time; print(f'{time.time() - $launched:.2f}')"); break
  fi
  sleep 0.05
done
[ -n "$recovered_s" ] || { echo "   recovery did not finish within a minute"; exit 1; }
loaded=$(grep '"deliveries recovered"' "$work/recovery-2.log" | python3 -c "import json, sys; r = json.loads(sys.stdin.readline()); print(r['deliveries'], r['milliseconds'])")
sleep 2
after=$(rss)
kill -TERM "$server"; wait "$server" || true
trap - EXIT

mib() { python3 -c "print(f'{$1 / 1048576:.0f} MiB')"; }
echo "== (7) start-up after kill -9 with $n Default pushes in flight (noack devices, 1,000 recipients per request)"
printf '   listening after %s s; a new message accepted after %s s; every delivery back in memory after %s s (%s deliveries, %s ms by the server'"'"'s own count)\n' \
  "$listening" "$accept_s" "$recovered_s" ${loaded}
printf '   reference: plain SELECT of the same %s rows in the sqlite3 module: %s s\n' "$in_flight" "$select_s"
printf '   RSS before the crash %s, after recovery %s (%s); the %s deliveries were sent and accepted in %s s\n' \
  "$(mib "$before")" "$(mib "$after")" "$(python3 -c "print(f'{$after / $before * 100 - 100:+.1f}%')")" "$n" "$filled"
record recovery_n "$n"; record recovery_in_flight "$in_flight"; record recovery_listen_s "$listening"
record recovery_accept_s "$accept_s"; record recovery_full_s "$recovered_s"; record recovery_select_s "$select_s"
record recovery_rss_before "$before"; record recovery_rss_after "$after"
[ "$in_flight" = "$n" ] || { echo "   NOT ALL IN FLIGHT ($in_flight of $n)"; exit 1; }
