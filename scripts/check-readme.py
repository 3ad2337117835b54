#!/usr/bin/env python3
"""Keeps the front page short and the documentation's links whole (run by .ci/run after the docs).

- README.md has at most 250 lines, and no line longer than 200 characters outside code blocks and
  tables (a table row may be long: it is a row of figures or of one feature each);
- every relative link in README.md and docs/*.md points at a file or folder that exists, and a
  link with an anchor into a Markdown file names a heading of that file (GitHub's anchors:
  lowercase, punctuation dropped, spaces as hyphens).

Exits 1 naming every problem; `--self-test` checks the checks on small inputs first."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_LINES = 250
MAX_WIDTH = 200
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(text):
    """(line number, line) of every line outside fenced code blocks."""
    inside = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    found, seen = set(), {}
    for _, line in prose_lines(text):
        match = re.match(r"^#{1,6}\s+(.*)$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def check_length(name, text):
    problems = []
    lines = text.rstrip("\n").split("\n")
    if len(lines) > MAX_LINES:
        problems.append(f"{name}: {len(lines)} lines (at most {MAX_LINES})")
    for number, line in prose_lines(text):
        if len(line) > MAX_WIDTH and not line.lstrip().startswith("|"):
            problems.append(f"{name}:{number}: {len(line)} characters (at most {MAX_WIDTH} outside code and tables)")
    return problems


def check_links(path, text, root, exists, read):
    problems = []
    for number, line in prose_lines(text):
        line = re.sub(r"`[^`]*`", "", line)  # a link inside inline code is not a link
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
                continue
            file_part, _, anchor = target.partition("#")
            where = path if not file_part else (path.parent / file_part)
            if file_part and not exists(where):
                problems.append(f"{path.relative_to(root)}:{number}: {target}: no such file")
                continue
            if anchor and where.suffix == ".md" and anchor not in anchors(read(where)):
                problems.append(f"{path.relative_to(root)}:{number}: {target}: no heading with that anchor")
    return problems


def check(root):
    readme = root / "README.md"
    pages = [readme] + sorted((root / "docs").glob("*.md"))
    problems = check_length("README.md", readme.read_text())
    for page in pages:
        problems += check_links(page, page.read_text(), root, lambda p: p.exists(), lambda p: p.read_text())
    return problems


def self_test():
    long_prose = "x" * 201
    assert check_length("R", long_prose + "\n"), "a long prose line passes"
    assert not check_length("R", "```\n" + long_prose + "\n```\n"), "a long code line fails"
    assert not check_length("R", "| " + long_prose + " |\n"), "a long table row fails"
    assert check_length("R", "a\n" * 251), "251 lines pass"
    assert slug("Tools for an LLM provider") == "tools-for-an-llm-provider"
    assert slug("Servers from an `mcpServers` file") == "servers-from-an-mcpservers-file"
    assert slug("Multi-round-trip input (2026-07-28)") == "multi-round-trip-input-2026-07-28"
    root = pathlib.Path("/r")
    files = {root / "docs" / "a.md": "# Alpha beta\n", root / "README.md": ""}
    exists = lambda p: p.resolve() in {f.resolve() for f in files}
    read = lambda p: files[p.resolve()]
    page = root / "README.md"
    assert not check_links(page, "[a](docs/a.md#alpha-beta) [w](https://x.y/z)", root, exists, read)
    assert check_links(page, "[a](docs/b.md)", root, exists, read), "a missing file passes"
    assert check_links(page, "[a](docs/a.md#gamma)", root, exists, read), "a missing anchor passes"
    assert not check_links(page, "```\n[a](docs/b.md)\n```", root, exists, read), "a link in code fails"


def main():
    if "--self-test" in sys.argv[1:]:
        self_test()
    problems = check(ROOT)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-readme: {len(problems)} problems")
        return 1
    print("check-readme: ok (README.md and docs/*.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
