#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses in Tests/Fuzz (one per parser of untrusted bytes).
#
#   scripts/fuzz.sh build [harness...]          build the harnesses (all when none is named)
#   scripts/fuzz.sh run SECONDS [harness...]    build, then run each for SECONDS; prints executions per harness
#   scripts/fuzz.sh list                        the harness names
#
# The library modules a harness needs (TandemCore, TandemHTTP, TandemAPI, ...) are compiled once into
# .build/fuzz/modules with -sanitize=fuzzer,address (coverage-instrumented, address-checked) and -enable-testing
# (harnesses use internal parsers through @testable import); a module is rebuilt only when its sources, its
# dependencies or the flags change. Each harness is then linked with the modules it needs; libFuzzer supplies
# main, which is why none of this is part of the SwiftPM package.
#
# A run fails (exit 1) when a harness does not build, or finds a crash, a hang, a leak or too much memory. A hang
# is an input that uses over FUZZ_CPU_TIMEOUT (1) seconds of CPU time (Tests/Fuzz/Support/CPUWatchdog.swift);
# libFuzzer's wall-clock -timeout (FUZZ_TIMEOUT, 20 s) is only the backstop, because a niced fuzzer on a shared
# machine waits seconds for a core. libFuzzer writes the input to .build/fuzz/artifacts/<harness>/; new inputs
# it finds go to .build/fuzz/corpus/<harness>/ (the committed seeds in Tests/Fuzz/corpus/<harness>/ are read,
# never written). Environment: FUZZ_OPT (-O), FUZZ_CPU_TIMEOUT (1), FUZZ_TIMEOUT (20), FUZZ_RSS_MB (2048),
# FUZZ_EXTRA (more libFuzzer flags, e.g. -jobs=1 -workers=1 or -dict=…).
set -euo pipefail
cd "$(dirname "$0")/.."

out=.build/fuzz
opt="${FUZZ_OPT:--O}"
swiftc="${SWIFTC:-swiftc}"
common=(-swift-version 6 -package-name Tandem -parse-as-library -sanitize=fuzzer,address "$opt" -g -enable-testing)

# Module → the modules it imports; C modules come from Sources/<C module> via -I.
declare -A deps=(
  [TandemCore]=""
  [TandemCrypto]=""
  [TandemHTTP]=""
  [TandemEngine]="TandemCore"
  [TandemStoreSupport]="TandemCore"
  [TandemStore]="TandemCore TandemStoreSupport"
  [TandemAPI]="TandemCore TandemCrypto TandemHTTP TandemEngine"
  [TandemProviders]="TandemCore TandemCrypto"
)
declare -A cdeps=(
  [TandemCrypto]="CCrypto:libcrypto"
  [TandemHTTP]="CMicroHTTPD:libmicrohttpd"
  [TandemStore]="CSQLite:sqlite3"
  [TandemAPI]="CCrypto:libcrypto CMicroHTTPD:libmicrohttpd"
  [TandemProviders]="CCrypto:libcrypto CCurl:libcurl"
)
order=(TandemCore TandemCrypto TandemHTTP TandemEngine TandemStoreSupport TandemStore TandemAPI TandemProviders)

# Harness → the last modules it needs (their dependencies come along); -max_len for its inputs.
declare -A harness_module=(
  [cm_json]=TandemAPI
  [cm_xml]=TandemAPI
  [query]=TandemAPI
  [odata]="TandemAPI TandemStore"  # the parser, and the SQL translation of what it parsed
  [mac_header]=TandemAPI
  [user_agent]=TandemAPI
  [kannel_dlr]=TandemAPI
  [cospace]=TandemAPI
  [scg]=TandemAPI
  [bwmi]=TandemAPI
  [mymsp]=TandemAPI
  [smpp_pdu]=TandemProviders
  [configuration]=TandemCore
  [policy]=TandemCore
)
declare -A harness_max_len=(
  [cm_json]=65536
  [cm_xml]=65536
  [query]=8192
  [odata]=8192
  [mac_header]=4096
  [user_agent]=4096
  [kannel_dlr]=4096
  [cospace]=16384
  [scg]=65536
  [bwmi]=65536
  [mymsp]=16384
  [smpp_pdu]=65552
  [configuration]=65536
  [policy]=65536
)
all_harnesses=(cm_json cm_xml query odata mac_header user_agent kannel_dlr cospace scg bwmi mymsp smpp_pdu configuration policy)

