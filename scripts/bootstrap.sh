#!/usr/bin/env bash
# Installs the system packages Tandem builds, tests and benchmarks with, and only those that are missing.
# Usage: scripts/bootstrap.sh [build|test|bench]   (each level includes the previous one)
set -euo pipefail
level="${1:-build}"

missing=()
have_pc() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; }
need_pc() { have_pc "$1" || missing+=("$2"); }
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }

command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
need_pc libcurl libcurl4-openssl-dev
need_pc sqlite3 libsqlite3-dev
need_pc libcrypto libssl-dev
need_pc libmicrohttpd libmicrohttpd-dev
need_pc libpq libpq-dev
if [ "$level" = test ] || [ "$level" = bench ]; then
  need_cmd curl curl
  need_cmd sqlite3 sqlite3
  need_cmd openssl openssl
  need_cmd nghttpd nghttp2-server
  need_cmd bearerbox kannel
  # The PostgreSQL store's tests start a throwaway cluster with the server's own binaries.
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
  need_cmd chromium chromium            # the dashboard's browser test (Tests/integration/test_dashboard.py)
  need_cmd chromedriver chromium-driver
  python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
fi
if [ "$level" = bench ]; then
  need_cmd wrk wrk
  need_cmd h2load nghttp2-client
fi

# promtool (Prometheus's own metrics checker, for Tests/integration/test_metrics.py): taken out of Debian's
# prometheus package into .build/tools without installing the package (which would start a Prometheus server).
fetch_promtool() {
  local root tools dir
  root="$(cd "$(dirname "$0")/.." && pwd)"; tools="$root/.build/tools"
  { command -v promtool >/dev/null 2>&1 || [ -x "$tools/promtool" ]; } && return 0
  dir="$(mktemp -d)"; chmod 755 "$dir"
  if ! (cd "$dir" && apt-get download prometheus >/dev/null 2>&1); then
    [ "$(id -u)" -eq 0 ] && apt-get update -qq >&2 && (cd "$dir" && apt-get download prometheus >/dev/null 2>&1) || true
  fi
  if compgen -G "$dir/prometheus_*.deb" >/dev/null && dpkg-deb -x "$dir"/prometheus_*.deb "$dir/x" && [ -x "$dir/x/usr/bin/promtool" ]; then
    mkdir -p "$tools" && cp "$dir/x/usr/bin/promtool" "$tools/promtool"
  else
    echo "bootstrap: could not fetch promtool from Debian's prometheus package" >&2
  fi
  rm -rf "$dir"
}

finish() {
  if [ "$level" = test ] || [ "$level" = bench ]; then fetch_promtool; fi
}

if [ "${#missing[@]}" -eq 0 ]; then
  finish
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "bootstrap: missing system packages: ${missing[*]}" >&2
  echo "bootstrap: install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
finish
