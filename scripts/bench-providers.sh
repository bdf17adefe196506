#!/usr/bin/env bash
# Provider throughput against loopback peers, each beside a reference measured in the same run:
#  APNs: pushes/s through Tandem's APNs provider over ONE HTTP/2+TLS connection to the h2 APNs fake (which
#        verifies every ES256 JWT), beside h2load sending the same signed request to the same fake — the
#        fake's own ceiling.
#  SMPP: submit_sm/s through Tandem's SMPP client with a window of 50 to the smpp34 SMSC, beside the same
#        client with a window of 1 (stop-and-wait) — what windowing buys.
# Usage: scripts/bench-providers.sh path/to/tandem work-dir   (PYTHON: the venv's python)
set -euo pipefail
bin="$1"; work="$2"
python="${PYTHON:-.venv/bin/python}"
source "$(dirname "$0")/bench-lib.sh"
peers="$(cd "$(dirname "$0")/../Tests/peers" && pwd)"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

# start_peer NAME ARGS... : runs a peer, waits for its PORT line, sets $peer_port and remembers the pid.
start_peer() {
  local name="$1"; shift
  "$python" "$peers/$name" "$@" > "$work/$name.out" 2> "$work/$name.err" &
  pids+=($!)
  for _ in $(seq 1 200); do
    if grep -q '^PORT ' "$work/$name.out" 2>/dev/null; then break; fi
    sleep 0.05
  done
  peer_port=$(awk '/^PORT / {print $2; exit}' "$work/$name.out")
  [ -n "$peer_port" ] || { echo "   $name did not start: $(tail -3 "$work/$name.err")"; return 1; }
}

echo "== (4) APNs provider: pushes/s over one HTTP/2 connection to the local h2 APNs fake (20,000 pushes, 100 streams)"
mkdir -p "$work/apns"
record apns_conditions "20,000 pushes, 1 HTTP/2+TLS connection, 100 streams, h2 APNs fake (Python, verifies each JWT)"
start_peer apns_fake.py --generate "$work/apns" --delay-ms 0
"$bin" bench apns --url "https://127.0.0.1:$peer_port" --key "$work/apns/AuthKey.p8" --ca "$work/apns/cert.pem" \
  --pushes 20000 --streams 100 | tee "$work/apns.txt"
# "apns: 20000 pushes in 4.4 s = 4513 pushes/s (20000 accepted) over 1 HTTP/2 connection(s), up to 98 concurrent streams …"
record apns_pushes_per_s "$(sed -n 's/.* = \([0-9]*\) pushes\/s .*/\1/p' "$work/apns.txt")"
record apns_accepted "$(sed -n 's/.*pushes\/s (\([0-9]*\) accepted).*/\1/p' "$work/apns.txt")"
record apns_pushes "$(sed -n 's/^ *apns: \([0-9]*\) pushes in.*/\1/p' "$work/apns.txt")"
record apns_streams "$(sed -n 's/.*up to \([0-9]*\) concurrent streams.*/\1/p' "$work/apns.txt")"
record apns_connections "$(sed -n 's/.* over \([0-9]*\) HTTP\/2 connection.*/\1/p' "$work/apns.txt")"
if command -v h2load > /dev/null; then
  jwt=$("$python" - "$work/apns/AuthKey.p8" <<'PY'
import sys, time, jwt
key = open(sys.argv[1]).read()
print(jwt.encode({"iss": "BENCHTEAM1", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "BENCHKEY01"}))
PY
)
  printf '{"aps":{"alert":{"title":"Acme","body":"Your code is 123456"},"mutable-content":1},"messageId":"m","updateId":"1"}' \
    > "$work/apns/payload.json"
  h2load -n 20000 -c 1 -m 100 -d "$work/apns/payload.json" -H "authorization: bearer $jwt" \
    -H "apns-topic: com.example.tandem.bench" -H "apns-push-type: alert" -H "apns-priority: 10" \
    -H "apns-expiration: $(( $(date +%s) + 3600 ))" -H "apns-collapse-id: m" \
    -H "apns-id: 123E4567-E89B-12D3-A456-426614174000" \
    "https://127.0.0.1:$peer_port/3/device/ok0123456789abcdef" > "$work/h2load.txt" 2>&1 || true
  rate=$(awk '/^finished in/ {print $4}' "$work/h2load.txt")
  ok=$(awk '/^status codes:/ {print $3}' "$work/h2load.txt")
  echo "   reference: h2load, same fake, 1 connection, 100 streams, one pre-signed JWT: ${rate:-?} req/s (${ok:-?} x 2xx)"
  if [ -n "$rate" ]; then record h2load_rps "$rate"; record h2load_2xx "${ok:-?}"
  else record h2load_error "h2load printed no rate: $(tail -1 "$work/h2load.txt")"; fi
else
  echo "   reference: h2load not installed (Debian nghttp2-client)"
  record h2load_error "h2load not installed"
fi
echo
echo "== (5) SMPP client: submit_sm/s to the smpp34 SMSC (20,000 single-part SMS, 1 bind)"
start_peer smpp_smsc.py --no-tap
"$bin" bench smpp --port "$peer_port" --count 20000 --window 50 | tee "$work/smpp-50.txt"
"$bin" bench smpp --port "$peer_port" --count 2000 --window 1 | tee "$work/smpp-1.txt" | sed 's/^   /   reference: /'
# "SMPP submits/s with a window of 50 (1 bind): 10808 (20000 in 1.850 s[, N rejected])"
smpp_field() { sed -n "s/.*window of [0-9]* ([0-9]* binds*): \([0-9]*\) (\([0-9]*\) in \([0-9.]*\) s\(, \([0-9]*\) rejected\)*).*/\\$2/p" "$1"; }
record smpp50_per_s "$(smpp_field "$work/smpp-50.txt" 1)"; record smpp50_submitted "$(smpp_field "$work/smpp-50.txt" 2)"
record smpp50_rejected "$(smpp_field "$work/smpp-50.txt" 5)"
record smpp1_per_s "$(smpp_field "$work/smpp-1.txt" 1)"; record smpp1_submitted "$(smpp_field "$work/smpp-1.txt" 2)"
record smpp_conditions "1 bind, smpp34 SMSC (Python), 20,000 single-part SMS at window 50, 2,000 at window 1"
