#!/usr/bin/env bash
# The sans-IO core must not depend on any runtime, socket, HTTP or TLS crate (DESIGN.md §3),
# and must not use the clock, threads, OS randomness or HashMap iteration (core/clippy.toml,
# enforced by the workspace clippy run).
set -euo pipefail
cd "$(dirname "$0")/.."
tree="$(cargo tree -p mcp-core -e normal --prefix none --format '{p}')"
banned='^(tokio|async-io|async-std|mio|hyper|hyper-util|ureq|rustls|tokio-rustls|futures-rustls|async-process|async-net|smol|getrandom|rand) '
if grep -Eq "$banned" <<<"$tree"; then
    echo "mcp-core's normal dependency tree contains a banned crate:" >&2
    grep -E "$banned" <<<"$tree" >&2
    exit 1
fi
echo "core purity: ok ($(sort -u <<<"$tree" | wc -l) crates in mcp-core's normal tree, none banned)"
