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
# scripts/bench-table.py prints as the summary table at the end of `make bench`. With BENCH_STORE=postgresql the
# key is recorded as pg_KEY.
record() {
  printf '%s%s=%s\n' "$(pg_prefix)" "$1" "$2" >> "$work/results.env"
}

# The store the gateway and receipt sections run on: BENCH_STORE=postgresql puts each section's server on a
# database of its own on the cluster whose socket directory is PG_HOST (scripts/bench-postgres.sh starts it);
# otherwise on a SQLite file in WORKDIR.
on_postgres() { [ "${BENCH_STORE:-sqlite}" = postgresql ]; }
pg_prefix() { if on_postgres; then printf 'pg_'; fi; }
# db_config NAME: the "database" object of the config of a section's server (creates the PostgreSQL database).
db_config() {
  if on_postgres; then
    createdb -h "$PG_HOST" -U tandem "$1"
    printf '{ "url": "postgresql:///%s?host=%s&user=tandem" }' "$1" "$PG_HOST"
  else
    printf '{ "path": "%s/%s.sqlite" }' "$work" "$1"
  fi
}
# dbq NAME SQL: runs SQL (both dialects read alike) on the section's database; rows with fields separated by |.
dbq() {
  if on_postgres; then psql -h "$PG_HOST" -U tandem -d "$1" -XAtq -F '|' -c "$2"
  else sqlite3 -separator '|' "$work/$1.sqlite" "$2"; fi
}

# The in-flight push benchmarks' helpers (scripts/bench-memory.sh, scripts/bench-recovery.sh); they use `url`, `db`,
# `token`, `key` and `server` as set by the caller.
# send FIRST COUNT: Default pushes to numbers FIRST..FIRST+COUNT-1, 1,000 per request, 2 senders; every one 200.
send() { python3 "$(dirname "${BASH_SOURCE[0]}")/bench-send-pushes.py" "$url" "$token" "$key" "$1" "$2"; }
accepted() { sqlite3 "$db" "SELECT count(*) FROM delivery_events WHERE kind = 'pushAccepted'"; }
# await_accepted EXPECTED: waits (≤ 5 min) until EXPECTED pushes were accepted, then 2 s more; fails if they never are.
await_accepted() {
  local seen=0
  for _ in $(seq 1 1500); do
    seen=$(accepted)
    [ "$seen" -ge "$1" ] && { sleep 2; return 0; }
    sleep 0.2
  done
  echo "   only $seen of $1 pushes accepted after 5 minutes"; return 1
}
rss() { curl -fsS "$url/metrics" | awk '$1 == "process_resident_memory_bytes" {printf "%.0f", $2}'; }
vmrss() { awk '/^VmRSS/ {print $2 * 1024}' "/proc/$server/status"; }

