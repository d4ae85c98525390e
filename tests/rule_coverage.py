"""Which rule-bearing lines of the rulebooks a test cites, and which need none (and why).

Run from the repository root::

    python tests/rule_coverage.py              # summary per rulebook, then every uncovered line
    python tests/rule_coverage.py --all        # every rule-bearing line and who covers it
    python tests/rule_coverage.py --markdown   # the README's coverage table

The rulebooks are read from ``../shared/rules`` next to the repository root.
A rulebook line is *rule-bearing* when it is a sentence or a bullet of at
least five words outside the table of contents (headings, component counts
and the translation's term table are not). A test *cites* a line when a
quotation in that test (a ``"..."`` or ``'...'`` span of at least three words
in its docstring, comments or strings, ellipses splitting it into pieces)
appears in the line, case and spacing aside, or when the test names the file
and line (``edge-of-the-aegean.txt, line 23``, ``..., lines 109, 140-142``). A line that needs no
scenario (flavour, a component list, an example a cited line states as a
rule) is listed with its reason in ``tests/rule_reasons.txt`` as
``FILE:LINE: reason``.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import textwrap
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent


def _main_checkout(repo: Path) -> Path:
    """The main checkout of ``repo``: itself, or for a git worktree the repo it belongs to."""
    dot_git = repo / ".git"
    if dot_git.is_file():  # a worktree: "gitdir: <main>/.git/worktrees/<name>"
        text = dot_git.read_text(encoding="utf-8").strip()
        if text.startswith("gitdir:"):
            gitdir = Path(text.split(":", 1)[1].strip())
            for parent in gitdir.parents:
                if parent.name == ".git":
                    return parent.parent
    return repo


RULES_DIR = next(
    (
        d
        for d in (
            REPO.parent / "shared" / "rules",
            _main_checkout(REPO).parent / "shared" / "rules",
        )
        if d.is_dir()
    ),
    REPO.parent / "shared" / "rules",
)
REASONS = TESTS / "rule_reasons.txt"
# The rulebook of each set the tests quote. Reign's authority is the Chinese text
# (reign-of-war.zh.txt); the tests quote its line-for-line English translation.
RULEBOOKS = {
    "Edge of the Aegean": "edge-of-the-aegean.txt",
    "Heir to the Dunes": "heir-to-the-dunes.txt",
    "A Reign of War": "reign-of-war.en.md",
}
MIN_WORDS = 5
MIN_QUOTE_WORDS = 3
# Each kind of quotation mark is searched on its own, so an apostrophe never
# swallows a double-quoted quotation.
_QUOTES = (
    re.compile(r"\"([^\"]{8,}?)\""),
    re.compile("\u201c([^\u201d]{8,}?)\u201d"),
    re.compile(r"'([^'\n]{12,}?)'"),
)
_RANGE = r"\d+(?:\s*[-\u2013]\s*\d+)?"
# "file, line 9", "file, lines 26-27", "file, lines 109, 140-142" (a list of lines and ranges).
_LINE_CITE = re.compile(
    rf"([a-z][a-z.-]+\.(?:txt|md)),?\s+lines?\s+({_RANGE}(?:\s*,\s*{_RANGE}(?![\w']))*)"
)
_ONE_RANGE = re.compile(r"(\d+)(?:\s*[-\u2013]\s*(\d+))?")
_ELLIPSIS = re.compile(r"\.\.\.|…|\[[^\]]*\]")


def normal(text: str) -> str:
    """Lower case, one space between words, typographic quotes and dashes made plain."""
    for fancy, plain in (("\u2019", "'"), ("\u2018", "'"), ("\u2013", "-"), ("\u2014", "-")):
        text = text.replace(fancy, plain)
    text = re.sub(r"[*_`]", "", text)
    return re.sub(r"\s+", " ", text).strip().lower()


def rule_lines(path: Path) -> dict[int, str]:
    """``{line number: text}`` of the rule-bearing lines of one rulebook."""
    out: dict[int, str] = {}
    in_contents = False
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.lower().startswith("table of contents"):
            in_contents = True
            continue
        if in_contents and (line.startswith("•") or line.startswith("-")) and len(line) < 60:
            continue
        in_contents = False
        if line.startswith("#") or line.startswith("|"):
            continue  # Markdown headings and the translation's term table
        words = re.findall(r"[A-Za-z0-9\u4e00-\u9fff]+", line)
        if len(words) >= MIN_WORDS:
            out[n] = line
    return out


def _pieces(quote: str) -> list[str]:
    """The parts of one quotation between ellipses, normalised, long enough to place."""
    out = []
    for piece in _ELLIPSIS.split(quote):
        piece = normal(piece).strip(" .,;:!?()'\"")
        if len(piece.split()) >= MIN_QUOTE_WORDS:
            out.append(piece)
    return out


def _fragments(source: str) -> list[str]:
    """Quoted pieces in the strings and comments of ``source`` (one function's code).

    Python's tokenizer finds the string literals and comments, so the quotes
    that delimit code strings never pair up with a quotation mark in prose; a
    string literal is itself a candidate too (e.g. ``match="..."``).
    """
    texts = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                texts.append(tok.string)
            elif tok.type == tokenize.STRING:
                try:
                    value = ast.literal_eval(tok.string)
                except (ValueError, SyntaxError):
                    continue
                if isinstance(value, str):
                    texts.append(value)
                    texts.append(f'"{value}"')
    except (tokenize.TokenError, IndentationError):
        return []
    pieces = []
    for text in texts:
        for pattern in _QUOTES:
            pieces += [p for m in pattern.finditer(text) for p in _pieces(m.group(1))]
    return pieces


@dataclass
class Citation:
    """Quotations and explicit line citations of one test."""

    test: str
    quotes: list[str] = field(default_factory=list)
    lines: list[tuple[str, int]] = field(default_factory=list)


def citations(tests_dir: Path = TESTS) -> list[Citation]:
    """Every test function's quotations (docstring, comments and strings of its body)."""
    found = []
    for path in sorted(tests_dir.rglob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        src_lines = source.splitlines()
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if not node.name.startswith("test"):
                continue
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            body = textwrap.dedent("\n".join(src_lines[start - 1 : node.end_lineno]))
            c = Citation(f"{path.name}::{node.name}", _fragments(body))
            for m in _LINE_CITE.finditer(body):
                for r in _ONE_RANGE.finditer(m.group(2)):
                    first = int(r.group(1))
                    last = int(r.group(2) or first)
                    c.lines.extend((m.group(1), k) for k in range(first, last + 1))
            if c.quotes or c.lines:
                found.append(c)
    return found


def read_reasons(path: Path = REASONS) -> dict[tuple[str, int], str]:
    """``{(file, line): reason}`` from the reasons file (``#`` starts a comment)."""
    out: dict[tuple[str, int], str] = {}
    if not path.exists():
        return out
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^([^:\s]+):(\d+)(?:-(\d+))?:\s*(.+)$", line)
        if not m:
            raise ValueError(f"{path.name}: cannot read {raw!r} (want FILE:LINE: reason)")
        first = int(m.group(2))
        for k in range(first, int(m.group(3) or first) + 1):
            out[(m.group(1), k)] = m.group(4)
    return out


@dataclass
class LineCoverage:
    """One rule-bearing line and what covers it."""

    file: str
    line: int
    text: str
    tests: list[str]
    reason: str | None

    @property
    def covered(self) -> bool:
        return bool(self.tests) or self.reason is not None


def quoted_lines(path: Path, quotes: list[str]) -> set[int]:
    """Line numbers of ``path`` that any of ``quotes`` overlaps.

    The file is read as one text (lines joined by a space), so a quotation of
    a paragraph that the rulebook wraps over several lines covers each of them.
    """
    spans, parts, pos = [], [], 0
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = normal(raw.lstrip("-•# "))
        spans.append((n, pos, pos + len(text)))
        parts.append(text)
        pos += len(text) + 1
    whole = " ".join(parts)
    hit: set[int] = set()
    for q in quotes:
        start = whole.find(q)
        while start >= 0:
            end = start + len(q)
            hit.update(n for n, a, b in spans if a < end and start < b)
            start = whole.find(q, start + 1)
    return hit


def coverage(rules_dir: Path = RULES_DIR, tests_dir: Path = TESTS) -> list[LineCoverage]:
    """Every rule-bearing line of every rulebook with its citing tests and reason."""
    cites = citations(tests_dir)
    reasons = read_reasons(tests_dir / REASONS.name)
    out = []
    for file in RULEBOOKS.values():
        path = rules_dir / file
        by_test = {c.test: quoted_lines(path, c.quotes) for c in cites}
        for n, text in rule_lines(path).items():
            tests = sorted(c.test for c in cites if (file, n) in c.lines or n in by_test[c.test])
            out.append(LineCoverage(file, n, text, tests, reasons.get((file, n))))
    return out


def stale_reasons(lines: list[LineCoverage], tests_dir: Path = TESTS) -> list[tuple[str, int]]:
    """Reasons-file entries that name no rule-bearing line (a typo or an edited rulebook)."""
    known = {(c.file, c.line) for c in lines}
    return sorted(k for k in read_reasons(tests_dir / REASONS.name) if k not in known)


def summary_rows(lines: list[LineCoverage]) -> list[tuple[str, str, int, int, int, int]]:
    """``(set, file, rule lines, cited by a test, needing none, uncovered)`` per rulebook."""
    rows = []
    for name, file in RULEBOOKS.items():
        mine = [c for c in lines if c.file == file]
        cited = sum(1 for c in mine if c.tests)
        reasoned = sum(1 for c in mine if not c.tests and c.reason is not None)
        rows.append((name, file, len(mine), cited, reasoned, len(mine) - cited - reasoned))
    return rows


def markdown(lines: list[LineCoverage]) -> str:
    """The README's table: coverage per rulebook."""
    out = [
        "| rulebook | rule-bearing lines | cited by a test | need none (reason given) | "
        "uncovered |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, file, n, cited, reasoned, left in summary_rows(lines):
        out.append(f"| {name} (`{file}`) | {n} | {cited} | {reasoned} | {left} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Print the coverage; exit 0 (coverage is reported, not enforced, here)."""
    args = sys.argv[1:] if argv is None else argv
    if not RULES_DIR.is_dir():
        print(f"no rulebooks at {RULES_DIR} (expected ../shared/rules next to the repo)")
        return 1
    lines = coverage()
    if "--markdown" in args:
        print(markdown(lines))
        return 0
    for name, file, n, cited, reasoned, left in summary_rows(lines):
        print(
            f"{name} ({file}): {n} rule-bearing lines, {cited} cited by a test, "
            f"{reasoned} need none, {left} uncovered"
        )
    show_all = "--all" in args
    for c in lines:
        if show_all or not c.covered:
            who = ", ".join(c.tests) or (f"(none needed: {c.reason})" if c.reason else "UNCOVERED")
            print(f"{c.file}:{c.line}: {who}\n    {c.text[:110]}")
    for file, n in stale_reasons(lines):
        print(f"{REASONS.name}: {file}:{n} is not a rule-bearing line")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
