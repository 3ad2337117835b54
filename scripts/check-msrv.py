#!/usr/bin/env python3
"""MSRV check without a second toolchain (this machine has one Rust toolchain, and CI cannot
fetch another): every workspace crate declares the workspace's `rust-version`, and every crate in
the normal (non-dev, non-build) dependency tree of the published crates declares a
`rust-version` no newer than ours (or none). Our own code's use of newer std APIs is caught by
clippy's `incompatible_msrv` lint, which reads the same `rust-version` and runs in `.ci/run`
with `-D warnings`. What neither catches: language features newer than the MSRV."""
import json
import subprocess
import sys

PUBLISHED = ["mcpwire-core", "mcpwire-host", "mcpwire-async", "mcpwire-tokio", "mcpwire-smol", "mcpwire-blocking", "mcpwire-cli"]


def version_tuple(text):
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def main():
    meta = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--format-version", "1", "--locked"], text=True))
    packages = {p["id"]: p for p in meta["packages"]}
    members = [packages[i] for i in meta["workspace_members"]]
    msrv = None
    failures = []
    for p in members:
        if p["rust_version"] is None:
            failures.append(f"{p['name']}: no rust-version (inherit it from the workspace)")
        elif msrv is None:
            msrv = p["rust_version"]
        elif p["rust_version"] != msrv:
            failures.append(f"{p['name']}: rust-version {p['rust_version']} differs from {msrv}")
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    roots = [p["id"] for p in members if p["name"] in PUBLISHED]
    seen, stack = set(), list(roots)
    while stack:
        node = nodes[stack.pop()]
        for dep in node["deps"]:
            normal = any(k["kind"] is None for k in dep["dep_kinds"])
            if normal and dep["pkg"] not in seen:
                seen.add(dep["pkg"])
                stack.append(dep["pkg"])
    checked = 0
    for pkg_id in sorted(seen):
        p = packages[pkg_id]
        if p["source"] is None:
            continue
        checked += 1
        rv = p.get("rust_version")
        if rv and version_tuple(rv) > version_tuple(msrv):
            failures.append(f"{p['name']} {p['version']} needs Rust {rv}, newer than our {msrv}")
    if failures:
        print("MSRV check failed:\n  " + "\n  ".join(failures))
        return 1
    print(f"MSRV {msrv}: {len(members)} workspace crates, {checked} dependencies of the published crates")
    return 0


if __name__ == "__main__":
    sys.exit(main())
