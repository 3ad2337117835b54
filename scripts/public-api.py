#!/usr/bin/env python3
"""Checked-in listing of each library crate's public API (`api/<crate>.txt`), so that every change
to the API shows up in a diff (issue 38, point 6).

For each library crate it runs `cargo +nightly rustdoc -p CRATE --lib -- -Z unstable-options
--output-format json` (default features, own target dir `<target>/public-api`, so the stable
build cache is not touched) and renders the JSON as a sorted, line-per-item text listing:
modules; structs with their public fields; enums with their variants and fields; traits with
their items; functions and methods with their signatures (generics and where-clauses included);
consts, statics and type aliases with their types; inherent impl blocks with their items, trait
impls as `impl Trait for Type` lines (with their associated types), and one line per type for the
auto traits Send, Sync, Unpin, UnwindSafe and RefUnwindSafe. `#[doc(hidden)]` items are absent
(rustdoc leaves them out). `#[non_exhaustive]`, `#[must_use]`, `#[repr]` and `#[deprecated]` are
printed on the item's line.

Why rustdoc JSON and not `cargo public-api`: nothing to install beyond the nightly toolchain the
machine already has, and the output is tied to that one nightly: the script checks the JSON
`format_version` and fails, naming the version it reads, when the nightly changes.

Line forms, beyond Rust's own: `pub mcpwire_core::X::field: T` (a field), `pub mcpwire_core::E::V(T)` and
`pub mcpwire_core::E::V { .. }` (variants; a struct variant's fields follow), `{ /* private fields */
}` on a struct with private fields, `(provided)` on a trait item with a default, `impl<..> Type`
before the methods of that inherent impl, `impl Trait for Type { type Item = .. }` (a trait
impl with its associated types), `auto Type: Send + !Sync + Unpin (where T: Unpin) + ..`.

Paths: an item is listed in full under its shortest public path (ties: alphabetical); every
other public path to it is a `pub use <path> = <kind> <listed path>` line, and so is every name a
glob import of another workspace crate's module brings (`pub use mcpwire_async::facade::*`, expanded
from that crate's JSON; names the importing module defines itself shadow it, as in Rust); a glob
of any other crate's module stays one `pub use <path>::* = <source>::*` line. Impls of types with
no public path (private, or `#[doc(hidden)]` plumbing) are left out; where a listed signature
names such a type, it is named by its definition path. Types from the other
workspace crates are named by their public path in that crate (its JSON is generated too), items
of std / core / alloc as `std::<top module>::<Name>` (names of the Rust prelude bare), items of
other crates by the path rustdoc reports. Fields and variants keep declaration order (it is
API: tuple positions, derived `Ord`); everything else is sorted.

Usage:
  scripts/public-api.py                 regenerate api/*.txt
  scripts/public-api.py --check         regenerate into a temporary directory and diff with api/
  scripts/public-api.py --crate mcpwire-host   only this crate (repeatable; with or without --check)
"""
import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Dependency order (a crate's listing names the public paths of the crates before it).
LIB_CRATES = ["mcpwire-core", "mcpwire-host", "mcpwire-async", "mcpwire-tokio", "mcpwire-smol", "mcpwire-blocking"]
# The rustdoc JSON format this script reads: the one of nightly-x86_64-unknown-linux-gnu,
# rustc 1.97.0-nightly (2026-05-19). A newer nightly may change the format: check the changes
# (rust-lang/rustdoc-types CHANGELOG.md), adapt the renderers, then bump this.
FORMAT_VERSION = 57
TOOLCHAIN = "nightly"
ROOT = Path(__file__).resolve().parent.parent
API_DIR = ROOT / "api"
HINT = "run scripts/public-api.py and commit api/"

STD_CRATES = {"std", "core", "alloc"}
# Auto traits listed on one line per type; other synthetic impls (Freeze, UnsafeUnpin: unstable)
# are left out.
AUTO_TRAITS = ["Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe"]
# Names of the Rust 2021 prelude (and the auto traits), printed without their path.
PRELUDE = {
    "core::marker::Copy", "core::marker::Send", "core::marker::Sized", "core::marker::Sync",
    "core::marker::Unpin", "core::ops::drop::Drop", "core::ops::function::Fn",
    "core::ops::function::FnMut", "core::ops::function::FnOnce", "core::mem::drop",
    "core::convert::AsMut", "core::convert::AsRef", "core::convert::From", "core::convert::Into",
    "core::convert::TryFrom", "core::convert::TryInto", "core::iter::traits::collect::IntoIterator",
    "core::iter::traits::collect::Extend", "core::iter::traits::collect::FromIterator",
    "core::iter::traits::iterator::Iterator",
    "core::iter::traits::double_ended::DoubleEndedIterator",
    "core::iter::traits::exact_size::ExactSizeIterator", "core::option::Option",
    "core::result::Result", "core::clone::Clone", "core::cmp::PartialEq", "core::cmp::Eq",
    "core::cmp::PartialOrd", "core::cmp::Ord", "core::default::Default",
    "core::panic::unwind_safe::UnwindSafe", "core::panic::unwind_safe::RefUnwindSafe",
    "alloc::boxed::Box", "alloc::borrow::ToOwned", "alloc::string::String",
    "alloc::string::ToString", "alloc::vec::Vec",
}
# std's public modules below the top level that its items' definition paths go through; other
# modules below the top one in a definition path are private (`core::future::future::Future`).
STD_NESTED_MODULES = {("sync", "mpsc"), ("sync", "atomic"), ("os", "unix"), ("os", "fd"),
                      ("collections", "hash_map"), ("collections", "btree_map")}
# Crates whose items their facade re-exports at the same paths: named by the facade.
FACADES = {"serde_core": "serde"}
# Impls that are noise on every type: derive(PartialEq)'s marker and the unstable auto traits.
SKIPPED_TRAITS = {"core::marker::StructuralPartialEq", "core::marker::Freeze",
                  "core::marker::UnsafeUnpin"}


def fail(message):
    print(f"public-api: {message}", file=sys.stderr)
    sys.exit(2)


def variant(value):
    """(tag, payload) of a serde externally tagged enum value: `"infer"` or `{"generic": "T"}`."""
    if isinstance(value, str):
        return value, None
    (tag, payload), = value.items()
    return tag, payload


# ---------------------------------------------------------------------------------------------
# Building the JSON


def check_nightly():
    try:
        out = subprocess.run(["cargo", f"+{TOOLCHAIN}", "--version"], capture_output=True,
                             text=True, cwd=ROOT)
    except FileNotFoundError:
        fail("cargo is not on PATH")
    if out.returncode != 0:
        reason = (out.stderr.strip().splitlines() or ["no output"])[0]
        fail(f"`cargo +{TOOLCHAIN}` is not available ({reason}); the listing needs "
             f"the nightly toolchain for rustdoc JSON: `rustup toolchain install {TOOLCHAIN}`")


def target_dir():
    base = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return (base if base.is_absolute() else ROOT / base) / "public-api"


def rustdoc_json(crate):
    """Runs rustdoc for one crate and returns its parsed JSON."""
    out_dir = target_dir()
    cmd = ["cargo", f"+{TOOLCHAIN}", "rustdoc", "--quiet", "--locked", "-p", crate, "--lib",
           "--target-dir", str(out_dir), "--", "-Z", "unstable-options", "--output-format", "json"]
    result = subprocess.run(cmd, cwd=ROOT)
    if result.returncode != 0:
        fail(f"rustdoc failed for {crate}: {' '.join(cmd)}")
    path = out_dir / "doc" / f"{crate.replace('-', '_')}.json"
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if data.get("format_version") != FORMAT_VERSION:
        fail(f"{path}: rustdoc JSON format_version {data.get('format_version')}, but this script "
             f"reads format_version {FORMAT_VERSION} (nightly rustc 1.97.0 of 2026-05-19); adapt "
             f"scripts/public-api.py to the new format and update FORMAT_VERSION")
    return data


# ---------------------------------------------------------------------------------------------
# Public paths


class Crate:
    """One crate's rustdoc JSON plus the public paths of its items."""

    def __init__(self, data, known, workspace):
        self.index = data["index"]
        self.paths = data["paths"]
        self.name = self.index[str(data["root"])]["name"]
        # Public paths of items of the workspace crates listed before this one, by definition path.
        self.known = known
        # The Crate objects of those crates (by crate name, `mcpwire_host`), whose modules a glob
        # import of this crate may name.
        self.workspace = workspace
        self.all_paths = {}  # item id -> list of public paths (tuples)
        self.foreign_uses = []  # (path, shown) of re-exports of items not in this JSON
        self.glob_lines = []  # (path, line) for globs of modules not in a workspace crate
        self.entries = {}  # module id -> [(name, ref)] of the names visible in it (see below)
        self._walk(data["root"])
        # Enum variants have their enum's path; one re-exported (`pub use E::*`) is an alias.
        self.enum_of = {v: int(k) for k, i in self.index.items() if "enum" in i["inner"]
                        for v in i["inner"]["enum"]["variants"]}
        self.primary = {i: min(ps, key=lambda p: (len(p), p)) for i, ps in self.all_paths.items()}

    def item(self, item_id):
        return self.index.get(str(item_id))

    def _walk(self, root_id):
        """Breadth-first from the crate root, one depth at a time in sorted order, so a module's
        first visit is its primary path; modules reached again are not entered again."""
        level = [((self.name,), root_id)]
        while level:
            following = []
            for prefix, module_id in sorted(level, key=lambda e: e[0]):
                if module_id in self.entries:
                    continue
                self.entries[module_id] = self._module_entries(prefix, module_id)
                for name, ref in self.entries[module_id]:
                    path = prefix + (name,)
                    if isinstance(ref, str):  # an item of another crate, already rendered
                        self.foreign_uses.append((path, ref))
                        continue
                    self.all_paths.setdefault(ref, []).append(path)
                    if "module" in self.item(ref)["inner"]:
                        following.append((path, ref))
            level = following

    def _module_entries(self, prefix, module_id):
        """(name, ref) of the names visible in a module, re-exports followed: ref is the id of a
        local item, or for another crate's item the text `<kind> <path>` of its `pub use` line.
        Names a glob import brings are shadowed by the module's own names, as in Rust (which
        also keeps value and type namespaces apart; names here are taken as one namespace)."""
        own, globbed = [], []
        for child_id in self.item(module_id)["inner"]["module"]["items"]:
            child = self.item(child_id)
            if child is None or child["visibility"] != "public":
                continue
            kind, inner = variant(child["inner"])
            if kind == "use" and inner["is_glob"]:
                globbed.extend(self._glob_entries(prefix, inner))
            elif kind == "use":
                own.extend(self._use_entries(inner))
            elif kind == "impl" or (kind == "module" and inner["is_stripped"]):
                continue
            elif child["name"] is not None:
                own.append((child["name"], child_id))
        taken = {name for name, _ in own}
        for name, ref in globbed:
            if name not in taken:  # shadowed, or already brought by an earlier glob
                taken.add(name)
                own.append((name, ref))
        return own

    def _use_entries(self, use):
        """The name a single (not glob) `pub use` brings."""
        if self.item(use["id"]) is not None:
            return [(use["name"], use["id"])]
        # Another crate's item (or a primitive): listed as a `pub use` line.
        summary = self.paths.get(str(use["id"])) if use["id"] is not None else None
        if summary is None:
            return [(use["name"], use["source"])]
        shown = self.external_path(use["id"]) or use["source"]
        return [(use["name"], f"{kind_word(summary['kind'])} {shown}")]

    def _glob_entries(self, prefix, use):
        """The names a `pub use path::*` brings: a local module's or enum's, or those of a
        module of another workspace crate (read from that crate's JSON, its own globs already
        expanded there). Globs of other crates' modules stay one `pub use path::*` line."""
        target = self.item(use["id"]) if use["id"] is not None else None
        if target is None:
            entries = self._workspace_module_entries(use["id"])
            if entries is None:
                line = f"pub use {'::'.join(prefix)}::* = {use['source']}::*"
                self.glob_lines.append((prefix, line))
                return []
            return entries
        kind, inner = variant(target["inner"])
        if kind == "module":
            return self._module_entries(prefix, use["id"])
        if kind == "enum":
            return [(self.item(v)["name"], v) for v in inner["variants"]]
        return []

    def _workspace_module_entries(self, item_id):
        """(name, `<kind> <path>`) of the names visible in a module of an earlier workspace
        crate, or None when the id is not such a module (or that module is not public)."""
        summary = self.paths.get(str(item_id)) if item_id is not None else None
        if summary is None or summary["kind"] != "module":
            return None
        other = self.workspace.get(summary["path"][0])
        if other is None:
            return None
        module_id = other.module_by_definition(tuple(summary["path"]))
        if module_id is None:
            return None
        return [(name, other.shown(ref)) for name, ref in other.entries[module_id]]

    def module_by_definition(self, path):
        """Id of the public module of this crate defined at `path`, or None."""
        for item_id, summary in self.paths.items():
            if summary["crate_id"] == 0 and summary["kind"] == "module" and \
                    tuple(summary["path"]) == path and int(item_id) in self.entries:
                return int(item_id)
        return None

    def shown(self, ref):
        """`<kind> <public path>` of an entry of one of this crate's modules, for the `pub use`
        line of a crate that glob-imports the module."""
        if isinstance(ref, str):
            return ref
        if ref in self.enum_of:
            return f"variant {self.path_of(self.enum_of[ref])}::{self.item(ref)['name']}"
        kind = variant(self.item(ref)["inner"])[0]
        return f"{kind_word(kind)} {self.path_of(ref)}"

    def external_path(self, item_id):
        """Display path of an item known only through `paths` (another crate's, or a private
        local one)."""
        summary = self.paths.get(str(item_id))
        if summary is None:
            return None
        parts = tuple(summary["path"])
        joined = "::".join(parts)
        if parts in self.known:
            return self.known[parts]
        if joined in PRELUDE:
            return parts[-1]
        if parts[0] in STD_CRATES:
            return std_path(parts)
        if parts[0] in FACADES:
            return "::".join((FACADES[parts[0]],) + parts[1:])
        return joined

    def path_of(self, item_id, written=None):
        """How an item is named in a signature."""
        if item_id in self.primary:
            return "::".join(self.primary[item_id])
        found = self.external_path(item_id)
        return found if found is not None else written

    def definition_paths(self):
        """Definition path -> public path of this crate's items, for the crates after it."""
        out = {}
        for item_id, path in self.primary.items():
            summary = self.paths.get(str(item_id))
            if summary is not None and summary["crate_id"] == 0:
                out[tuple(summary["path"])] = "::".join(path)
        return out


# ---------------------------------------------------------------------------------------------
# Types, bounds, generics


class Render:
    """Types, bounds and generics as Rust-like text, items named by their public paths."""

    def __init__(self, crate):
        self.c = crate

    def type(self, ty):
        kind, v = variant(ty)
        if kind == "resolved_path":
            return self.path(v)
        if kind == "dyn_trait":
            parts = [self.poly_trait(p) for p in v["traits"]]
            if v["lifetime"]:
                parts.append(v["lifetime"])
            return "dyn " + " + ".join(parts)
        if kind in ("generic", "primitive"):
            return v
        if kind == "function_pointer":
            return self.hrtb(v["generic_params"]) + self.header(v["header"]) + "fn" + \
                self.signature(v["sig"], names=False)
        if kind == "tuple":
            inner = ", ".join(self.type(t) for t in v)
            return f"({inner},)" if len(v) == 1 else f"({inner})"
        if kind == "slice":
            return f"[{self.type(v)}]"
        if kind == "array":
            return f"[{self.type(v['type'])}; {v['len']}]"
        if kind == "pat":
            return f"{self.type(v['type'])} is _"
        if kind == "impl_trait":
            return "impl " + self.bounds(v)
        if kind == "infer":
            return "_"
        if kind == "raw_pointer":
            return ("*mut " if v["is_mutable"] else "*const ") + self.pointee(v["type"])
        if kind == "borrowed_ref":
            lifetime = v["lifetime"] + " " if v["lifetime"] else ""
            return "&" + lifetime + ("mut " if v["is_mutable"] else "") + self.pointee(v["type"])
        if kind == "qualified_path":
            args = self.generic_args(v["args"])
            self_kind, self_name = variant(v["self_type"])
            if v["trait"] is None:
                return f"{self.type(v['self_type'])}::{v['name']}{args}"
            if self_kind == "generic":  # `T::Item`, `Self::Output`: as written in source
                return f"{self_name}::{v['name']}{args}"
            return f"<{self.type(v['self_type'])} as {self.path(v['trait'])}>::{v['name']}{args}"
        raise ValueError(f"unknown type kind {kind}")

    def pointee(self, ty):
        """`&(dyn A + B)` needs the parentheses that `&dyn A` does not."""
        text = self.type(ty)
        kind, v = variant(ty)
        several = (kind == "dyn_trait" and len(v["traits"]) + bool(v["lifetime"]) > 1) or \
            (kind == "impl_trait" and len(v) > 1)
        return f"({text})" if several else text

    def path(self, p):
        return self.c.path_of(p["id"], p["path"]) + self.generic_args(p["args"])

    def generic_args(self, args):
        if args is None:
            return ""
        kind, v = variant(args)
        if kind == "angle_bracketed":
            parts = [self.generic_arg(a) for a in v["args"]]
            parts += [self.constraint(c) for c in v["constraints"]]
            return f"<{', '.join(parts)}>" if parts else ""
        if kind == "parenthesized":
            out = "(" + ", ".join(self.type(t) for t in v["inputs"]) + ")"
            return out + (f" -> {self.type(v['output'])}" if v["output"] else "")
        return "(..)"  # return type notation

    def generic_arg(self, arg):
        kind, v = variant(arg)
        if kind == "lifetime":
            return v
        if kind == "type":
            return self.type(v)
        if kind == "const":
            return v["expr"]
        return "_"

    def constraint(self, c):
        name = c["name"] + self.generic_args(c["args"])
        kind, v = variant(c["binding"])
        if kind == "equality":
            return f"{name} = {self.term(v)}"
        return f"{name}: {self.bounds(v)}"

    def term(self, term):
        kind, v = variant(term)
        return self.type(v) if kind == "type" else v["expr"]

    def bounds(self, bounds):
        return " + ".join(self.bound(b) for b in bounds)

    def bound(self, b):
        kind, v = variant(b)
        if kind == "trait_bound":
            modifier = {"none": "", "maybe": "?", "maybe_const": "[const] "}[v["modifier"]]
            return self.hrtb(v["generic_params"]) + modifier + self.path(v["trait"])
        if kind == "outlives":
            return v
        return "use<" + ", ".join(variant(a)[1] for a in v) + ">"

    def poly_trait(self, p):
        return self.hrtb(p["generic_params"]) + self.path(p["trait"])

    def hrtb(self, params):
        return f"for<{', '.join(self.param(p) for p in params)}> " if params else ""

    def param(self, p):
        kind, v = variant(p["kind"])
        if kind == "lifetime":
            return p["name"] + (": " + " + ".join(v["outlives"]) if v["outlives"] else "")
        if kind == "type":
            out = p["name"] + (": " + self.bounds(v["bounds"]) if v["bounds"] else "")
            return out + (f" = {self.type(v['default'])}" if v["default"] else "")
        out = f"const {p['name']}: {self.type(v['type'])}"
        return out + (f" = {v['default']}" if v["default"] else "")

    def generics(self, g):
        """`<...>` of the declared (not `impl Trait`-synthesised) parameters."""
        params = [p for p in g["params"]
                  if not (variant(p["kind"])[0] == "type" and p["kind"]["type"]["is_synthetic"])]
        return f"<{', '.join(self.param(p) for p in params)}>" if params else ""

    def where(self, g):
        preds = [self.predicate(p) for p in g["where_predicates"]]
        return " where " + ", ".join(preds) if preds else ""

    def predicate(self, pred):
        kind, v = variant(pred)
        if kind == "bound_predicate":
            bounded = self.hrtb(v["generic_params"]) + self.type(v["type"])
            return f"{bounded}: {self.bounds(v['bounds'])}"
        if kind == "lifetime_predicate":
            return f"{v['lifetime']}: {' + '.join(v['outlives'])}"
        return f"{self.type(v['lhs'])} == {self.term(v['rhs'])}"

    def header(self, h):
        out = ("const " if h["is_const"] else "") + ("async " if h["is_async"] else "") + \
            ("unsafe " if h["is_unsafe"] else "")
        abi_kind, abi = variant(h["abi"])  # "Rust", {"C": {"unwind": false}}, {"Other": "..."}
        if abi_kind == "Other":
            out += f'extern "{abi}" '
        elif abi_kind != "Rust":
            name = "C" if abi_kind == "C" else abi_kind.lower()
            out += f'extern "{name}{"-unwind" if abi["unwind"] else ""}" '
        return out

    def signature(self, sig, names=True):
        args = []
        for name, ty in sig["inputs"]:
            if name == "self":
                args.append(self.self_arg(ty))
            else:
                args.append(f"{name}: {self.type(ty)}" if names else self.type(ty))
        if sig["is_c_variadic"]:
            args.append("...")
        out = f"({', '.join(args)})"
        return out + (f" -> {self.type(sig['output'])}" if sig["output"] is not None else "")

    def self_arg(self, ty):
        kind, v = variant(ty)
        if kind == "generic" and v == "Self":
            return "self"
        if kind == "borrowed_ref" and variant(v["type"]) == ("generic", "Self"):
            lifetime = v["lifetime"] + " " if v["lifetime"] else ""
            return "&" + lifetime + ("mut " if v["is_mutable"] else "") + "self"
        return f"self: {self.type(ty)}"


# ---------------------------------------------------------------------------------------------
# Items


def attributes(item):
    """Semver-relevant attributes, as a line prefix."""
    out = []
    for attr in item["attrs"]:
        kind, v = variant(attr)
        if kind == "non_exhaustive":
            out.append("#[non_exhaustive]")
        elif kind == "must_use":
            out.append("#[must_use]")
        elif kind == "repr":
            parts = [{"c": "C"}.get(v["kind"], v["kind"])] if v["kind"] != "rust" else []
            parts += [v["int"]] if v["int"] else []
            parts += [f"align({v['align']})"] if v["align"] else []
            parts += [f"packed({v['packed']})"] if v["packed"] else []
            if parts:
                out.append(f"#[repr({', '.join(parts)})]")
    if item["deprecation"] is not None:
        out.append("#[deprecated]")
    return "".join(a + " " for a in out)


class Listing:
    """Renders every public item of one crate to (sort key, lines) blocks."""

    def __init__(self, crate):
        self.c = crate
        self.r = Render(crate)
        self.blocks = []
        self.impls = self.impls_by_owner()

    def lines(self):
        for item_id, paths in self.c.all_paths.items():
            if item_id in self.c.enum_of:  # a re-exported variant
                enum_path = self.c.path_of(self.c.enum_of[item_id])
                for path in paths:
                    self.add(path, 9, [f"pub use {'::'.join(path)} = variant "
                                       f"{enum_path}::{self.c.item(item_id)['name']}"])
                continue
            primary = self.c.primary[item_id]
            for path in paths:
                if path != primary:
                    kind = variant(self.c.item(item_id)["inner"])[0]
                    self.add(path, 9, [f"pub use {'::'.join(path)} = {kind_word(kind)} "
                                       f"{'::'.join(primary)}"])
            self.item(primary, self.c.item(item_id))
        self.external_uses()
        for prefix, line in self.c.glob_lines:
            self.add(prefix + ("*",), 9, [line])
        self.root_impls()
        out = []
        for _, block in sorted(self.blocks, key=lambda b: b[0]):
            out.extend(block)
        return out

    def add(self, path, rank, lines):
        self.blocks.append(((path, rank, lines[0]), lines))

    def item(self, path, item):
        name = "::".join(path)
        kind, v = variant(item["inner"])
        renderer = getattr(self, "item_" + kind, None)
        if renderer is None:
            self.add(path, 8, [f"{attributes(item)}pub {kind_word(kind)} {name}"])
        else:
            renderer(path, name, item, v)

    def item_module(self, path, name, item, v):
        self.add(path, 0, [f"pub mod {name}"])

    def item_function(self, path, name, item, f):
        self.add(path, 5, [self.function_line(name, item, f)])

    def function_line(self, name, item, f, provided=False):
        g = f["generics"]
        line = f"{attributes(item)}pub {self.r.header(f['header'])}fn {name}" + \
            self.r.generics(g) + self.r.signature(f["sig"]) + self.r.where(g)
        return line + (" (provided)" if provided else "")

    def item_constant(self, path, name, item, v):
        self.add(path, 4, [f"{attributes(item)}pub const {name}: {self.r.type(v['type'])}"
                           + const_value(v["const"])])

    def item_static(self, path, name, item, v):
        mutable = "mut " if v["is_mutable"] else ""
        self.add(path, 4, [f"{attributes(item)}pub static {mutable}{name}: "
                           f"{self.r.type(v['type'])}"])

    def item_type_alias(self, path, name, item, v):
        self.add(path, 3, [f"{attributes(item)}pub type {name}{self.r.generics(v['generics'])} = "
                           f"{self.r.type(v['type'])}{self.r.where(v['generics'])}"])

    def item_struct(self, path, name, item, v):
        g = v["generics"]
        head = f"{attributes(item)}pub struct {name}{self.r.generics(g)}"
        kind, fields = variant(v["kind"])
        lines = []
        if kind == "unit":
            head += self.r.where(g) + ";"
        elif kind == "tuple":
            head += self.tuple_fields(fields) + self.r.where(g)
        else:
            head += self.r.where(g) + (" { /* private fields */ }"
                                       if fields["has_stripped_fields"] else "")
            lines = [self.field_line(name, self.c.item(f)) for f in fields["fields"]]
        self.add(path, 1, [head] + lines + self.impl_lines(item))

    def item_union(self, path, name, item, v):
        g = v["generics"]
        head = f"{attributes(item)}pub union {name}{self.r.generics(g)}{self.r.where(g)}"
        head += " { /* private fields */ }" if v["has_stripped_fields"] else ""
        lines = [self.field_line(name, self.c.item(f)) for f in v["fields"]]
        self.add(path, 1, [head] + lines + self.impl_lines(item))

    def item_enum(self, path, name, item, v):
        g = v["generics"]
        head = f"{attributes(item)}pub enum {name}{self.r.generics(g)}{self.r.where(g)}"
        head += " { /* some variants omitted */ }" if v["has_stripped_variants"] else ""
        lines = []
        for variant_id in v["variants"]:
            lines.extend(self.variant_lines(name, self.c.item(variant_id)))
        self.add(path, 1, [head] + lines + self.impl_lines(item))

    def variant_lines(self, enum_name, item):
        name = f"{enum_name}::{item['name']}"
        v = item["inner"]["variant"]
        kind, fields = variant(v["kind"])
        discriminant = f" = {v['discriminant']['expr']}" if v["discriminant"] else ""
        if kind == "plain":
            return [f"{attributes(item)}pub {name}{discriminant}"]
        if kind == "tuple":
            fields_text = self.tuple_fields(fields, pub=False)
            return [f"{attributes(item)}pub {name}{fields_text}{discriminant}"]
        hidden = " /* some fields omitted */" if fields["has_stripped_fields"] else ""
        head = f"{attributes(item)}pub {name} {{ .. }}{hidden}{discriminant}"
        return [head] + [self.field_line(name, self.c.item(f)) for f in fields["fields"]]

    def tuple_fields(self, fields, pub=True):
        parts = []
        for field_id in fields:
            field = self.c.item(field_id) if field_id is not None else None
            if field is None:
                parts.append("/* private field */" if pub else "_")
            else:
                parts.append(("pub " if pub else "") + self.r.type(field["inner"]["struct_field"]))
        return f"({', '.join(parts)})"

    def field_line(self, owner, field):
        return f"{attributes(field)}pub {owner}::{field['name']}: " + \
            self.r.type(field["inner"]["struct_field"])

    def item_trait(self, path, name, item, t):
        g = t["generics"]
        head = attributes(item) + "pub " + ("unsafe " if t["is_unsafe"] else "") + \
            ("auto " if t["is_auto"] else "") + f"trait {name}{self.r.generics(g)}"
        head += (": " + self.r.bounds(t["bounds"]) if t["bounds"] else "") + self.r.where(g)
        members = sorted(self.assoc_line(name, self.c.item(i), in_trait=True) for i in t["items"])
        self.add(path, 2, [head] + members + self.impl_lines(item))

    def item_trait_alias(self, path, name, item, t):
        g = t["generics"]
        self.add(path, 2, [f"{attributes(item)}pub trait {name}{self.r.generics(g)} = "
                           f"{self.r.bounds(t['params'])}{self.r.where(g)}"])

    def item_macro(self, path, name, item, v):
        self.add(path, 6, [f"{attributes(item)}pub macro {name}!"])

    def item_proc_macro(self, path, name, item, v):
        self.add(path, 6, [f"{attributes(item)}pub proc_macro({v['kind']}) {name}"])

    def assoc_line(self, owner, item, in_trait=False):
        """A method, associated const or associated type of a trait or an inherent impl."""
        name = f"{owner}::{item['name']}"
        kind, v = variant(item["inner"])
        if kind == "function":
            return self.function_line(name, item, v, provided=in_trait and v["has_body"])
        if kind == "assoc_const":
            value = f" = {v['value']}" if v["value"] not in (None, "_") and not in_trait else ""
            provided = " (provided)" if in_trait and v["value"] else ""
            return f"{attributes(item)}pub const {name}: {self.r.type(v['type'])}{value}{provided}"
        if kind == "assoc_type":
            g = v["generics"]
            out = f"{attributes(item)}pub type {name}{self.r.generics(g)}"
            out += (": " + self.r.bounds(v["bounds"]) if v["bounds"] else "")
            out += (f" = {self.r.type(v['type'])}" if v["type"] else "") + self.r.where(g)
            return out
        raise ValueError(f"unknown associated item kind {kind}")

    # Impls ------------------------------------------------------------------------------------

    def impl_lines(self, item):
        """Inherent impls (header, then items), trait impls, then the auto-trait line of a type."""
        inherent, traits, auto = {}, [], {}
        for impl_item in self.impls.get(item["id"], []):
            impl = impl_item["inner"]["impl"]
            if impl["trait"] is None:
                head = self.impl_head(impl)
                members = inherent.setdefault(head, [])
                owner = self.r.type(impl["for"])
                for member_id in impl["items"]:
                    member = self.c.item(member_id)
                    if member is not None and member["visibility"] == "public":
                        members.append(self.assoc_line(owner, member))
                continue
            trait_path = self.trait_definition(impl)
            auto_name = auto_trait_name(trait_path)
            if auto_name is not None:
                auto[auto_name] = impl
            elif trait_path not in SKIPPED_TRAITS:
                traits.append(self.trait_impl_line(impl))
        lines = []
        for head in sorted(inherent):
            if inherent[head]:
                lines.append(head)
                lines.extend(sorted(inherent[head]))
        lines.extend(sorted(traits))
        if auto:
            lines.append(self.auto_line(auto))
        return lines

    def impls_by_owner(self):
        """Every impl worth listing, by the id of the item it is listed with: the type it is for
        when that is a public local type (also `&Type`), else the local trait it implements,
        else the first public local type among the trait's arguments (`impl From<mcpwire_core::X>
        for String`), else the crate root (id None). Blanket impls seen through a type (`impl<T>
        From<T> for T` on every type) are not impls of this crate and are left out."""
        owners = {}
        for impl_item in self.c.index.values():
            if "impl" not in impl_item["inner"]:
                continue
            impl = impl_item["inner"]["impl"]
            if impl["blanket_impl"] is not None:
                continue
            if self.unlisted_local_type(impl["for"]):
                continue  # an impl of plumbing (a hidden or private type): not API
            if impl["trait"] is not None:
                trait_id = impl["trait"]["id"]
                if self.c.item(trait_id) is not None and trait_id not in self.c.primary:
                    continue  # a trait of this crate with no public path (sealed or hidden)
            candidates = local_ids(impl["for"], self.c.primary)
            if impl["trait"] is not None:
                candidates += [impl["trait"]["id"]] if impl["trait"]["id"] in self.c.primary else []
                candidates += local_ids(impl["trait"]["args"], self.c.primary)
            owner = candidates[0] if candidates else None
            if owner is None and impl["trait"] is None:
                continue  # an inherent impl of a type with no public path: nothing to call
            owners.setdefault(owner, []).append(impl_item)
        return owners

    def unlisted_local_type(self, ty):
        """Whether a type is (a reference or pointer to) a type of this crate with no public
        path (`#[doc(hidden)]` or private), whose impls are therefore not listed; such a type
        is still named, by its definition path, where a listed signature uses it."""
        kind, v = variant(ty)
        if kind in ("borrowed_ref", "raw_pointer"):
            return self.unlisted_local_type(v["type"])
        if kind != "resolved_path":
            return False
        summary = self.c.paths.get(str(v["id"]))
        local = self.c.item(v["id"]) is not None or (summary or {}).get("crate_id") == 0
        return local and v["id"] not in self.c.primary

    def impl_head(self, impl):
        return ("unsafe " if impl["is_unsafe"] else "") + "impl" + \
            self.r.generics(impl["generics"]) + " " + self.r.type(impl["for"]) + \
            self.r.where(impl["generics"])

    def trait_impl_line(self, impl):
        negative = "!" if impl["is_negative"] else ""
        line = ("unsafe " if impl["is_unsafe"] else "") + "impl" + \
            self.r.generics(impl["generics"]) + " " + negative + self.r.path(impl["trait"]) + \
            " for " + self.r.type(impl["for"]) + self.r.where(impl["generics"])
        assoc = []
        for member_id in impl["items"]:
            member = self.c.item(member_id)
            kind, v = variant(member["inner"])
            if kind == "assoc_type":
                assoc.append(f"type {member['name']}{self.r.generics(v['generics'])} = "
                             f"{self.r.type(v['type'])}")
            elif kind == "assoc_const":
                assoc.append(f"const {member['name']}: {self.r.type(v['type'])}"
                             + (f" = {v['value']}" if v["value"] not in (None, "_") else ""))
        return line + (" { " + "; ".join(sorted(assoc)) + " }" if assoc else "")

    def auto_line(self, auto):
        """`auto Type: Send + !Sync + Unpin (where T: Unpin) + ...`: which auto traits the type
        has, and on what condition for a generic type."""
        parts = []
        for name in AUTO_TRAITS:
            impl = auto.get(name)
            if impl is None or impl["is_negative"]:
                parts.append("!" + name)
                continue
            preds = [self.r.predicate(p) for p in impl["generics"]["where_predicates"]]
            parts.append(name + (f" (where {', '.join(preds)})" if preds else ""))
        owner = self.r.type(next(iter(auto.values()))["for"])
        return f"auto {owner}: {' + '.join(parts)}"

    def trait_definition(self, impl):
        summary = self.c.paths.get(str(impl["trait"]["id"]))
        return "::".join(summary["path"]) if summary else impl["trait"]["path"]

    def root_impls(self):
        """Impls with no local type or trait to be listed with, at the crate root."""
        lines = [self.trait_impl_line(i["inner"]["impl"]) for i in self.impls.get(None, [])
                 if self.trait_definition(i["inner"]["impl"]) not in SKIPPED_TRAITS]
        if lines:
            self.add((self.c.name,), 7, sorted(lines))

    def external_uses(self):
        """`pub use` of items this crate's JSON does not contain (other crates' items)."""
        for path, shown in self.c.foreign_uses:
            self.add(path, 9, [f"pub use {'::'.join(path)} = {shown}"])


def std_path(parts):
    """std's usual public path of a std / core / alloc item, from its definition path: the top
    module and the item (`core::task::poll::Poll` is `std::task::Poll`), keeping the public
    nested modules of STD_NESTED_MODULES (`std::sync::mpsc::SyncSender`)."""
    modules = parts[1:-1]
    keep = modules[:2] if tuple(modules[:2]) in STD_NESTED_MODULES else modules[:1]
    return "::".join(("std",) + tuple(keep) + (parts[-1],))


def auto_trait_name(definition):
    for name in AUTO_TRAITS:
        if definition in (f"core::marker::{name}", f"core::panic::unwind_safe::{name}"):
            return name
    return None


def local_ids(value, public):
    """Ids of public local items named anywhere in a type or generic-args value, in order."""
    found = []
    if isinstance(value, dict):
        if isinstance(value.get("id"), int) and value["id"] in public and "path" in value:
            found.append(value["id"])
        for child in value.values():
            found.extend(local_ids(child, public))
    elif isinstance(value, list):
        for child in value:
            found.extend(local_ids(child, public))
    return found


def kind_word(kind):
    return {"module": "mod", "function": "fn", "type_alias": "type", "constant": "const",
            "variant": "variant", "struct_field": "field", "trait_alias": "trait",
            "assoc_const": "const", "assoc_type": "type", "primitive": "primitive"}.get(kind, kind)


def const_value(const):
    if const["value"] is not None:
        return f" = {const['value']}"
    return f" = {const['expr']}" if const["expr"] != "_" else ""


# ---------------------------------------------------------------------------------------------
# Driver


def workspace_deps(data):
    return {name.replace("_", "-") for name in
            (v["name"] for v in data["external_crates"].values())} & set(LIB_CRATES)


def generate(crates, out_dir):
    """Builds the JSON of the requested crates and of the workspace crates they depend on (whose
    public paths their listings use), writes the requested listings, returns the line counts."""
    check_nightly()
    datas, wanted = {}, list(crates)
    while wanted:
        crate = wanted.pop()
        if crate in datas:
            continue
        started = time.monotonic()
        datas[crate] = rustdoc_json(crate)
        print(f"rustdoc JSON of {crate}: {time.monotonic() - started:.0f} s", flush=True)
        wanted.extend(workspace_deps(datas[crate]) - set(datas))
    known, workspace, counts = {}, {}, {}
    for crate in LIB_CRATES:
        if crate not in datas:
            continue
        parsed = Crate(datas[crate], dict(known), dict(workspace))
        known.update(parsed.definition_paths())
        workspace[parsed.name] = parsed
        if crate in crates:
            lines = Listing(parsed).lines()
            header = (f"# Public API of {crate} (default features), generated by "
                      f"scripts/public-api.py from rustdoc JSON format {FORMAT_VERSION}. "
                      f"Do not edit.\n")
            (out_dir / f"{crate}.txt").write_text(header + "".join(l + "\n" for l in lines),
                                                  encoding="utf-8")
            counts[crate] = len(lines)
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary directory and diff against api/")
    parser.add_argument("--crate", action="append", choices=LIB_CRATES,
                        help="only this crate (repeatable)")
    args = parser.parse_args()
    crates = args.crate or LIB_CRATES
    # Listings of crates that are no longer library crates of the workspace.
    stale = sorted(p for p in API_DIR.glob("*.txt") if p.stem not in LIB_CRATES) \
        if not args.crate else []
    if not args.check:
        API_DIR.mkdir(exist_ok=True)
        counts = generate(crates, API_DIR)
        for crate in crates:
            print(f"api/{crate}.txt: {counts[crate]} lines")
        for path in stale:
            path.unlink()
            print(f"api/{path.name}: removed (not a library crate)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        counts = generate(crates, Path(tmp))
        differs = False
        for crate in crates:
            fresh = (Path(tmp) / f"{crate}.txt").read_text(encoding="utf-8").splitlines(True)
            committed_path = API_DIR / f"{crate}.txt"
            committed = committed_path.read_text(encoding="utf-8").splitlines(True) \
                if committed_path.exists() else []
            diff = list(difflib.unified_diff(committed, fresh, f"api/{crate}.txt (checked in)",
                                             f"api/{crate}.txt (from the source)"))
            status = "differs" if diff else "up to date"
            print(f"api/{crate}.txt: {counts[crate]} lines, {status}")
            if diff:
                differs = True
                sys.stdout.writelines(diff)
        for path in stale:
            differs = True
            print(f"api/{path.name}: not a library crate of the workspace")
        if differs:
            print(f"\nThe public API listing is out of date: {HINT}.")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
