#!/usr/bin/env bash
# myMSP benchmark, run by scripts/bench.sh with the /healthz figure of the same run as the reference:
#  (1f) POST /external/notifications/send to one recipient (a form with user, pwd, message, recipients), each answered
#       A + msgno once the notification and its delivery are committed; wrk -t2 -c64 -d5s.
#  (1g) GET /external/notifications/get for a recipient with one notification (its line, and the delivery
#       acknowledgement handed to the scheduler); wrk -t2 -c64 -d5s.
# The abuse limits are turned off (`null`) so that the run measures the work, not the refusals.
# Usage: scripts/bench-mymsp.sh path/to/tandem WORKDIR HEALTHZ_RPS
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
bin="$1"; work="$2"; healthz="$3"; connections="${CONNECTIONS:-64}"
db="$work/mymsp.sqlite"
cat > "$work/mymsp.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 }, "database": { "path": "$db" },
  "policies": "$(pwd)/Policies", "log": { "accessLog": false }, "simulator": { "logEvents": false },
  "mymsp": { "subscribesPerClientIP": null, "subscribesPerUser": null, "getsPerClientIP": null, "getsPerUser": null } }
JSON
token=$("$bin" account create Bench --config "$work/mymsp.json" | awk '/product token/ {print $3}')
key=$("$bin" app create BenchApp --account "$token" --config "$work/mymsp.json" | awk '/app key/ {print $3}')
BENCH_MYMSP_PASSWORD=bench-password-0123456789 "$bin" app set-mymsp "$key" --user bench --password-env BENCH_MYMSP_PASSWORD \
  --config "$work/mymsp.json" > /dev/null

start_server "$bin" "$work/mymsp.json" "$work/mymsp"
trap 'kill "$server" 2>/dev/null || true' EXIT
# Two recipients whose simulated app never acknowledges (`noack` tokens): one for the sends, one for the gets.
sender=$(curl -fsS "$url/external/notifications/subscribe" -d user=bench -d spid=fcm -d key=noack-send | sed -n 2p)
getter=$(curl -fsS "$url/external/notifications/subscribe" -d user=bench -d spid=fcm -d key=noack-get | sed -n 2p)
curl -fsS "$url/external/notifications/send" -d user=bench -d pwd=bench-password-0123456789 -d message=Hello \
  -d recipients="$getter" > "$work/mymsp-first.txt"
grep -q '^A$' "$work/mymsp-first.txt" || { echo "   send refused: $(cat "$work/mymsp-first.txt")"; exit 1; }

cat > "$work/mymsp-send.lua" <<LUA
wrk.method = "POST"
wrk.body = "user=bench&pwd=bench-password-0123456789&message=Hello+from+the+benchmark&recipients=$sender"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
LUA
ratio() { python3 -c "print(f'{$1/$healthz:.2f}')"; }

echo "== (1f) POST /external/notifications/send (1 recipient, committed before A + msgno): wrk -t2 -c$connections -d5s"
before=$(sqlite3 "$db" "SELECT count(*) FROM messages WHERE api = 'mymsp'")
wrk -t2 -c"$connections" -d5s --latency -s "$work/mymsp-send.lua" "$url/external/notifications/send" > "$work/wrk-mymsp-send.txt"
read -r rps p50 p99 requests bad <<< "$(wrk_summary "$work/wrk-mymsp-send.txt")"
stored=$(( $(sqlite3 "$db" "SELECT count(*) FROM messages WHERE api = 'mymsp'") - before ))
printf '   requests/s: %s   p50: %s   p99: %s   beside /healthz %s req/s (ratio %s, target >= 0.2)\n' \
  "$rps" "$p50" "$p99" "$healthz" "$(ratio "$rps")"
printf '   requests completed: %s, non-2xx: %s; notifications stored: %s\n' "$requests" "$bad" "$stored"
record mymspsend_rps "$rps"; record mymspsend_p50 "$p50"; record mymspsend_p99 "$p99"; record mymspsend_non2xx "$bad"
record mymspsend_requests "$requests"; record mymspsend_stored "$stored"

echo "== (1g) GET /external/notifications/get (one notification listed, its ack to the scheduler): wrk -t2 -c$connections -d5s"
wrk -t2 -c"$connections" -d5s --latency "$url/external/notifications/get?user=bench&recipientid=$getter&lastmsgno=0" \
  > "$work/wrk-mymsp-get.txt"
read -r rps p50 p99 requests bad <<< "$(wrk_summary "$work/wrk-mymsp-get.txt")"
printf '   requests/s: %s   p50: %s   p99: %s   beside /healthz %s req/s (ratio %s, target >= 0.4)\n' \
  "$rps" "$p50" "$p99" "$healthz" "$(ratio "$rps")"
printf '   requests completed: %s, non-2xx: %s; the answer: %s\n' "$requests" "$bad" \
  "$(curl -fsS "$url/external/notifications/get?user=bench&recipientid=$getter&lastmsgno=0" | tr '\n\t' '| ')"
record mymspget_rps "$rps"; record mymspget_p50 "$p50"; record mymspget_p99 "$p99"; record mymspget_non2xx "$bad"
kill -TERM "$server"; wait "$server" || true
trap - EXIT
