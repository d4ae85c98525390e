"""The one declared schema of every file a user writes, with the bounds the kernel handles.

Card and set files (``configs/sets``, ``--cards``), house rules (``--rules``),
strategy profiles (``--p0/--p1``) and deck lists (``--decks``) are all checked
against the tables here before anything reaches numba. Each numeric field has
a closed range chosen so that the kernel provably stays inside its fixed-size
state (``sim/base/layout.py``) and its integer sums cannot overflow:

* ``offering`` <= 99: ``make_offering`` lists ``offering + 1`` splits in the
  ``MAX_OPTS`` (256) option table.
* ``strength``, ``cost``, ``vp`` and ability numbers <= 99: a war sums at most
  ``2 * N_SLOTS`` units' strengths plus ops of at most 99 each, and a score is a
  few hundred VP at most, so every column fits its Parquet type (int16 scores).
* ``copies`` <= ``MAX_CARDS`` (256) per entry, checked before any array is
  allocated; the total per mix is checked by ``sim.data.cards.compile_tables``.
* every rule parameter has a range that the kernel's tables hold: e.g.
  ``tiles_per_city`` <= ``MAX_STACK`` (8), ``city_capacity`` <= ``N_SLOTS``,
  ``wealth_actions`` <= 10 (so a turn stays finite), ``feats_to_end`` <=
  ``MAX_FEATS`` with 0 meaning the feat ending is off.
* profile weights are finite and within +-1000 (a weight of ``1e308`` or ``nan``
  turns every option's value into ``inf``/``nan`` and the bot stops choosing).

Text files are read as UTF-8 (:func:`read_toml`); a file saved in another
encoding gets one error naming the file, the line and the fix.

``configs/README.md`` carries the generated bounds table
(:func:`markdown_bounds`; ``python -m sim.data.schema`` prints it), and a test
keeps the two identical.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.base import layout as L
from sim.base.errors import Error

SMALL = 99  # the bound of every per-card number: two digits, as printed on a card
WEIGHT_LIMIT = 1000.0  # profile weights: the shipped ones are below 5


@dataclass(frozen=True)
class Bound:
    """A closed range ``lo..hi`` for one numeric field, and why ``hi`` is what it is."""

    lo: int | float
    hi: int | float
    why: str = ""

    def contains(self, value: int | float) -> bool:
        """Whether ``value`` lies in the range (``nan`` never does)."""
        return self.lo <= value <= self.hi

    def text(self) -> str:
        """The range as the error messages and the docs write it."""
        return (
            f"from {self.lo:g} to {self.hi:g}"
            if isinstance(self.lo, float)
            else (f"from {self.lo} to {self.hi}")
        )


def _b(lo: int, hi: int, why: str = "") -> Bound:
    return Bound(lo, hi, why)


# --- card and set files ----------------------------------------------------------------

UNIT_INTS: dict[str, Bound] = {
    "cost": _b(0, SMALL, "coins"),
    "offering": _b(0, SMALL, "make_offering lists offering+1 splits in 256 option slots"),
    "strength": _b(0, SMALL, "war sums of at most 10 units stay small"),
    "copies": _b(1, L.MAX_CARDS, "a game holds at most 256 unit cards"),
}
REWARD_INTS: dict[str, Bound] = {
    "copies": _b(1, L.MAX_CARDS, "a game holds at most 256 reward tiles"),
}
STRUCTURE_INTS: dict[str, Bound] = {
    "build_cost": _b(1, SMALL, "cards under a structure"),
    "vp": _b(0, SMALL, "scores are int16 columns: 3 structures x 99 VP fit"),
}
FEAT_INTS: dict[str, Bound] = {"n": _b(0, SMALL)}
ABILITY_INTS: dict[str, Bound] = {"cost": _b(0, SMALL), "when_n": _b(0, SMALL)}
OP_INTS: dict[str, Bound] = {
    "n": _b(0, SMALL, "cards, coins, units or strength an op moves"),
    "limit": _b(0, SMALL),
    "when_n": _b(0, SMALL),
}
# ``cost`` and ``strength`` ops change a number, so they may lower it.
OP_SIGNED_N = Bound(-SMALL, SMALL, "a static cost or strength change")

# Declared with the rule parameters themselves (sim.base.layout.RULE_PARAMS).
RULE_INTS: dict[str, Bound] = {
    r.key: _b(r.lo, r.hi, r.why) for r in L.RULE_PARAMS if r.kind == "int"
}

# --- strategy profiles and deck lists ------------------------------------------------------

WEIGHT = Bound(-WEIGHT_LIMIT, WEIGHT_LIMIT, "finite; larger values make option values overflow")
KNOBS: dict[str, Bound] = {
    "width": _b(1, L.LA_MAX_WIDTH, "options tried per decision"),
    "rollouts": _b(1, 256),
    "horizon": _b(0, 50),
    "wealth": _b(0, 1, "1: plan the Wealth split by rollouts too"),
    "offer": _b(0, 1, "1: plan the Offering by rollouts too"),
    "war_order": _b(0, 1, "1: plan the order of conflicts by rollouts too"),
    "keep": _b(0, 1, "1: plan the units kept after a war by rollouts too"),
    "draft": _b(0, 1, "1: plan draft picks by rollouts too"),
}
SEARCH_KNOBS: dict[str, Bound] = {
    "simulations": _b(1, 4096, "play-outs per decision at most, over all its options"),
    "width": _b(1, L.LA_MAX_WIDTH, "options searched per decision, the heuristic's best"),
    "horizon": _b(0, 50, "whole turns a play-out plays after the current one"),
    "value": _b(0, 1, "1: score a play-out's end by the learned value"),
}
DECK_PILES = L.N_DECK_PILES
DECK_LIMITS: dict[str, int] = {"soldier": 6, "beast": 4, "oracle": 4}
SEED = Bound(0, 2**63 - 1, "the run seed is an unsigned 63-bit number")

# --- every key of every table, with its type -------------------------------------------------
# ``sim.data.cards`` refuses any other key; configs/README.md documents each (a test checks).

_NAME, _TEXT, _SOURCE = "string", "string", "string: rulebook | reconstructed"
TABLES: dict[str, dict[str, str | Bound]] = {
    "units": {
        "name": _NAME, "type": "UNIT_TYPES name", "devotion": "DEVOTIONS name",
        **UNIT_INTS, "keywords": "[KEYWORDS name]", "source": _SOURCE, "text": _TEXT,
        "abilities": "[[abilities]]", "learning": "bool",
    },
    "rewards": {
        "name": _NAME, **REWARD_INTS, "source": _SOURCE, "text": _TEXT,
        "abilities": "[[abilities]]", "four_player": "bool",
    },
    "structures": {
        "name": _NAME, "god": "GODS name", **STRUCTURE_INTS, "source": _SOURCE, "text": _TEXT,
        "abilities": "[[abilities]]",
    },
    "feats": {
        "name": _NAME, "condition": "FEAT_CONDITIONS name", "type": "UNIT_TYPES name",
        **FEAT_INTS, "source": _SOURCE, "text": _TEXT,
    },
    "abilities": {
        "trigger": "TRIGGERS name", "cost": ABILITY_INTS["cost"], "when": "CONDITIONS name",
        "when_n": ABILITY_INTS["when_n"], "ops": "[op tables]",
    },
    "ops": {
        "op": "OPS name", **OP_INTS, "target": "TARGETS name", "when": "CONDITIONS name",
        "may": "bool",
    },
    "profile": {"strategy": "[strategy] name, bot, description", "weights": WEIGHT,
                "lookahead": "[lookahead] width, rollouts, horizon",
                "search": "[search] simulations, width, horizon, value"},
    "decks": {"p0": f"[{DECK_PILES} unit names]", "p1": f"[{DECK_PILES} unit names]"},
}  # fmt: skip


class SchemaError(Error):
    """A value outside the schema; callers re-raise it as their own one-line error type."""


def check_int(value: Any, bound: Bound, where: str) -> int:
    """``value`` if it is a whole number inside ``bound``; else a one-line SchemaError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SchemaError(f"{where}: must be a whole number {bound.text()}, got {value!r}")
    if not bound.contains(value):
        raise SchemaError(f"{where}: must be a whole number {bound.text()}, got {value}")
    return value