# pg_ticks: CPU clock ticks the PostgreSQL server has used so far — its postmaster with the backends it reaped
# (cutime/cstime) and every live child; 0 when not on PostgreSQL. PG_DATA is the cluster's data directory.
pg_ticks() {
  on_postgres || { echo 0; return; }
  local pm; pm=$(head -1 "$PG_DATA/postmaster.pid")
  # A process may exit between the glob and its read: cat's complaint is not a failure here.
  { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v pm="$pm" '
    $1 == pm {t += $14 + $15 + $16 + $17} $4 == pm {t += $14 + $15} END {print t + 0}'
}
# pg_share TICKS SECONDS: those ticks as a share of every core of the machine over SECONDS, e.g. "23% of 2 cores".
pg_share() {
  python3 -c "import os, sys; t, s = float(sys.argv[1]), float(sys.argv[2]); print(f'{100 * t / os.sysconf(\"SC_CLK_TCK\") / s / os.cpu_count():.0f}% of {os.cpu_count()} cores')" "$1" "$2"
}

# spread_lua LINES OUT FORMAT: a wrk script that sends one request per line of LINES, each line once over every wrk
# thread and process, formatted once in init by the Lua expression FORMAT (of `line`). Thread t of -t WRK_THREADS
# (default 1) in process OFFSET of NODES (defaults 0 and 1; one wrk per node) takes the lines whose index is
# t + WRK_THREADS × OFFSET modulo WRK_THREADS × NODES; past its last line it repeats its first.
spread_lua() {
  cat > "$2" <<LUA
local requests, next_index, thread_count = {}, 1, 0
function setup(thread) thread:set("offset", thread_count); thread_count = thread_count + 1 end
function init(args)
  local threads = tonumber(os.getenv("WRK_THREADS") or "1")
  local slot = tonumber(os.getenv("OFFSET") or "0") * threads + offset
  local stride = tonumber(os.getenv("NODES") or "1") * threads
  local index = 0
  for line in io.lines("$1") do
    if index % stride == slot then requests[#requests + 1] = $3 end
    index = index + 1
  end
end
function request()
  local formatted = requests[next_index] or requests[1]
  next_index = next_index + 1
  return formatted
end
LUA
}

# acks_lua ACKS KEY OUT: spread_lua for PUT /bwmi/KEY/acks, one per line "nid|token" of ACKS.
acks_lua() {
  spread_lua "$1" "$3" "(function() local nid, did = line:match(\"([^|]+)|(.*)\")
      return wrk.format(\"PUT\", \"/bwmi/$2/acks\", {[\"Content-Type\"] = \"application/json\"},
        '{\"nid\":\"' .. nid .. '\",\"did\":\"' .. did .. '\",\"bid\":\"GATE_CHANGE\"}') end)()"
}

# receipts_lua RECEIPTS AUTH OUT: spread_lua for the device API's PUT /v1.0/messages, one per line "DeviceID|body" of
# RECEIPTS, every request with the Authorization header AUTH (the MAC covers method, target, host and second only).
receipts_lua() {
  spread_lua "$1" "$3" "(function() local device, body = line:match(\"([^|]+)|(.*)\")
      return wrk.format(\"PUT\", \"/v1.0/messages\", {[\"Authorization\"] = '$2', [\"DeviceID\"] = device,
        [\"User-Agent\"] = \"Bench/1.0 (Android 14; en_US)\", [\"Content-Type\"] = \"application/json\"}, body) end)()"
}

# device_mac KEY SECRET: the device API's Authorization for PUT /v1.0/messages to host bench.tandem.test this second
# (the MAC covers method, target, host and second only: one value serves every request of a run).
device_mac() {
  python3 - "$1" "$2" <<'PY'
import base64, hashlib, hmac, sys, time
key, secret = sys.argv[1], sys.argv[2]
ts = int(time.time())
signed = f"PUT /v1.0/messages HTTP/1.1\nbench.tandem.test\n{ts}\n"
mac = base64.b64encode(hmac.new(secret.encode(), signed.encode(), hashlib.sha1).digest()).decode()
print(f'MAC kid="{key}" ts="{ts}" mac="{mac}"')
PY
}

# server_ticks: the server's CPU time so far (utime + stime, in clock ticks).
server_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }

# held_up SERVER_CPU P99: true when a load run was held up outside the server: the server used less than one core
# (SERVER_CPU, % of one) while answering in under 50 ms at p99. Under the receipts and BWMI acks loads it uses 1.3–1.8
# of the two cores (wrk the rest); seen now and then on this machine — the server idle, wrk's connections idle between
# a response and the next request, every request answered promptly. Such a run is reported and measured once more.
held_up() {
  [ "$1" -lt 100 ] || return 1
  # wrk prints latencies as e.g. 936.00us, 11.60ms, 1.20s.
  python3 -c "import sys; v = sys.argv[1]
ms = float(v[:-2]) if v.endswith('ms') else float(v[:-2]) / 1000 if v.endswith('us') else float(v[:-1]) * 1000
sys.exit(0 if ms < 50 else 1)" "$2"
}
