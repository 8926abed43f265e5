#!/usr/bin/env python3
"""The code's shape, measured: lines per workspace crate, the longest functions, files over 600
lines, `unwrap()`/`expect(` outside tests and the workspace crates' dependency graph.

    python3 tools/code_shape.py [--top 10]

Production code only: test files (`tests.rs`, `tests/`, `benches/`, `examples/`), `#[cfg(test)]`
items and generated code (`generated` in the path, `build/patched/`) are left out. Functions are
found by their `fn` line and measured to their closing brace (comments and strings are skipped,
so braces inside them do not count).
"""

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?fn\s+(\w+)")


def is_test_path(rel: str) -> bool:
    parts = rel.split("/")
    return (
        parts[-1] in ("tests.rs", "testing.rs")
        or parts[-1].endswith("_tests.rs")
        or "tests" in parts[:-1]
        or "benches" in parts
        or "examples" in parts
        or parts[0] == "tests"
        or parts[0] == "fuzz"
    )


def is_generated(rel: str) -> bool:
    return "generated" in rel or rel.startswith("build/") or "/target/" in rel


def strip_code(text: str) -> list[str]:
    """Lines with comments, strings and char literals blanked, so braces in them do not count."""
    out, i, n = [], 0, len(text)
    buf = []
    depth_block = 0
    while i < n:
        c = text[i]
        if depth_block:
            if text.startswith("*/", i):
                depth_block -= 1
                i += 2
                continue
            if text.startswith("/*", i):
                depth_block += 1
                i += 2
                continue
            buf.append("\n" if c == "\n" else " ")
            i += 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            buf.append(" " * (j - i))
            i = j
            continue
        if text.startswith("/*", i):
            depth_block = 1
            i += 2
            continue
        m = re.match(r'r(#*)"', text[i:]) if c == "r" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else None
        if m:
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(m.group(1))
            buf.append("".join("\n" if ch == "\n" else " " for ch in text[i:end]))
            i = end
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            buf.append("".join("\n" if ch == "\n" else " " for ch in text[i : j + 1]))
            i = j + 1
            continue
        if c == "'":
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|[^\\'])'", text[i:])
            if m:
                buf.append(" " * len(m.group(0)))
                i += len(m.group(0))
                continue
        buf.append(c)
        i += 1
    return "".join(buf).split("\n")


def production_lines(lines: list[str]) -> list[bool]:
    """Which lines are production code: not inside an item marked `#[cfg(test)]`."""
    keep = [True] * len(lines)
    i = 0
    while i < len(lines):
        if re.match(r"\s*#\[cfg\(test\)\]", lines[i]):
            depth, started, j = 0, False, i
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                started = started or "{" in lines[j]
                keep[j] = False
                if (started and depth <= 0) or (not started and lines[j].rstrip().endswith(";")):
                    break
                j += 1
            i = j + 1
            continue
        i += 1
    return keep


def functions(rel: str, code: list[str], keep: list[bool]):
    for i, line in enumerate(code):
        m = FN.match(line)
        if not m or not keep[i]:
            continue
        depth, started = 0, False
        for j in range(i, len(code)):
            if not started and ";" in code[j] and "{" not in code[j]:
                break  # a declaration (trait method without body)
            depth += code[j].count("{") - code[j].count("}")
            started = started or "{" in code[j]
            if started and depth <= 0:
                yield (j - i + 1, f"{rel}:{i + 1}", m.group(1))
                break


def workspace():
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
            cwd=REPO, check=True, capture_output=True, text=True,
        ).stdout
    )
    members = {p["name"]: p for p in meta["packages"]}
    return members


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()
    members = workspace()
    dirs = {name: Path(p["manifest_path"]).parent for name, p in members.items()}
    per_crate, longest, big_files, unwraps = {}, [], [], []
    for name, d in sorted(dirs.items(), key=lambda kv: str(kv[1])):
        total = 0
        for f in sorted(d.rglob("*.rs")):
            rel = str(f.relative_to(REPO))
            if "/target/" in rel or is_generated(rel) or is_test_path(rel) or is_test_path(str(f.relative_to(d))):
                continue
            # a nested crate's files belong to it, not to this one
            if any(o != d and str(o).startswith(str(d) + "/") and str(f).startswith(str(o) + "/") for o in dirs.values()):
                continue
            text = f.read_text()
            raw = text.split("\n")
            code = strip_code(text)
            keep = production_lines(code)
            n = sum(1 for k, line in zip(keep, raw) if k and line.strip())
            total += n
            if n > 600:
                big_files.append((n, rel))
            longest.extend(functions(rel, code, keep))
            for i, line in enumerate(code):
                if keep[i] and re.search(r"\.unwrap\(\)|\.expect\(", line):
                    unwraps.append(f"{rel}:{i + 1}")
        per_crate[name] = (total, str(d.relative_to(REPO)))
    print("## Lines per crate (production, non-blank)")
    for name, (n, d) in sorted(per_crate.items(), key=lambda kv: -kv[1][0]):
        print(f"{n:7}  {name}  ({d})")
    print(f"{sum(n for n, _ in per_crate.values()):7}  in all")
    print(f"\n## The {args.top} longest functions")
    for n, where, fname in sorted(longest, reverse=True)[: args.top]:
        print(f"{n:5}  {fname}  {where}")
    print("\n## Files over 600 lines")
    for n, rel in sorted(big_files, reverse=True):
        print(f"{n:5}  {rel}")
    print(f"\n## unwrap()/expect( outside tests: {len(unwraps)}")
    by_crate = {}
    for u in unwraps:
        crate = next((nm for nm, d in sorted(dirs.items(), key=lambda kv: -len(str(kv[1]))) if (REPO / u.split(":")[0]).is_relative_to(d)), "?")
        by_crate[crate] = by_crate.get(crate, 0) + 1
    for crate, k in sorted(by_crate.items(), key=lambda kv: -kv[1]):
        print(f"{k:5}  {crate}")
    print("\n## Workspace crates and the workspace crates each depends on (normal dependencies)")
    for name, p in sorted(members.items()):
        deps = sorted({dep["name"] for dep in p["dependencies"] if dep["name"] in members and dep.get("kind") is None})
        print(f"{name} -> {', '.join(deps) if deps else '(none)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
