#!/usr/bin/env python3
"""Fail on unfilled placeholders in the project's Markdown documentation.

Usage: placeholders.py ROOT

Scans ROOT/README.md, ROOT/CHANGELOG.md and ROOT/docs/**/*.md and reports, as
FILE:LINE: TOKEN, every placeholder outside inline code spans (`...`) and
fenced code blocks (``` or ~~~):

  - the words TODO, TBD, FIXME, XXX (whole words);
  - ``???``;
  - configure tokens such as @VAR@;
  - template tokens such as {{name}};
  - ALL-CAPS identifiers with an underscore (F16C_UNIT, KFLOW_SOMETHING):
    a name of that form in prose is either a placeholder left in place of a
    figure or a real name that belongs in backticks.  One capital letter
    with a one-character subscript (T_E, T_0) is mathematics, not a name,
    and is not reported.

Exits 1 with the list if any are found, else prints
"docs: no placeholders in N files" and exits 0.  Standard library only.
"""

import pathlib
import re
import sys

# Genuine names that may appear in prose outside backticks.  Prefer wrapping
# a name in backticks in the docs to adding it here.
ALLOWED = frozenset()

PATTERNS = [
    re.compile(r"\b(?:TODO|TBD|FIXME|XXX)\b"),
    re.compile(r"\?\?\?"),
    re.compile(r"@[A-Za-z_][A-Za-z0-9_]*@"),
    re.compile(r"\{\{.*?\}\}"),
    re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b"),
]

# A letter with a subscript in prose mathematics: T_E, T_W, U_0.
MATH_SUBSCRIPT = re.compile(r"[A-Z]_[A-Z0-9]")

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
SINGLE_LINE_BLOCK = re.compile(r"^ {0,3}(\||#{1,6}(\s|$))")


def strip_code_spans(line):
    """The line with every inline code span (a run of N backticks up to the
    next run of exactly N backticks) replaced by spaces; an unmatched run of
    backticks is kept as literal text, as in CommonMark."""
    out = []
    i, n = 0, len(line)
    while i < n:
        if line[i] != "`":
            out.append(line[i])
            i += 1
            continue
        j = i
        while j < n and line[j] == "`":
            j += 1
        ticks = j - i
        k = j
        close = -1
        while k < n:
            if line[k] == "`":
                m = k
                while m < n and line[m] == "`":
                    m += 1
                if m - k == ticks:
                    close = k
                    break
                k = m
            else:
                k += 1
        if close < 0:
            out.append(line[i:j])
            i = j
        else:
            end = close + ticks
            out.append(" " * (end - i))
            i = end
    return "".join(out)


def prose_lines(text):
    """(line number, text) of the lines outside fenced code blocks, with the
    inline code spans blanked.  A code span may run across line breaks inside
    a paragraph, so spans are stripped per paragraph (lines up to a blank
    line) and mapped back; a table row or a heading is a block of its own."""
    fence = None
    para = []  # (number, line)

    def flush():
        if not para:
            return []
        joined = "\n".join(line for _, line in para)
        stripped = strip_code_spans(joined).split("\n")
        result = [(num, s) for (num, _), s in zip(para, stripped)]
        para.clear()
        return result

    result = []
    for number, line in enumerate(text.splitlines(), start=1):
        m = FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        if m:
            result.extend(flush())
            fence = m.group(1)
            continue
        if not line.strip():
            result.extend(flush())
            continue
        if SINGLE_LINE_BLOCK.match(line):
            result.extend(flush())
            para.append((number, line))
            result.extend(flush())
            continue
        para.append((number, line))
    result.extend(flush())
    return result


def find_placeholders(path):
    found = []
    text = path.read_text(encoding="utf-8")
    for number, line in prose_lines(text):
        hits = []
        for pattern in PATTERNS:
            for m in pattern.finditer(line):
                token = m.group(0)
                if token in ALLOWED or MATH_SUBSCRIPT.fullmatch(token):
                    continue
                hits.append((m.start(), m.end(), token))
        # A token inside another (KFLOW_X inside @KFLOW_X@) is reported once.
        for start, end, token in sorted(hits):
            if not any(s <= start and end <= e and (s, e) != (start, end)
                       for s, e, _ in hits):
                found.append((number, token))
    return found


def main(argv):
    if len(argv) != 2:
        print("usage: placeholders.py ROOT", file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1])
    files = [root / "README.md", root / "CHANGELOG.md"]
    files += sorted((root / "docs").glob("**/*.md"))
    files = [f for f in files if f.is_file()]
    if not files:
        print(f"docs: no Markdown files under {root}", file=sys.stderr)
        return 2
    problems = []
    for path in files:
        for number, token in find_placeholders(path):
            problems.append(f"{path.relative_to(root)}:{number}: {token}")
    if problems:
        print("docs: placeholders outside code spans and blocks:")
        for p in problems:
            print("  " + p)
        return 1
    print(f"docs: no placeholders in {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
