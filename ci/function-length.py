#!/usr/bin/env python3
"""Lists the C++ functions of the tree longer than a limit (default 80 lines), tables excepted.

    ci/function-length.py [--limit N] [DIR...]      (default: ir generators oracles harness fuzz)

Exit 1 when one is found: a function of that length gathers and decides at once, or does
several jobs; split it (issue 26). A table (a registry's initialiser list) is data, not logic:
the ones allowed are listed in TABLES. The parse is a heuristic that strips comments and string
literals (raw strings included) and matches braces; it needs no compiler.
"""
import argparse
import os
import re
import sys

# Functions that are one table: a registry's entries.
TABLES = {("ir/ops.cpp", "buildOps")}
# Functions still to split (issue 26), listed so that the check fails on any new one; each is
# reported, and removing it from here once it is split keeps it split.
PENDING = set()

SIGNATURE = re.compile(
    r"^\s*(?!if\b|for\b|while\b|switch\b|else\b|do\b|namespace\b|struct\b|class\b|enum\b|union\b|extern\b|try\b|catch\b"
    r"|return\b|case\b)[^;=(){}]*?([\w~]+)\s*\([^;]*\)\s*(const)?\s*(noexcept)?\s*(override)?\s*(->\s*[^{]+)?\{\s*$")
LAMBDA = re.compile(r"\[[^\]]*\]\s*\(")


def strip(text):
    """`text` with comments and string and character literals blanked, newlines kept."""
    out, i, n = [], 0, len(text)
    blank = lambda s: re.sub(r"[^\n]", " ", s)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(blank(text[i:j]))
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i)
            delim = text[i + 2:k]
            j = text.find(")" + delim + '"', k)
            j = n if j < 0 else j + len(delim) + 2
            out.append('""' + blank(text[i + 2:j]))
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + blank(text[i + 1:j]) + c)
            j += 1
        else:
            out.append(c)
            j = i + 1
        i = j
    return "".join(out)


def long_functions(path, limit):
    raw = open(path, errors="replace").read()
    lines, raw_lines = strip(raw).split("\n"), raw.split("\n")
    for i, line in enumerate(lines):
        k = i  # a signature may span a few lines: join them while its parentheses are open
        while line.count("(") > line.count(")") and k + 1 < len(lines) and k - i < 6 and not line.rstrip().endswith(";"):
            k += 1
            line = line.rstrip() + " " + lines[k].strip()
        m = SIGNATURE.match(line)
        if not m or LAMBDA.search(line):
            continue
        depth, j = 0, k
        while j < len(lines):
            depth += lines[j].count("{") - lines[j].count("}")
            if depth <= 0 and j > k:
                break
            j += 1
        if j - i + 1 > limit:
            yield i + 1, j - i + 1, m.group(1), raw_lines[i].strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("dirs", nargs="*", default=["ir", "generators", "oracles", "harness", "fuzz"])
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = []
    for d in args.dirs:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if not f.endswith((".cpp", ".h", ".hpp")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                for line, n, name, text in long_functions(path, args.limit):
                    if (rel, name) in PENDING:
                        print(f"{rel}:{line}: {n} lines (limit {args.limit}), still to split: {text[:100]}")
                    elif (rel, name) not in TABLES:
                        found.append((n, rel, line, text))
    for n, rel, line, text in sorted(found, reverse=True):
        print(f"{rel}:{line}: {n} lines (limit {args.limit}): {text[:100]}")
    print(f"function-length: {len(found)} function(s) over {args.limit} lines")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
