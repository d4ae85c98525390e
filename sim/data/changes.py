"""Designer edits to a card pool, applied before it is compiled.

Two kinds of edit, both given on the command line of ``omensim compare`` and
``omensim run``-like commands and both usable from Python:

* ``--change "Moonlight Channeler.cost=3"``: one numeric field of one unit.
  The card name is matched exactly, else case-insensitively; the fields are
  :data:`FIELDS`. A signed value is relative: ``cost=+1``, ``cost=-1`` (also
  written ``cost+=1``, ``cost-=1``).
* ``--cards FILE``: a whole set file (same schema as ``configs/sets``) that
  replaces the set of the mix with the same ``[set] name``.

Replacement files are applied first, then the ``--change`` edits, in order. An
edit typed that leaves its field as it is (``cost=3`` on a card costing 3) is refused:
it would be recorded as a change and change nothing.
Every problem is one :class:`~sim.data.spec.SpecError` line naming the edit and
what is wrong (a replacement file with bad card data raises
:class:`~sim.data.cards.CardDataError`, as for the shipped files).

Example:
    >>> ch = Changes.parse(["Moonlight Channeler.cost=3"])
    >>> pool = ch.load_pool("dunes+aegean")  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sim.data import schema as S
from sim.data.cards import (
    SETS_DIR,
    CardDataError,
    CardPool,
    SetData,
    compile_tables,
    load_set,
    name_key,
    parse_mix,
    pool_from_sets,
)
from sim.data.spec import SpecError, path_problem

# The numeric unit fields an edit may set, with the values each may take: the schema's
# bounds (sim.data.schema.UNIT_INTS), two digits at most, as on a printed card.
FIELDS: dict[str, tuple[int, int]] = {
    k: (int(b.lo), int(min(b.hi, S.SMALL))) for k, b in S.UNIT_INTS.items()
}

# The most numbers a list of values to try (``balance --values``, ``sweep --delta``) may
# hold: the legal values of the widest rule or the deltas of the widest card field, from
# the schema's bounds. A longer list cannot all be legal, so it is refused before it is
# built: a range of billions would otherwise fill memory before any bound was checked.
MAX_VALUES = max(
    *(int(b.hi - b.lo) + 1 for b in S.RULE_INTS.values()),
    *(2 * (hi - lo) + 1 for lo, hi in FIELDS.values()),
)

_CHANGE = re.compile(r"^(?P<card>.+)\.\s*(?P<field>[A-Za-z_]+)\s*(?P<op>[+-]?=)\s*(?P<value>.*)$")


@dataclass(frozen=True)
class CardChange:
    """One edit: set ``field`` of the unit named ``card`` to ``value`` (or add it)."""

    card: str
    field: str
    value: int
    relative: bool = False
    text: str = ""
    """The edit as the user typed it (:func:`parse_change`); empty for one made in code (a
    race's candidate, which may be the shipped value)."""

    def new_value(self, old: int) -> int:
        """The field's value after this edit, given its value before."""
        return old + self.value if self.relative else self.value

    def label(self) -> str:
        """The edit as a user would write it: ``Moonlight Channeler.cost=3`` / ``cost=+1``."""
        value = f"{self.value:+d}" if self.relative else str(self.value)
        return f"{self.card}.{self.field}={value}"


def parse_change(text: str) -> CardChange:
    """Parse ``"NAME.FIELD=VALUE"`` (``VALUE`` an integer; ``+N``/``-N`` relative).

    ``NAME.FIELD+=N`` and ``NAME.FIELD-=N`` are the same as ``=+N`` and ``=-N``.
    The card name is checked later, against a pool (:func:`apply_edits`).

    Raises:
        SpecError: a malformed edit, unknown field or non-integer value.
    """
    if not isinstance(text, str):
        raise SpecError(f"--change must be text such as 'Card.cost=+1', got {text!r}"[:200])
    m = _CHANGE.match(text.strip())
    if m is None:
        raise SpecError(
            f"--change {text!r}: expected CARD.FIELD=VALUE, e.g. 'Moonlight Channeler.cost=3' "
            "or 'Moonlight Channeler.cost=+1'"
        )
    card, fld, op, raw = m["card"].strip(), m["field"].lower(), m["op"], m["value"].strip()
    if not card:
        raise SpecError(f"--change {text!r}: no card name before '.{fld}'")
    if fld not in FIELDS:
        raise SpecError(
            f"--change {text!r}: unknown field {fld!r}; valid fields: {', '.join(FIELDS)}"
        )
    if not re.fullmatch(r"[+-]?\d+", raw):
        raise SpecError(f"--change {text!r}: value must be a whole number, got {raw!r}")
    value = int(raw)
    relative = op != "=" or raw[0] in "+-"
    if op == "-=":
        value = -value
    if op != "=" and raw[0] in "+-":
        raise SpecError(f"--change {text!r}: write {fld}{op}N or {fld}=+N, not both signs")
    return CardChange(card=card, field=fld, value=value, relative=relative, text=text.strip())


def normal_change(text: str) -> str:
    """The edit ``text`` makes, as one text for every spelling of it: the card's name as
    names are compared (:func:`sim.data.cards.name_key`), the field in lower case, a relative
    value signed (``'TALOS .COST+=1'`` -> ``'talos.cost=+1'``).

    Raises:
        SpecError: what :func:`parse_change` refuses.
    """
    change = parse_change(text)
    return replace(change, card=name_key(change.card)).label()


def _find_unit(pool: CardPool, change: CardChange) -> int:
    """Kind id of the unit ``change`` names: exact name first, then case-insensitive."""
    names = [u["name"] for u in pool.units]
    if change.card in names:
        return names.index(change.card)
    folded = [name_key(n) for n in names]
    if name_key(change.card) in folded:
        return folded.index(name_key(change.card))
    close = difflib.get_close_matches(change.card, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else "; `omensim cards` lists them"
    raise SpecError(
        f"--change {change.text or change.label()!r}: no unit named {change.card!r} "
        f"in mix {pool.mix!r}{hint}"
    )


def apply_edits(pool: CardPool, edits: Iterable[CardChange]) -> CardPool:
    """A copy of ``pool`` with ``edits`` applied in order and its tables recompiled.

    ``pool`` itself is not modified. Kind ids do not change (edits never add
    or remove a unit), so ``played_p0/1`` columns of both pools line up.

    Raises:
        SpecError: an unknown card, a value out of the field's range, or an edit the
            user typed that leaves its field as it is (it would be recorded as a change
            and change nothing).
    """
    edits = list(edits)
    if not edits:
        return pool
    new = copy.deepcopy(pool)
    for ch in edits:
        if ch.field not in FIELDS:
            raise SpecError(f"--change {ch.label()!r}: unknown field {ch.field!r}")
        unit = new.units[_find_unit(new, ch)]
        value = ch.new_value(unit[ch.field])
        if ch.text and value == unit[ch.field]:
            raise SpecError(
                f"--change {ch.text!r}: {unit['name']} {ch.field} is already {value}, so it "
                "changes nothing; drop it or give another value"
            )
        lo, hi = FIELDS[ch.field]
        if not lo <= value <= hi:
            raise SpecError(
                f"--change {ch.text or ch.label()!r}: {unit['name']} {ch.field} would be "
                f"{value}; it must be between {lo} and {hi}"
            )
        unit[ch.field] = value
    try:
        new.tables = compile_tables(new.units, new.rewards, new.rules, new.structures, new.feats)
    except CardDataError as exc:
        raise SpecError(f"--change: {exc}") from None
    return new


@dataclass(frozen=True)
class Changes:
    """Everything that turns a mix's shipped cards into the cards a run plays.

    Pass it to ``Engine(spec, changes=...)`` (or ``runner.run(..., changes=...)``);
    an empty ``Changes()`` plays the shipped cards.
    """

    edits: tuple[CardChange, ...] = ()
    card_files: tuple[Path, ...] = ()

    @classmethod
    def parse(cls, changes: Iterable[str] = (), card_files: Iterable[str | Path] = ()) -> Changes:
        """From the command line's ``--change`` texts and ``--cards`` paths.

        Raises:
            SpecError: a malformed edit, one card's field edited twice (which of two
                edits was meant is the user's to say, not the last one's to win), or an
                empty ``--cards`` path.
        """
        card_files = tuple(card_files)
        for path in card_files:
            problem = path_problem(path)
            if problem:
                raise SpecError(f"--cards: {problem}")
        edits = tuple(parse_change(c) for c in changes)
        seen: dict[tuple[str, str], CardChange] = {}
        for e in edits:
            key = (name_key(e.card), e.field)
            if key in seen:
                raise SpecError(
                    f"--change {e.text!r}: {e.card}.{e.field} is already changed by "
                    f"{seen[key].text!r}; give one change per card and field"
                )
            seen[key] = e
        return cls(edits=edits, card_files=tuple(Path(p) for p in card_files))

    def __bool__(self) -> bool:
        return bool(self.edits or self.card_files)

    def load_pool(
        self,
        mix: str,
        seed: int = 0,
        learning: bool = False,
        rule_overrides: dict[str, Any] | None = None,
    ) -> CardPool:
        """The pool of ``mix`` with the replacement files and edits applied.

        Raises:
            SpecError: an unknown mix, a replacement for a set not in the mix, a
                bad edit.
            CardDataError: a replacement file with invalid card data.
        """
        parts = parse_mix(mix)
        sets: dict[str, SetData | None] = {p.name: None for p in parts}
        for path in self.card_files:
            data = load_set(path)
            if data.name not in sets:
                raise SpecError(
                    f"--cards {path}: it holds set {data.name!r}, which is not in --mix {mix!r}"
                )
            if sets[data.name] is not None:
                raise SpecError(f"--cards {path}: set {data.name!r} is replaced twice")
            sets[data.name] = data
        loaded = [s if s is not None else load_set(SETS_DIR / f"{n}.toml") for n, s in sets.items()]
        pool = pool_from_sets(
            loaded, learning, parts=parts, seed=seed, rule_overrides=rule_overrides
        )
        return apply_edits(pool, self.edits)

    def describe(self) -> dict[str, list[str]]:
        """JSON-ready: the edits as written and the replacement files (for run metadata)."""
        return {
            "change": [c.text or c.label() for c in self.edits],
            "cards": [str(p) for p in self.card_files],
        }

    def to_json(self) -> str:
        """:meth:`describe` as canonical JSON."""
        return json.dumps(self.describe(), sort_keys=True)


def changed_units(base: CardPool, changed: CardPool) -> list[str]:
    """Names of units whose entry differs between two pools, or that only one has.

    Names present in both come in ``changed``'s kind order, then the ones only
    ``base`` has.
    """
    before = {u["name"]: u for u in base.units}
    after = {u["name"]: u for u in changed.units}
    out = [n for n, u in after.items() if before.get(n) != u]
    return out + [n for n in before if n not in after]
