#!/usr/bin/env python3
"""The module graph of mcpwire-core: which module uses which, and where it cycles.

Each file under core/src is a module (`connection/http/mod.rs` is `connection::http`, a file
joined with `#[path]` is a module of its own). An edge A -> B means A names an item of B
(`use crate::b::...`, `crate::b::Item` or `child::Item` in code, `super::...` resolved, and a
name imported or re-exported by a facade followed to the module that defines it). Test code (a
`#[cfg(test)] mod` to the end of its file, and `*_tests.rs` / `tests.rs` files) is left out:
tests may look anywhere.

Usage:
  scripts/module-graph.py            # report: largest cycle, top-level graph, layer breaks
  scripts/module-graph.py --check    # CI: fail when the units of LAYERS cycle, or one uses a
                                     # unit above it, or a file cycle grows past MAX_CYCLE
  scripts/module-graph.py --dot      # the file-level graph for Graphviz
  scripts/module-graph.py --why A B  # the paths behind each edge from modules A* to B*
  scripts/module-graph.py --impls    # the largest inherent impl blocks, and each type's total

Written by hand (not cargo-modules) because that tool needs a nightly rustc-matched build and
minutes per run; this reads the sources in a second and CI needs nothing installed.
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core", "src")

# The layers of the core, bottom first. Each name is a unit: a module with everything under it
# not listed itself (`error::rpc` is a unit apart from `error`). A unit may use units of its own
# layer or below, never above, and the units must not cycle. Every top-level module of core/src
# must be listed (the check fails on an unlisted one, so a new module gets a place).
LAYERS = [
    # Plain data and helpers with no protocol state.
    ["text", "redact", "io_error", "transport", "handle", "command", "error::rpc", "error::command",
     "address_class", "destination", "redirect_error", "target", "http_url"],
    # Wire formats, bounded decoders, and the IO a connection asks for.
    ["jsonrpc", "framing", "jsonrpc_head", "sse", "gzip", "headers", "io", "transport_attempt"],
    # The OAuth 2.1 flow: a machine of its own, which knows nothing of MCP.
    ["oauth"],
    # Typed protocol data, schemas and configuration.
    ["types", "schema", "deprecation", "subscription", "config", "era", "server_requests",
     "routing", "mcp_servers"],
    # What the host asks for (requests and their options).
    ["request", "input_round"],
    # Errors: they gather the errors of the modules below.
    ["error"],
    # Answers, events and what is built on errors.
    ["response", "catalog", "event", "calls", "server_spec", "tool_formats", "exchange_failure",
     "timers", "wire", "notify_queue"],
    # The connection machine.
    ["connection"],
    # Test support for the fuzz targets (feature `_fuzz`).
    ["fuzzing"],
    # The crate root re-exports everything.
    ["lib"],
]

# The largest cycle allowed among files (a cycle is a set of modules that use each other): the
# files of `connection/`, which are still parts of one `impl Connection`. Lower it as the
# connection's parts come to own their state; never raise it.
MAX_CYCLE = 12

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def module_of(path):
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] == "mod":
        rel = rel[:-1]
    if rel == ["lib"]:
        return ("lib",)
    return tuple(rel)


def strip_tests(text):
    # Drop comments and string contents roughly: doc comments mention `crate::` paths.
    text = re.sub(r"//[^\n]*", "", text)
    # A visibility restriction (`pub(in crate::connection)`) names a module but uses nothing.
    text = re.sub(r"\bpub\s*\(\s*in\s+[\w:]+\s*\)", "pub", text)
    m = re.search(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*mod\s+" + IDENT, text)
    if m:
        text = text[: m.start()]
    return text


def expand_use(tree):
    """Expands a use tree (`a::{b, c::{d, e}}`) into paths."""
    # `B as C` becomes `B~C` (split again by the callers), then whitespace goes.
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "~", tree))
    out = []

    def go(prefix, t):
        i = t.find("{")
        if i < 0:
            for part in split_top(t):
                if part:
                    out.append(prefix + part)
            return
        head = t[:i]
        inner = t[i + 1 : matching(t, i)]
        for part in split_top(inner):
            if "{" in part:
                go(prefix + head, part)
            elif part:
                out.append(prefix + head + part)

    for part in split_top(tree):
        go("", part)
    return out


def matching(t, i):
    depth = 0
    for j in range(i, len(t)):
        if t[j] == "{":
            depth += 1
        elif t[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(t)


def split_top(t):
    parts, depth, cur = [], 0, ""
    for ch in t:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def module_prefix(path, here, modules):
    """The longest module a `::` path starts with, and the segments after it."""
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None, []
    if segs[0] == "crate":
        base, segs = (), segs[1:]
    elif segs[0] in ("super", "self"):
        base = here
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    elif here + (segs[0],) in modules or (here == ("lib",) and (segs[0],) in modules):
        # A path from a child module of this one (uniform paths): `http::Link`, `use cache::X`.
        base = () if here == ("lib",) else here
    else:
        return None, []
    best, rest = None, []
    for n in range(len(segs) + 1):
        cand = base + tuple(segs[:n])
        if cand in modules or cand == ():
            best, rest = cand, segs[n:]
    if best == ():
        best = ("lib",)
    return best, rest


class Graph:
    def __init__(self, modules):
        self.modules = modules
        self.defined = {m: set() for m in modules}
        self.imports = {m: {} for m in modules}  # name -> (module, item) it stands for
        self.globs = {m: [] for m in modules}

    def owner(self, mod, item, depth=0):
        """The module that defines `item` as seen from module `mod` (following imports)."""
        if depth > 8 or item is None:
            return mod
        if item in self.defined.get(mod, ()):
            return mod
        if item in self.imports.get(mod, {}):
            m2, i2 = self.imports[mod][item]
            return self.owner(m2, i2, depth + 1)
        for g in self.globs.get(mod, []):
            if item in self.defined.get(g, ()) or item in self.imports.get(g, {}):
                return self.owner(g, item, depth + 1)
        return mod

    def resolve(self, path, here):
        mod, rest = module_prefix(path, here, self.modules)
        if mod is None:
            return None
        return self.owner(mod, rest[0] if rest else None)


DEF = re.compile(r"\b(?:struct|enum|trait|fn|type|const|static|union|mod)\s+(" + IDENT + ")")
MACRO = re.compile(r"macro_rules!\s*(" + IDENT + ")")


WHY = {}


def inline_modules(text):
    """(start, end, name) of each inline `mod name { .. }` in a file."""
    out = []
    for m in re.finditer(r"\bmod\s+(" + IDENT + r")\s*\{", text):
        start = m.end() - 1
        out.append((start, matching(text, start), m.group(1)))
    return out


def read_graph():
    files = {}
    for dirpath, _, names in os.walk(ROOT):
        for name in names:
            if name.endswith(".rs"):
                files[module_of(os.path.join(dirpath, name))] = os.path.join(dirpath, name)
    modules = set(files)
    graph = Graph(modules)
    texts = {}
    for mod, path in files.items():
        base = os.path.basename(path)
        if base.endswith("_tests.rs") or base == "tests.rs":
            continue
        text = strip_tests(open(path, encoding="utf-8").read())
        texts[mod] = text
        graph.defined[mod] = set(DEF.findall(text)) | set(MACRO.findall(text))
        inline = inline_modules(text)
        for m in re.finditer(r"\buse\s+([^;]+);", text):
            if any(start <= m.start() < end for start, end, _ in inline):
                continue  # an inline module's imports are its own
            for p in expand_use(m.group(1)):
                alias = None
                if "~" in p:
                    p, alias = p.split("~")
                target, rest = module_prefix(p, mod, modules)
                if target is None:
                    continue
                if rest == ["*"]:
                    graph.globs[mod].append(target)
                elif rest:
                    graph.imports[mod][alias or rest[-1]] = (target, rest[0])
    edges = {m: set() for m in modules}
    for mod, text in texts.items():
        inline = inline_modules(text)
        paths = []
        for m in re.finditer(r"\buse\s+([^;]+);", text):
            paths.extend((m.start(), p.split("~")[0]) for p in expand_use(m.group(1)))
        for m in re.finditer(r"(?<![A-Za-z0-9_:])(" + IDENT + r"(?:::" + IDENT + r")+)", text):
            paths.append((m.start(), m.group(1)))
        for at, p in paths:
            # Inside an inline `mod x { .. }`, `super` is the file's module.
            here = mod + tuple(name for start, end, name in inline if start <= at < end)
            target = graph.resolve(p, here)
            if target is None or target == mod:
                continue
            edges[mod].add(target)
            WHY.setdefault((mod, target), set()).add(p)
    return files, edges


def sccs(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def name(m):
    return "::".join(m)


def unit_of(module, listed):
    """The longest name listed in LAYERS that is `module` or one of its ancestors."""
    for n in range(len(module), 0, -1):
        cand = "::".join(module[:n])
        if cand in listed:
            return cand
    return module[0]


def unit_graph(edges, listed):
    units = {}
    for a, bs in edges.items():
        ua = unit_of(a, listed)
        units.setdefault(ua, set())
        for b in bs:
            ub = unit_of(b, listed)
            if ub != ua:
                units[ua].add(ub)
    return units


def impl_report():
    """Inherent `impl Type {` blocks (test code left out): lines and methods per block, and
    per type the methods, lines and files over all its blocks."""
    blocks, per_type = [], {}
    for dirpath, _, names in os.walk(ROOT):
        for name in names:
            if not name.endswith(".rs") or name.endswith("_tests.rs") or name == "tests.rs":
                continue
            path = os.path.join(dirpath, name)
            text = strip_tests(open(path, encoding="utf-8").read())
            for m in re.finditer(r"\nimpl(?:<[^>]*>)?\s+(" + IDENT + r")(?:<[^>]*>)?\s*\{", text):
                start = m.end() - 1
                body = text[start : matching(text, start)]
                methods = len(re.findall(r"\n    (?:pub(?:\([^)]*\))? )?(?:const )?fn ", body))
                lines = body.count("\n")
                rel = os.path.relpath(path, ROOT)
                blocks.append((lines, methods, m.group(1), rel))
                t = per_type.setdefault(m.group(1), [0, 0, set()])
                t[0] += methods
                t[1] += lines
                t[2].add(rel)
    blocks.sort(reverse=True)
    print("largest inherent impl blocks (lines, methods, type, file):")
    for b in blocks[:5]:
        print(f"  {b[0]:5} lines {b[1]:3} methods  {b[2]}  {b[3]}")
    print("types with the most methods (methods, lines, files):")
    for name, (methods, lines, files) in sorted(per_type.items(), key=lambda kv: -kv[1][0])[:5]:
        print(f"  {name}: {methods} methods, {lines} lines, {len(files)} files")


def main():
    if "--impls" in sys.argv:
        impl_report()
        return 0
    files, edges = read_graph()
    if "--dot" in sys.argv:
        print("digraph core {")
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(f'  "{name(a)}" -> "{name(b)}";')
        print("}")
        return 0
    if "--why" in sys.argv:
        a, b = sys.argv[sys.argv.index("--why") + 1 :][:2]
        for (x, y), ps in sorted(WHY.items()):
            if name(x).startswith(a) and name(y).startswith(b):
                print(f"{name(x)} -> {name(y)}: " + ", ".join(sorted(ps)))
        return 0
    problems = []
    comps = sorted((c for c in sccs(edges) if len(c) > 1), key=len, reverse=True)
    largest = comps[0] if comps else []
    print(f"files: {len(files)}, edges: {sum(len(v) for v in edges.values())}")
    print(f"cycles among files: {len(comps)}; largest: {len(largest)} files")
    for c in comps:
        print(f"  {len(c)}: " + ", ".join(sorted(name(m) for m in c)))
    if len(largest) > MAX_CYCLE:
        problems.append(f"the largest cycle has {len(largest)} files (at most {MAX_CYCLE})")

    layer_of = {}
    for i, layer in enumerate(LAYERS):
        for m in layer:
            layer_of[m] = i
    top = unit_graph(edges, set(layer_of))
    for m in sorted(top):
        if m not in layer_of:
            problems.append(f"module `{m}` has no place in LAYERS (scripts/module-graph.py)")
    breaks = []
    for a in sorted(top):
        for b in sorted(top[a]):
            if a in layer_of and b in layer_of and layer_of[b] > layer_of[a]:
                breaks.append(f"{a} (layer {layer_of[a]}) uses {b} (layer {layer_of[b]})")
    print(f"layer breaks (a lower module using a higher one): {len(breaks)}")
    for b in breaks:
        print("  " + b)
    problems.extend(breaks)
    top_cycles = [c for c in sccs(top) if len(c) > 1]
    print(f"cycles among the units of LAYERS: {len(top_cycles)}")
    for c in top_cycles:
        print("  " + ", ".join(sorted(c)))
        problems.append("modules in a cycle: " + ", ".join(sorted(c)))
    if "--check" in sys.argv and problems:
        print("\nmodule-graph: FAILED", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