log() { echo "fuzz: $*" >&2; }

# The module and every module it depends on, dependencies first.
closure() {
  local want=" $1 " changed=1 m d
  while [ "$changed" = 1 ]; do
    changed=0
    for m in $want; do
      for d in ${deps[$m]}; do
        case "$want" in *" $d "*) ;; *) want="$want$d "; changed=1 ;; esac
      done
    done
  done
  for m in "${order[@]}"; do
    case "$want" in *" $m "*) echo "$m" ;; esac
  done
}

cflags_for() {
  local m="$1" pair dir pc
  for pair in ${cdeps[$m]:-}; do
    dir="${pair%%:*}" pc="${pair##*:}"
    printf '%s\n' -I "Sources/$dir"
    for f in $(pkg-config --cflags "$pc" 2>/dev/null); do printf '%s\n' -Xcc "$f"; done
  done
}

libs_for() {
  local pair pc seen=" "
  for m in "$@"; do
    for pair in ${cdeps[$m]:-}; do
      pc="${pair##*:}"
      case "$seen" in *" $pc "*) continue ;; esac
      seen="$seen$pc "
      pkg-config --libs "$pc"
    done
  done
}

build_module() {
  local m="$1" d sources stamp cflags=()  # cflags local: build_harness has its own
  mapfile -t sources < <(find "Sources/$m" -name '*.swift' | LC_ALL=C sort)
  stamp=$( { echo "${common[*]}"; "$swiftc" --version 2>&1 | head -1
             for d in ${deps[$m]}; do cat "$out/modules/$d.stamp"; done
             cat "${sources[@]}"; } | sha256sum | cut -d' ' -f1)
  if [ -f "$out/modules/$m.stamp" ] && [ "$(cat "$out/modules/$m.stamp")" = "$stamp" ] && [ -f "$out/modules/$m.o" ]; then
    return 0
  fi
  log "compiling $m (${#sources[@]} files)"
  rm -f "$out/modules/$m.stamp"
  mapfile -t cflags < <(cflags_for "$m")
  "$swiftc" "${common[@]}" -module-name "$m" -whole-module-optimization -num-threads 0 \
    -I "$out/modules" "${cflags[@]}" \
    -emit-module -emit-module-path "$out/modules/$m.swiftmodule" \
    -emit-object -o "$out/modules/$m.o" "${sources[@]}" || { log "$m does not compile"; return 1; }
  echo "$stamp" > "$out/modules/$m.stamp"
}

build_harness() {
  local h="$1" source="Tests/Fuzz/$1.swift" mods objects=() m stamp cflags=() support
  [ -f "$source" ] || { log "no harness $source"; return 1; }
  mapfile -t support < <(find Tests/Fuzz/Support -name '*.swift' | LC_ALL=C sort)
  mapfile -t mods < <(closure "${harness_module[$h]}")
  for m in "${mods[@]}"; do
    build_module "$m" || return 1
    objects+=("$out/modules/$m.o")
    mapfile -t -O "${#cflags[@]}" cflags < <(cflags_for "$m")
  done
  stamp=$( { echo "${common[*]}"; cat "$source" "${support[@]}"; for m in "${mods[@]}"; do cat "$out/modules/$m.stamp"; done; } \
           | sha256sum | cut -d' ' -f1)
  if [ -f "$out/bin/$h.stamp" ] && [ "$(cat "$out/bin/$h.stamp")" = "$stamp" ] && [ -x "$out/bin/$h" ]; then
    return 0
  fi
  log "linking $h"
  rm -f "$out/bin/$h.stamp"
  # ld.gold warns "Cannot export local symbol '__asan_…'" for every module: harmless (PITFALLS 12), so dropped.
  # shellcheck disable=SC2046
  "$swiftc" "${common[@]}" -module-name "fuzz_$h" -I "$out/modules" "${cflags[@]}" \
    "$source" "${support[@]}" "${objects[@]}" $(libs_for "${mods[@]}") -o "$out/bin/$h" 2>&1 \
    | { grep -v "Cannot export local symbol '__asan" || true; }
  [ "${PIPESTATUS[0]}" -eq 0 ] || return 1
  echo "$stamp" > "$out/bin/$h.stamp"
}

