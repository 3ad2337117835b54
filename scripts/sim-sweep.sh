#!/usr/bin/env bash
# A long deterministic-simulation sweep (release build): SEEDS seeds over stdio, then SEEDS seeds
# over HTTP, from FIRST, each transport's seeds spread over JOBS threads (default: every core).
# Each transport prints one summary line: seeds, wall time, simulated hours, host requests
# issued, steps, processes/crashes or HTTP exchanges, tasks, faults injected and paths taken.
# CI does not run it (CI runs the short sweeps of `cargo test -p mcp-tests --test simulation`).
# Its summary lines belong in docs/reliability.md (Volume): update that page after a sweep.
#
#   scripts/sim-sweep.sh                    # 20 000 seeds per transport: over 1.3 M requests each
#   scripts/sim-sweep.sh 100000 2 20000     # SEEDS JOBS FIRST
#
# A seed issues about 67 host requests on either transport, so 20 000 seeds take about a minute
# per transport on one core (plus the release build). A failing seed stops the run with its
# replay command, e.g.
#   MCP_SIM_SEED=526 MCP_SIM_TRANSPORT=http cargo test -p mcp-tests --test simulation \
#       replay_one_seed -- --nocapture
set -euo pipefail
cd "$(dirname "$0")/.."
export MCP_SIM_SEEDS="${1:-20000}"
export MCP_SIM_JOBS="${2:-$(nproc)}"
export MCP_SIM_FIRST_SEED="${3:-0}"
# One sweep test at a time (stdio, then HTTP), each on MCP_SIM_JOBS threads.
cargo test --release -p mcp-tests --test simulation sweep -- --nocapture --test-threads=1
