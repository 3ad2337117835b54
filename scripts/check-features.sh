#!/usr/bin/env bash
# Clippy (-D warnings) over the feature combinations of the published library crates: for each
# crate, no default features, then each of its features alone (read from `cargo metadata`:
# every feature but `default` and the `_`-prefixed internal ones), then the defaults. Stops at
# the first failure. Meant for CI (2 cores); it shares the default target directory.
#
# Each combination is checked with `--lib`: the library alone, with exactly the features asked
# for. Tests, examples and benches are left to the workspace clippy run (defaults) and to the
# stdio-only test run of scripts/test: with dev-dependencies in the build (resolver 2) an
# all-targets check is not the combination alone anyway (mcpwire-core's dev-dependency on itself
# turns every feature on; that of mcpwire-async and mcpwire-blocking on the tests crate turns on
# the defaults of mcpwire-core and mcpwire-host).
#
# Usage: scripts/check-features.sh [CRATE...]        (default: every crate below)
# Environment: EXTRA_FEATURES=a/b,c/d appends features to every combination (e.g. to hold a
# lower crate's features on while only this crate's gating is checked).

set -euo pipefail

cd "$(dirname "$0")/.."

CRATES=(mcpwire-core mcpwire-host mcpwire-async mcpwire-tokio mcpwire-smol mcpwire-blocking)
if [ "$#" -gt 0 ]; then
    CRATES=("$@")
fi
EXTRA_FEATURES="${EXTRA_FEATURES:-}"

started=$(date +%s)
count=0
current=""

report() {
    local status=$?
    local elapsed=$(($(date +%s) - started))
    if [ "$status" -ne 0 ] && [ -n "$current" ]; then
        echo "check-features: FAILED: $current" >&2
    fi
    printf 'check-features: %d combinations in %dm%02ds (%s)\n' \
        "$count" $((elapsed / 60)) $((elapsed % 60)) "$([ "$status" -eq 0 ] && echo ok || echo failed)"
}
trap report EXIT

metadata=$(cargo metadata --no-deps --format-version 1)

# The features of crate $1 worth checking alone, one per line: the usual ones in their usual
# order, then any other that the crate's own code tests with `feature = "NAME"`. A feature the
# code never tests (one that only forwards to the crates below, like `ring` in mcpwire-tokio)
# compiles this crate exactly as the features it implies do, and is checked where it is used.
features_of() {
    python3 -c '
import json, os, re, sys
name = sys.argv[1]
packages = [p for p in json.load(sys.stdin)["packages"] if p["name"] == name]
if not packages:
    sys.exit(f"check-features: no package {name} in this workspace")
package = packages[0]
source = ""
for root, _, files in os.walk(os.path.join(os.path.dirname(package["manifest_path"]), "src")):
    for f in files:
        if f.endswith(".rs"):
            with open(os.path.join(root, f), encoding="utf-8") as rs:
                source += rs.read()
order = ["http", "oauth", "schema", "schema-formats", "tracing"]
tested = set(re.findall(r"feature\s*=\s*\"([^\"]+)\"", source))
names = [f for f in package["features"] if f != "default" and not f.startswith("_") and (f in order or f in tested)]
for f in sorted(names, key=lambda f: (order.index(f) if f in order else len(order), f)):
    print(f)
' "$1" <<<"$metadata"
}

# Runs clippy on crate $1 for the targets in $2 ("--lib" or "--lib --all-targets") with the
# feature arguments that follow.
check() {
    local crate=$1 targets_list=$2
    shift 2
    count=$((count + 1))
    for targets in $targets_list; do
        current="cargo clippy -p $crate $targets $* -- -D warnings"
        local t0
        t0=$(date +%s)
        echo "== [$count] $current"
        cargo clippy --quiet -p "$crate" "$targets" "$@" -- -D warnings
        echo "   ok ($(($(date +%s) - t0))s)"
    done
    current=""
}

# "--features LIST" for the comma-joined arguments and EXTRA_FEATURES, or nothing.
with_features() {
    local list
    list=$(IFS=,; echo "$*")
    if [ -n "$EXTRA_FEATURES" ]; then
        list="${list:+$list,}$EXTRA_FEATURES"
    fi
    if [ -n "$list" ]; then
        echo "--features $list"
    fi
}

for crate in "${CRATES[@]}"; do
    features=$(features_of "$crate")
    # shellcheck disable=SC2046 # word splitting of "--features LIST" is intended
    check "$crate" --lib --no-default-features $(with_features)
    for feature in $features; do
        # shellcheck disable=SC2046
        check "$crate" --lib --no-default-features $(with_features "$feature")
    done
    # shellcheck disable=SC2046
    check "$crate" --lib $(with_features)
done