# Runs one harness for $1 seconds; prints "name executions exec/s result" to stdout.
run_harness() {
  local h="$1" seconds="$2" logf rc execs rate result
  local seeds="Tests/Fuzz/corpus/$h" work="$out/corpus/$h" artifacts="$out/artifacts/$h/"
  mkdir -p "$work" "$artifacts" "$seeds"
  logf="$out/logs/$h.log"
  set +e
  # shellcheck disable=SC2086
  FUZZ_CPU_TIMEOUT="${FUZZ_CPU_TIMEOUT:-1}" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}" \
    "$out/bin/$h" -max_total_time="$seconds" -max_len="${harness_max_len[$h]}" -timeout="${FUZZ_TIMEOUT:-20}" \
    -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -malloc_limit_mb="${FUZZ_RSS_MB:-2048}" -detect_leaks=1 \
    -print_final_stats=1 -artifact_prefix="$artifacts" ${FUZZ_EXTRA:-} \
    "$work" "$seeds" > "$logf" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logf" | tail -1)
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\)[[:space:]]*DONE.*/\1/p' "$logf" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logf" | tail -1)
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    result="FAILED(rc=$rc)"
    log "$h failed; last lines of $logf:"
    grep -E "ERROR|SUMMARY|Test unit written|timeout|leak|Fatal error|CPU watchdog" "$logf" | head -20 >&2 || true
  fi
  printf '%s %s %s %s\n' "$h" "${execs:-?}" "${rate:-?}" "$result"
}

mkdir -p "$out/modules" "$out/bin" "$out/logs"
command="${1:-}"; shift || true
case "$command" in
  list)
    printf '%s\n' "${all_harnesses[@]}"
    ;;
  build)
    names=("$@"); [ "${#names[@]}" -gt 0 ] || names=("${all_harnesses[@]}")
    for h in "${names[@]}"; do build_harness "$h" || { log "$h does not build"; exit 1; }; done
    ;;
  run)
    seconds="${1:?usage: scripts/fuzz.sh run SECONDS [harness...]}"; shift
    names=("$@"); [ "${#names[@]}" -gt 0 ] || names=("${all_harnesses[@]}")
    failed=0 rows=()
    for h in "${names[@]}"; do
      if ! build_harness "$h"; then
        log "$h does not build"; rows+=("$h - - BUILD-FAILED"); failed=1; continue
      fi
    done
    for h in "${names[@]}"; do
      [ -x "$out/bin/$h" ] && [ -f "$out/bin/$h.stamp" ] || continue
      log "running $h for ${seconds}s"
      row=$(run_harness "$h" "$seconds")
      rows+=("$row")
      case "$row" in *" ok") ;; *) failed=1 ;; esac
    done
    printf '\n%-14s %14s %10s  %s\n' harness executions exec/s result
    ok=0
    for row in "${rows[@]}"; do
      # shellcheck disable=SC2086
      printf '%-14s %14s %10s  %s\n' $row
      case "$row" in *" ok") ok=$((ok + 1)) ;; esac
    done
    # The plain closing line test runners print: harnesses that ran clean, and those that did not.
    printf 'fuzz: %d passed, %d failed\n' "$ok" $(( ${#rows[@]} - ok ))
    exit "$failed"
    ;;
  *)
    sed -n '2,6p' "$0" >&2
    exit 2
    ;;
esac
