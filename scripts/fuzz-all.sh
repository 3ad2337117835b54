#!/usr/bin/env bash
# Fuzzes every cargo-fuzz target for RUNS executions each (default 10^7), fastest first, and prints
# one summary row per target. Long (hours on two cores); CI does not run it. Needs cargo-fuzz.
# Its rows belong in the fuzzing table of docs/reliability.md: update that page after a run.
#
#   scripts/fuzz-all.sh                       # every target, 10^7 executions each
#   scripts/fuzz-all.sh 1000000 sse gzip      # chosen targets, 10^6 executions each
#
# Environment:
#   FUZZ_WORK      where the growing corpora and crash artifacts go (default fuzz/target/fuzz-work,
#                  outside git); the committed corpora in fuzz/corpus/<target>/ are read as seeds
#                  and never written
#   FUZZ_MAX_TIME  per-target time guard in seconds (default 0: none); a target stopped by it
#                  reports the executions it reached
#   FUZZ_FLAGS     cargo-fuzz build flags (default: `-s none -a`: no sanitizer, the code is safe
#                  Rust; release with debug assertions and overflow checks on; add
#                  `--no-trace-compares` for 2-4x the executions per second, with coarser
#                  guidance)
#   FUZZ_ARGS      extra libFuzzer arguments (default none; `-use_memcmp=0` saves the ~9 % of
#                  the whole-client targets' time that libFuzzer's memcmp hook takes)
#   FUZZ_JOBS      targets fuzzed at once (default 1; one core each)
#   CARGO_TARGET_DIR  as usual (a separate one keeps the workspace's build cache intact)
#
# The targets are built once, then the binaries run: every target fuzzes the same tree state.
#
# Exit status 1 when any target crashed, timed out or ran out of memory; its reproducer is under
# $FUZZ_WORK/artifacts/<target>/ (replay: `cd fuzz && cargo fuzz run -s none -a <target> <file>`).
# A fixed finding's input goes into fuzz/corpus/<target>/, which `cargo test -p mcpwire-core --test
# fuzz_corpus` replays.
set -uo pipefail
cd "$(dirname "$0")/../fuzz"
runs="${1:-10000000}"
shift || true
# Every target `cargo fuzz list` knows, fastest first (execs/s measured on a 2-core VM: about
# 100 k for jsonrpc down to 1 k for the whole-client targets); targets not ranked here go last.
ranked=(jsonrpc headers jsonrpc_head http_url framing sse stdio_connection oauth_flow gzip schema_validate
    client_ops_stdio client_ops_http client_ops_http_auth)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    listed=$(cargo fuzz list) || exit 2
    for t in "${ranked[@]}"; do
        grep -qx "$t" <<<"$listed" && targets+=("$t")
    done
    for t in $listed; do
        [[ " ${ranked[*]} " == *" $t "* ]] || targets+=("$t")
    done
fi
work="${FUZZ_WORK:-$PWD/target/fuzz-work}"
max_time="${FUZZ_MAX_TIME:-0}"
read -r -a flags <<<"${FUZZ_FLAGS:--s none -a}"
read -r -a fuzz_args <<<"${FUZZ_ARGS:-}"

cargo fuzz build "${flags[@]}" || exit 2
bin="${CARGO_TARGET_DIR:-$PWD/target}/$(rustc -vV | sed -n 's/^host: //p')/release"

jobs="${FUZZ_JOBS:-1}"

# Fuzzes one target and prints its summary row; exit status 1 if it failed.
fuzz_one() {
    local t=$1 log="$work/$1.log" start status secs execs rate verdict
    mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
    start=$(date +%s)
    "$bin/$t" -runs="$runs" -max_total_time="$max_time" -timeout=30 -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/$t/" "${fuzz_args[@]}" "$work/corpus/$t" "corpus/$t" >"$log" 2>&1
    status=$?
    secs=$(($(date +%s) - start))
    execs=$(grep -Eo '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
    rate=$(awk -v e="${execs:-0}" -v s="$secs" 'BEGIN { printf "%d", e / (s > 0 ? s : 1) }')
    if [ "$status" -eq 0 ]; then
        verdict=ok
    else
        verdict="FAILED (exit $status, see $log and $work/artifacts/$t/)"
    fi
    echo "$t: ${execs:-?} executions in ${secs} s (${rate} exec/s): $verdict" | tee "$work/$t.row"
    [ "$status" -eq 0 ]
}

failed=0
running=0
for t in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
    fuzz_one "$t" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done
echo "--- fuzz-all ($runs runs per target, $jobs at once, flags: ${flags[*]}, libFuzzer: ${fuzz_args[*]})"
for t in "${targets[@]}"; do
    cat "$work/$t.row"
done
exit $failed
