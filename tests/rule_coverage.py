"""Which rule-bearing lines of the rulebooks a test claims to check, and which need none (and why).

Run from the repository root::

    python tests/rule_coverage.py              # summary per rulebook, then every uncovered line
    python tests/rule_coverage.py --all        # every rule-bearing line and who covers it
    python tests/rule_coverage.py --hints      # uncovered lines, with the tests that quote them
    python tests/rule_coverage.py --markdown   # the coverage table of docs/rules-coverage.md

The rulebooks are read from ``../shared/rules`` next to the repository root.
A rulebook line is *rule-bearing* when it is a sentence or a bullet of at
least five words outside the table of contents (headings, component counts
and the translation's term table are not), or a shorter line that continues a
rule-bearing line: the translation wraps its sentences, and the wrapped end of
a rule ("cards and 4 coins.") is rule text too.

A test covers a line only by *naming* it: a book's file name followed by
``line N`` or ``lines ...`` (a list of numbers and ranges joined by commas or
``and``: ``edge-of-the-aegean.txt, line 108``, ``heir-to-the-dunes.txt lines
57 and 59-61``, ``reign-of-war.en.md, lines 109, 140-142``), in the test
function's docstring, comments or strings. A citation without a file name
(``(line 84)``) belongs to the book the test last named, else to the book of
the test file (``test_rules_dunes.py`` cites Dunes); with neither it is
flagged. A quotation of a line earns nothing: it is only a hint (``--hints``)
for finding the line a test should cite. Citations of the Chinese original
(``reign-of-war.zh.txt``) are not counted: its line numbers are not the
translation's.

A line that needs no scenario (flavour, a component list, an example a cited
line states as a rule) is listed with its reason in ``tests/rule_reasons.txt``
as ``FILE:LINE: reason``.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import sys
import textwrap
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
DOCS = REPO / "docs" / "rules-coverage.md"


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
# The rulebook of each set the tests cite. Reign's authority is the Chinese text
# (reign-of-war.zh.txt); the tests cite its line-for-line English translation.
RULEBOOKS = {
    "Edge of the Aegean": "edge-of-the-aegean.txt",
    "Heir to the Dunes": "heir-to-the-dunes.txt",
    "A Reign of War": "reign-of-war.en.md",
}
UNCOUNTED = ("reign-of-war.zh.txt",)
# The book a test file's bare citations ("line 84") refer to.
FILE_BOOKS = {
    "test_rules_aegean.py": "edge-of-the-aegean.txt",
    "test_rules_dunes.py": "heir-to-the-dunes.txt",
    "test_rules_reign.py": "reign-of-war.en.md",
}
# The checker's own tests, whose citations are examples, not claims.
SELF_TEST = "test_rule_coverage.py"
MIN_WORDS = 5
MIN_QUOTE_WORDS = 3
# Each kind of quotation mark is searched on its own, so an apostrophe never
# swallows a double-quoted quotation.
_QUOTES = (
    re.compile(r"\"([^\"]{8,}?)\""),
    re.compile("\u201c([^\u201d]{8,}?)\u201d"),
    re.compile(r"'([^'\n]{12,}?)'"),
)
_BOOK = re.compile("|".join(re.escape(f) for f in (*RULEBOOKS.values(), *UNCOUNTED)))
_RANGE = r"\d+(?:\s*[-\u2013]\s*\d+)?"
_SEP = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"
# "line 9", "lines 26-27", "lines 109, 140-142", "lines 57 and 59-61"; a number
# followed by a word character or an apostrophe ("3rd", "40's") is not a line.
_LINES = re.compile(rf"\blines?\s+({_RANGE}(?:{_SEP}{_RANGE})*)(?![\w'\u2019-])")
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
    previous = 0  # the line before, when it was rule-bearing (0: it was not, or blank)
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            previous = 0
            continue
        if line.lower().startswith("table of contents"):
            in_contents = True
            continue
        if in_contents and (line.startswith("•") or line.startswith("-")) and len(line) < 60:
            continue
        in_contents = False
        if line.startswith("#") or line.startswith("|"):
            previous = 0
            continue  # Markdown headings and the translation's term table
        words = re.findall(r"[A-Za-z0-9\u4e00-\u9fff]+", line)
        # A short line that continues a rule-bearing line (a sentence wrapped in the
        # Markdown translation, not a new bullet) carries the end of that rule's text.
        wrapped = previous == n - 1 and words and not re.match(r"[-•*]\s|\d+\.\s", line)
        if len(words) >= MIN_WORDS or wrapped:
            out[n] = line
            previous = n
        else:
            previous = 0
    return out


def _pieces(quote: str) -> list[str]:
    """The parts of one quotation between ellipses, normalised, long enough to place."""
    out = []
    for piece in _ELLIPSIS.split(quote):
        piece = normal(piece).strip(" .,;:!?()'\"")
        if len(piece.split()) >= MIN_QUOTE_WORDS:
            out.append(piece)
    return out


def _texts(source: str) -> list[str]:
    """The comments and string literals of ``source`` (one function's code), in order.

    Python's tokenizer finds them, so the quotes that delimit code strings
    never pair up with a quotation mark in prose.
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
    except (tokenize.TokenError, IndentationError):
        return []
    return texts


def _fragments(texts: list[str]) -> list[str]:
    """Quoted pieces in ``texts``; a string literal is itself a candidate (``match="..."``)."""
    pieces = []
    for text in texts:
        for candidate in (text, f'"{text}"'):
            for pattern in _QUOTES:
                pieces += [p for m in pattern.finditer(candidate) for p in _pieces(m.group(1))]
    return pieces


def line_citations(text: str, book: str | None) -> tuple[list[tuple[str, int]], list[str]]:
    """``([(file, line)], [unresolved citation])`` named in ``text``.

    ``book`` is the book a bare citation refers to until the text names one;
    each file name the text names becomes the book of the citations after it.
    """
    found: list[tuple[str, int]] = []
    unresolved: list[str] = []
    books = [(m.start(), m.group(0)) for m in _BOOK.finditer(text)]
    for m in _LINES.finditer(text):
        named = [b for at, b in books if at < m.start()]
        current = named[-1] if named else book
        if current is None:
            unresolved.append(m.group(0))
            continue
        for r in _ONE_RANGE.finditer(m.group(1)):
            first = int(r.group(1))
            last = int(r.group(2) or first)
            found.extend((current, k) for k in range(first, max(first, last) + 1))
    return found, unresolved


@dataclass
class Citation:
    """The line citations (and, as hints, the quotations) of one test."""

    test: str
    quotes: list[str] = field(default_factory=list)
    lines: list[tuple[str, int]] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)


