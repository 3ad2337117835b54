#!/usr/bin/env python3
"""Dependency policy, the part of `cargo deny` that works offline (CI has no advisory database):
in the normal dependency tree of the published crates at their default features, every crate
comes from crates.io, has a license expression made only of allowed licenses, and none is banned
(OpenSSL, native-tls; aws-lc only through the opt-in `aws-lc-rs` feature: the default TLS is
rustls with ring, so aws-lc must never reach a default build). Prints the crates present in more than one version, for
information. Advisories are not checked here: run `cargo deny check advisories` (or
`cargo audit`) on a machine with network access before a release."""
import json
import re
import subprocess
import sys

PUBLISHED = ["mcpwire-core", "mcpwire-host", "mcpwire-async", "mcpwire-tokio", "mcpwire-smol", "mcpwire-blocking", "mcpwire-cli"]
ALLOWED = {
    "MIT", "Apache-2.0", "Apache-2.0 WITH LLVM-exception", "BSD-2-Clause", "BSD-3-Clause", "ISC",
    "Unicode-3.0", "Unicode-DFS-2016", "Zlib", "CC0-1.0", "MPL-2.0", "CDLA-Permissive-2.0", "0BSD",
    "BSL-1.0", "Unlicense", "MIT-0",
}
BANNED = {"openssl", "openssl-sys", "native-tls", "aws-lc-rs", "aws-lc-sys"}


def license_ok(expression):
    """Evaluates an SPDX expression: `A OR B` is allowed when either side is, `A AND B` when
    both are; `X WITH exception` is looked up whole. Old `A/B` means `A OR B`."""
    tokens = re.findall(r"\(|\)|[^\s()]+", expression.replace("/", " OR "))
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def factor():
        if peek() == "(":
            take()
            value = either()
            if take() != ")":
                raise ValueError("unbalanced parentheses")
            return value
        name = take()
        if peek() == "WITH":
            take()
            name = f"{name} WITH {take()}"
        return name in ALLOWED

    def both():
        value = factor()
        while peek() == "AND":
            take()
            value = factor() and value
        return value

    def either():
        value = both()
        while peek() == "OR":
            take()
            value = both() or value
        return value

    try:
        value = either()
        return value and pos == len(tokens)
    except (IndexError, ValueError):
        return False


def main():
    meta = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--format-version", "1", "--locked"], text=True))
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    roots = [i for i in meta["workspace_members"] if packages[i]["name"] in PUBLISHED]
    seen, stack = set(roots), list(roots)
    while stack:
        for dep in nodes[stack.pop()]["deps"]:
            if any(k["kind"] is None for k in dep["dep_kinds"]) and dep["pkg"] not in seen:
                seen.add(dep["pkg"])
                stack.append(dep["pkg"])
    failures, versions = [], {}
    for pkg_id in sorted(seen):
        p = packages[pkg_id]
        if p["source"] is None:
            continue  # ours
        versions.setdefault(p["name"], set()).add(p["version"])
        if not p["source"].startswith("registry+https://github.com/rust-lang/crates.io-index"):
            failures.append(f"{p['name']} {p['version']}: not from crates.io ({p['source']})")
        if p["name"] in BANNED:
            failures.append(f"{p['name']} {p['version']}: banned")
        lic = p.get("license")
        if not lic:
            failures.append(f"{p['name']} {p['version']}: no license expression")
        elif not license_ok(lic):
            failures.append(f"{p['name']} {p['version']}: license {lic!r} not in the allow-list")
    if failures:
        print("dependency policy failed:\n  " + "\n  ".join(failures))
        return 1
    dupes = sorted(f"{n} ({', '.join(sorted(v))})" for n, v in versions.items() if len(v) > 1)
    count = sum(len(v) for v in versions.values())
    print(f"dependency policy: {count} crates from crates.io, licenses allowed, none banned")
    if dupes:
        print("  in several versions: " + "; ".join(dupes))
    return 0


def self_test():
    cases = [("MIT", True), ("GPL-3.0", False), ("MIT OR GPL-3.0", True), ("MIT AND GPL-3.0", False),
             ("(MIT OR Apache-2.0) AND Unicode-3.0", True), ("Apache-2.0 WITH LLVM-exception OR MIT", True),
             ("MIT/Apache-2.0", True), ("(MIT", False), ("", False)]
    for expression, allowed in cases:
        assert license_ok(expression) == allowed, (expression, allowed)
    print(f"license expressions: {len(cases)} cases")


if __name__ == "__main__":
    if "--self-test" in sys.argv:
        self_test()
    sys.exit(main())