def check_number(value: Any, bound: Bound, where: str) -> float:
    """``value`` as a float if it is a finite number inside ``bound``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SchemaError(f"{where}: must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v) or not bound.contains(v):
        raise SchemaError(f"{where}: must be a finite number {bound.text()}, got {value!r}")
    return v


# --- reading text files ----------------------------------------------------------------------


MAX_FILE_BYTES = 1_000_000  # far above any shipped set file
MAX_DEPTH = 16  # the deepest shipped structure is 7 (a set's units, abilities, ops, ...)


def read_text(path: Path) -> str:
    """The UTF-8 text of ``path``; raises SchemaError naming the line of a bad byte.

    Only a regular file of at most ``MAX_FILE_BYTES`` is read (a FIFO or
    ``/dev/zero`` would otherwise block or fill memory). OSError propagates, so
    a caller can say "cannot read" its own way.
    """
    if path.exists() and not path.is_file():
        raise SchemaError(f"{path}: not a regular file")
    with path.open("rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise SchemaError(f"{path.name}: larger than {MAX_FILE_BYTES:,} bytes; not a card file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SchemaError(
            f"{path.name}: line {line}: byte 0x{data[e.start]:02x} is not UTF-8; "
            "save the file as UTF-8 (e.g. an 'é' typed in a Latin-1 editor)"
        ) from None


def bracket_depth(text: str) -> tuple[int, int]:
    """The deepest nesting of ``[``/``{`` outside strings and comments, and its line.

    A linear scan, so that text nested thousands deep is refused before
    ``tomllib`` recurses into it (it raises RecursionError past ~1,000).
    """
    deepest, deepest_line, depth, line, i, n = 0, 1, 0, 1, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            j, i = i + len(quote), i + len(quote)
            while j < n and not text.startswith(quote, j):
                if c == '"' and text[j] == "\\":
                    j += 1
                elif text[j] == "\n" and len(quote) == 1:
                    break  # an unclosed string: tomllib names the error
                j += 1
            line += text.count("\n", i, j)
            i = j + len(quote)
            continue
        elif c in "[{":
            depth += 1
            if depth > deepest:
                deepest, deepest_line = depth, line
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return deepest, deepest_line


def structure_depth(value: Any) -> int:
    """How deep tables and arrays nest in a parsed document (iteratively: no recursion)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            break
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


def parse_toml(text: str, name: str) -> dict[str, Any]:
    """``text`` parsed as TOML, bounded in nesting; one SchemaError line naming ``name``."""
    depth, line = bracket_depth(text)
    if depth > MAX_DEPTH:
        raise SchemaError(
            f"{name}: line {line}: brackets nested {depth} deep; at most {MAX_DEPTH} are allowed"
        )
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SchemaError(f"{name}: not valid TOML: {e}") from None
    except RecursionError:  # the scan above should make this unreachable
        raise SchemaError(f"{name}: nested too deeply to read") from None
    if structure_depth(doc) > MAX_DEPTH:
        raise SchemaError(f"{name}: tables nested more than {MAX_DEPTH} deep (dotted keys?)")
    return doc


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """The parsed TOML of ``path`` (UTF-8, bounded in size and nesting), or one SchemaError
    line naming the file; every TOML file the project reads comes through here."""
    try:
        text = read_text(path)
    except OSError as e:
        raise SchemaError(f"{path}: cannot read {what}: {e.strerror or e}") from None
    return parse_toml(text, path.name)


# --- the docs ------------------------------------------------------------------------------

MARK_BEGIN = "<!-- schema bounds: generated by `python -m sim.data.schema`; do not edit -->"
MARK_END = "<!-- end of schema bounds -->"


def _rows(table: str, fields: dict[str, Bound]) -> list[str]:
    return [f"| {table} | `{k}` | {b.lo} | {b.hi} | {b.why} |" for k, b in fields.items()]


def markdown_bounds() -> str:
    """The bounds of every numeric field as a Markdown table, between the markers."""
    lines = [
        MARK_BEGIN,
        "",
        "| table | key | min | max | why |",
        "|-------|-----|-----|-----|-----|",
        *_rows("`[[units]]`", UNIT_INTS),
        *_rows("`[[rewards]]`", REWARD_INTS),
        *_rows("`[[structures]]`", STRUCTURE_INTS),
        *_rows("`[[feats]]`", FEAT_INTS),
        *_rows("`abilities`", ABILITY_INTS),
        *_rows("`ops`", OP_INTS),
        f"| `ops` | `n` of `cost`/`strength` | {OP_SIGNED_N.lo} | {OP_SIGNED_N.hi} | "
        f"{OP_SIGNED_N.why} |",
        *_rows("`[rules]`", RULE_INTS),
        f"| profile `[weights]` | every weight | {WEIGHT.lo:g} | {WEIGHT.hi:g} | {WEIGHT.why} |",
        *_rows("profile `[lookahead]`", KNOBS),
        *_rows("profile `[search]`", SEARCH_KNOBS),
        "",
        "Every ability needs an `ops` list, non-empty except for an `exalt` condition "
        "(`ops = []`). Files are read as UTF-8.",
        MARK_END,
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_bounds())