def citations(tests_dir: Path = TESTS) -> list[Citation]:
    """Every test function's citations (docstring, comments and strings, decorators included)."""
    found = []
    for path in sorted(tests_dir.rglob("test_*.py")):
        if path.name == SELF_TEST:
            continue  # its citations are examples for the parser, not claims
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
            texts = _texts(body)
            lines, unresolved = line_citations("\n".join(texts), FILE_BOOKS.get(path.name))
            if path.parent.name != "rules":
                # Outside the rule tests a bare "line N" is a line of the test's own input
                # (a TOML file, a replay): only a citation that names a book is a claim there.
                unresolved = []
            c = Citation(f"{path.name}::{node.name}", _fragments(texts), lines, unresolved)
            if c.quotes or c.lines or c.unresolved:
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
    quoted_by: list[str] = field(default_factory=list)

    @property
    def covered(self) -> bool:
        """Cited by a test, or listed with a reason it needs none."""
        return bool(self.tests) or self.reason is not None


@functools.cache
def _book_text(path: Path) -> tuple[str, tuple[tuple[int, int, int], ...]]:
    """One book as one normalised text (lines joined by a space, blank lines dropped),
    with the ``(line, start, end)`` span of each line in it."""
    spans, parts, pos = [], [], 0
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = normal(raw.lstrip("-•# "))
        if not text:
            continue
        spans.append((n, pos, pos + len(text)))
        parts.append(text)
        pos += len(text) + 1
    return " ".join(parts), tuple(spans)


def quoted_lines(path: Path, quotes: list[str]) -> set[int]:
    """Line numbers of ``path`` that any of ``quotes`` overlaps (a hint, never credit).

    A quotation of a paragraph that the rulebook wraps over several lines, or
    over a blank line, finds each of them.
    """
    whole, spans = _book_text(path)
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
            tests = sorted(c.test for c in cites if (file, n) in c.lines)
            hints = sorted(c.test for c in cites if n in by_test[c.test] and c.test not in tests)
            out.append(LineCoverage(file, n, text, tests, reasons.get((file, n)), hints))
    return out


def stale_reasons(lines: list[LineCoverage], tests_dir: Path = TESTS) -> list[tuple[str, int]]:
    """Reasons-file entries that name no rule-bearing line (a typo or an edited rulebook)."""
    known = {(c.file, c.line) for c in lines}
    return sorted(k for k in read_reasons(tests_dir / REASONS.name) if k not in known)


def bad_citations(rules_dir: Path = RULES_DIR, tests_dir: Path = TESTS) -> list[str]:
    """Citations no line answers: unresolved (no book), blank, or past the book's end."""
    lengths = {}
    blank = {}
    for file in (*RULEBOOKS.values(), *UNCOUNTED):
        text = (rules_dir / file).read_text(encoding="utf-8").splitlines()
        lengths[file] = len(text)
        blank[file] = {n for n, raw in enumerate(text, start=1) if not raw.strip()}
    out = []
    for c in citations(tests_dir):
        out += [f"{c.test}: {u!r} names no book" for u in c.unresolved]
        for file, n in sorted(set(c.lines)):
            if n > lengths[file] or n < 1:
                out.append(f"{c.test}: {file}, line {n} is past the end of the book")
            elif n in blank[file] and not {(file, n - 1), (file, n + 1)} & set(c.lines):
                # A blank line inside a cited range (a paragraph break) is no typo.
                out.append(f"{c.test}: {file}, line {n} is a blank line")
    return out


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
    """The coverage table of docs/rules-coverage.md: one row per rulebook."""
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
    hints = "--hints" in args
    for c in lines:
        if show_all or not c.covered:
            who = ", ".join(c.tests) or (f"(none needed: {c.reason})" if c.reason else "UNCOVERED")
            print(f"{c.file}:{c.line}: {who}\n    {c.text[:110]}")
            if hints and c.quoted_by:
                print(f"    quoted (not cited) by: {', '.join(c.quoted_by)}")
    for file, n in stale_reasons(lines):
        print(f"{REASONS.name}: {file}:{n} is not a rule-bearing line")
    for bad in bad_citations():
        print(f"citation: {bad}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
