#!/usr/bin/env bash
# The sans-IO core must not depend on any runtime, socket, HTTP or TLS crate (ARCHITECTURE.md, "Core purity"),
# and must not use the clock, threads, OS randomness or HashMap iteration (core/clippy.toml,
# enforced by the workspace clippy run).
#
# One exception: `getrandom` may appear only as a dependency of `ahash`, which the JSON Schema
# engine (jsonschema) uses for its internal hash maps and seeds once from the OS. No core code
# calls it (clippy bans that), and hash order never reaches the core's outputs (violations are
# sorted before they are reported).
#
# `rand_core` is allowed as a trait-only crate (the elliptic-curve stack behind the OAuth
# `private_key_jwt` and DPoP signatures names its traits; signing is deterministic, RFC 6979),
# but never with its `getrandom`/`std` features, which bring `OsRng`.
set -euo pipefail
cd "$(dirname "$0")/.."
tree="$(cargo tree -p mcpwire-core -e normal --prefix none --format '{p}')"
banned='^(tokio|async-io|async-std|mio|hyper|hyper-util|ureq|rustls|tokio-rustls|futures-rustls|async-process|async-net|smol|rand) '
if grep -Eq "$banned" <<<"$tree"; then
    echo "mcpwire-core's normal dependency tree contains a banned crate:" >&2
    grep -E "$banned" <<<"$tree" >&2
    exit 1
fi
rand_core_features="$(cargo tree -p mcpwire-core -e normal,features --prefix none --format '{p}' \
    | grep -E '^rand_core feature "(getrandom|std)"' || true)"
if [ -n "$rand_core_features" ]; then
    echo "rand_core is in mcpwire-core's tree with an OS generator feature:" >&2
    echo "$rand_core_features" >&2
    exit 1
fi
for version in $(grep -Eo '^getrandom v[0-9.]+' <<<"$tree" | sort -u | sed 's/^getrandom v//'); do
    dependents="$(cargo tree -p mcpwire-core -e normal -i "getrandom@$version" --depth 1 --prefix none --format '{p}' \
        | grep -Ev '^getrandom ' | sort -u)"
    if grep -Evq '^ahash ' <<<"$dependents"; then
        echo "getrandom $version is pulled into mcpwire-core by something other than ahash:" >&2
        echo "$dependents" >&2
        exit 1
    fi
done
echo "core purity: ok ($(sort -u <<<"$tree" | wc -l) crates in mcpwire-core's normal tree, none banned)"
