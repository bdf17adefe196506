#!/usr/bin/env bash
# Resident memory per in-flight delivery, run by scripts/bench.sh:
#  (6) a real `tandem serve` on the default simulator providers (access log off). N verified Android installs
#      whose push tokens start with `noack` (the push simulator's built-in rule: accepted, never acknowledged),
#      one per number. After a warm-up of W such deliveries, the server's RSS (`process_resident_memory_bytes`
#      from GET /metrics) is read; then N Default pushes (allowedChannels Push, 1,000 recipients per request,
#      2 senders) are sent in two halves, and after each half — once every push has been accepted
#      (`pushAccepted` events) and 2 s have passed — RSS is read again. The Default policy has no timer-based
#      fallback, so each of these deliveries stays in flight (final = 0, checked in SQLite afterwards).
#      bytes per in-flight delivery = ΔRSS / N. Reference, same run: SQLite growth per delivery on disk
#      (database + WAL files). The RSS includes whatever the server keeps besides the deliveries themselves
#      (allocator retention of request buffers, SQLite page caches up to their limit); the second half's slope
#      is printed beside the whole to show how much of it is one-time growth.
# Usage: scripts/bench-memory.sh path/to/tandem WORKDIR [N]
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
bin="$1"; work="$2"; n="${3:-200000}"; warmup=2000
[ $((n % 2000)) = 0 ] || { echo "N must be a multiple of 2,000 (two halves of whole 1,000-recipient requests)"; exit 2; }
db="$work/memory.sqlite"
cat > "$work/memory.json" <<JSON
{ "listen": "127.0.0.1:0", "http": { "threads": 2 }, "database": { "path": "$db" },
  "policies": "$(pwd)/Policies", "log": { "accessLog": false }, "simulator": { "logEvents": false },
  "scheduler": { "expectedTimers": $((n + warmup + 1000)) } }
JSON
token=$("$bin" account create Bench --config "$work/memory.json" | awk '/product token/ {print $3}')
key=$("$bin" app create BenchApp --account "$token" --config "$work/memory.json" | awk '/app key/ {print $3}')
# Verified, pushable installs, one per number, tokens `noack-…` (numbers 1..W warm-up, W+1..W+N measured).
sqlite3 "$db" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $((n + warmup)))
  INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
  SELECT printf('00000000-0000-4000-8000-%012d', i), (SELECT id FROM apps WHERE app_key = '$key'),
         printf('+316%08d', i), 'Android', printf('noack-%d', i), 'PinVerified', 0, 0 FROM n"

start_server "$bin" "$work/memory.json" "$work/memory"
trap 'kill "$server" 2>/dev/null || true' EXIT
curl -fsS "$url/healthz" > /dev/null

disk() { local total=0 f; for f in "$db" "$db-wal"; do [ -f "$f" ] && total=$((total + $(stat -c %s "$f"))); done; echo "$total"; }

send 1 "$warmup"; await_accepted "$warmup"
idle=$(rss); idle_vm=$(vmrss); disk0=$(disk)
last_warmup=$(sqlite3 "$db" "SELECT max(id) FROM deliveries")
start=$(date +%s.%N)
send $((warmup + 1)) $((n / 2)); await_accepted $((warmup + n / 2))
half=$(rss); disk1=$(disk)
send $((warmup + n / 2 + 1)) $((n / 2)); await_accepted $((warmup + n))
seconds=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
full=$(rss); full_vm=$(vmrss); disk2=$(disk)
in_flight=$(sqlite3 "$db" "SELECT count(*) FROM deliveries WHERE id > $last_warmup AND final = 0")
states=$(sqlite3 "$db" "SELECT group_concat(state || ' ' || status || ': ' || c, ', ') FROM
  (SELECT state, status, count(*) c FROM deliveries WHERE id > $last_warmup GROUP BY state, status)")
rejected=$(sqlite3 "$db" "SELECT count(*) FROM delivery_events WHERE kind = 'pushRejected'")
kill -TERM "$server"; wait "$server" || true
trap - EXIT
closed=$(disk)

per() { python3 -c "print(f'{($2 - $1) / $3:.0f}')"; }
mib() { python3 -c "print(f'{$1 / 1048576:.1f} MiB')"; }
echo "== (6) resident memory per in-flight delivery: $n Default pushes to noack devices (never acknowledged), 1,000 recipients per request"
printf '   RSS idle (after %s warm-up deliveries): %s; after %s: %s; after %s: %s (VmRSS %s → %s)\n' \
  "$warmup" "$(mib "$idle")" "$((n / 2))" "$(mib "$half")" "$n" "$(mib "$full")" "$(mib "$idle_vm")" "$(mib "$full_vm")"
printf '   bytes per in-flight delivery: %s (ΔRSS / %s); first half %s, second half %s\n' \
  "$(per "$idle" "$full" "$n")" "$n" "$(per "$idle" "$half" $((n / 2)))" "$(per "$half" "$full" $((n / 2)))"
printf '   reference: SQLite on disk (database + WAL) grew %s per delivery (%s → %s; %s after a clean shutdown)\n' \
  "$(per "$disk0" "$disk2" "$n") bytes" "$(mib "$disk0")" "$(mib "$disk2")" "$(mib "$closed")"
printf '   in flight (final = 0) afterwards: %s of %s [%s]; push rejections: %s; sent and accepted in %s s\n' \
  "$in_flight" "$n" "$states" "$rejected" "$seconds"
record memory_n "$n"; record memory_idle_rss "$idle"; record memory_full_rss "$full"; record memory_half_rss "$half"
record memory_bytes_per_delivery "$(per "$idle" "$full" "$n")"
record memory_second_half_bytes "$(per "$half" "$full" $((n / 2)))"
record memory_disk_bytes_per_delivery "$(per "$disk0" "$disk2" "$n")"
record memory_in_flight "$in_flight"; record memory_rejected "$rejected"
record memory_conditions "$n Default pushes (allowedChannels Push) to verified noack devices (simulator: accepted, never acknowledged), 1,000 recipients per request, 2 senders, after $warmup warm-up deliveries; RSS = process_resident_memory_bytes from GET /metrics once every push was accepted + 2 s"
[ "$in_flight" = "$n" ] || { echo "   NOT ALL IN FLIGHT"; exit 1; }
