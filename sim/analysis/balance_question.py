"""The questions ``omensim balance`` asks (:class:`Question`): a card's fields (measured by
its holders' win rate), rule parameters or a variant off and on (the first player's share of
decisive games), and the candidate values: those given, or the legal ones around shipped.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.analysis.paired import Outcomes, holders
from sim.analysis.sweep import select_kinds
from sim.data import schema as S
from sim.data.cards import load_rule_overrides
from sim.data.changes import FIELDS, CardChange, Changes
from sim.data.spec import VARIANTS, RunSpec, SpecError
from sim.run.compiled import run_pool

DEFAULT_SPAN = 4
"""Without ``--values``: the shipped value +/- this many, inside the schema's bounds."""
MAX_CANDIDATES = 40


@dataclass(frozen=True)
class Question:
    """What is searched (``kind``: card, rule or variant) and over which values."""

    kind: str
    names: tuple[str, ...]
    """The card fields (kind card), the rule parameters (rule) or the variant's name."""
    candidates: tuple[tuple[int, ...], ...]
    """One tuple of values (one per name) per candidate."""
    shipped: tuple[int, ...]
    card: str | None = None
    card_kind: int | None = None

    @property
    def metric(self) -> str:
        """What is measured, in words."""
        if self.kind == "card":
            return f"{self.card}: holders' win rate"
        return "first player's share of decisive games"

    def label(self, j: int) -> str:
        """``cost=3`` / ``start_coins=5`` / ``emissary on``."""
        values = self.candidates[j]
        if self.kind == "variant":
            return f"{self.names[0]} {'on' if values[0] else 'off'}"
        return ", ".join(f"{n}={v}" for n, v in zip(self.names, values, strict=True))

    def labels(self) -> list[str]:
        """Every candidate's label."""
        return [self.label(j) for j in range(len(self.candidates))]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (:meth:`from_dict` rebuilds it)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Question:
        """The inverse of :meth:`to_dict`."""
        candidates = tuple(tuple(c) for c in d["candidates"])
        names, shipped = tuple(d["names"]), tuple(d["shipped"])
        return cls(**{**d, "names": names, "candidates": candidates, "shipped": shipped})


def checked_names(
    given: Sequence[str], valid: Collection[str], option: str, what: str
) -> tuple[str, ...]:
    """``given`` stripped and lower-cased, each one of ``valid`` and named once; a SpecError
    names one not in ``valid`` (listed after ``what``) or named twice."""
    names = tuple(n.strip().lower() for n in given)
    for n in names:
        if n not in valid:
            raise SpecError(f"{option} {n!r}: {what}: {', '.join(valid)}")
    if len(set(names)) != len(names):
        raise SpecError(f"{option}: each {option[2:]} once")
    return names


def _range(
    name: str, current: int, lo: int, hi: int, values: tuple[int, ...] | None, span: int
) -> tuple[int, ...]:
    if values is None:
        return tuple(range(max(lo, current - span), min(hi, current + span) + 1))
    bad = [v for v in values if not lo <= v <= hi]
    if bad:
        raise SpecError(f"--values: {name}={bad[0]} is outside its legal range {lo}..{hi}")
    return values


def _grid(
    names: Sequence[str],
    shipped: tuple[int, ...],
    bounds: Sequence[tuple[int, int]],
    values: Sequence[tuple[int, ...] | None],
    span: int,
    option: str,
) -> tuple[tuple[int, ...], ...]:
    """Every combination of each name's values (``values``, or shipped +/- ``span`` inside
    its ``bounds``), and the shipped one, in order."""
    if len(values) > len(names):
        raise SpecError(f"--values is given more often than {option}")
    given = [*values, *[None] * (len(names) - len(values))]
    ranges = [
        _range(n, s, lo, hi, v, span)
        for n, s, (lo, hi), v in zip(names, shipped, bounds, given, strict=True)
    ]
    combos = list(itertools.product(*ranges))
    if shipped not in combos:
        combos.insert(0, shipped)
    if len(combos) < 2:
        raise SpecError(f"only one value of {', '.join(names)} to try: give --values or --span")
    if len(combos) > MAX_CANDIDATES:
        raise SpecError(
            f"{len(combos)} candidates ({' x '.join(str(len(r)) for r in ranges)} values of "
            f"{', '.join(names)}); at most {MAX_CANDIDATES}: narrow them with --values or --span"
        )
    return tuple(sorted(combos))


def candidates_of(
    q: Question, values: Sequence[tuple[int, ...] | None], span: int
) -> tuple[tuple[int, ...], ...]:
    """The candidates ``values`` and ``span`` give for ``q``'s names and shipped values, as
    :func:`card_question` and :func:`rule_question` make them: how a resumed race knows
    whether the ``--values`` and ``--span`` typed again are the ones it recorded (it records
    only the candidates). Refuses (SpecError) what those functions refuse, and a question
    whose candidates no values give (a variant's)."""
    if q.kind == "card":
        bounds = [FIELDS[n] for n in q.names]
    elif q.kind == "rule":
        bounds = [(int(S.RULE_INTS[n].lo), int(S.RULE_INTS[n].hi)) for n in q.names]
    else:
        raise SpecError(f"a {q.kind} question takes no --values or --span")
    option = "--field" if q.kind == "card" else "--rule"
    return _grid(q.names, q.shipped, bounds, values, span, option)


def card_question(
    spec: RunSpec,
    card: str,
    fields: Sequence[str],
    values: Sequence[tuple[int, ...] | None] = (),
    span: int = DEFAULT_SPAN,
    base: Changes | None = None,
) -> Question:
    """The candidates of one card's ``fields``: ``values`` per field, or shipped +/- ``span``.
    Refuses (SpecError) an unknown card or field, a value out of the schema's bounds, or
    too many or too few candidates."""
    fields, name, kind, shipped = _card_fields(spec, card, fields, base)
    grid = _grid(fields, shipped, [FIELDS[f] for f in fields], values, span, "--field")
    return Question("card", fields, grid, shipped, name, kind)


def _card_fields(
    spec: RunSpec, card: str, fields: Sequence[str], base: Changes | None
) -> tuple[tuple[str, ...], str, int, tuple[int, ...]]:
    """``(fields, card's name, its kind, its current values of fields)``, checked."""
    if not fields:
        raise SpecError("--card needs --field (cost, offering, strength or copies)")
    names = checked_names(fields, FIELDS, "--field", "valid fields")
    pool = run_pool(spec, base or Changes())
    kind = select_kinds(pool.units, [card])[0]
    unit = pool.units[kind]
    return names, unit["name"], kind, tuple(int(unit[f]) for f in names)


def card_moves_question(
    spec: RunSpec,
    card: str,
    fields: Sequence[str],
    span: int = DEFAULT_SPAN,
    base: Changes | None = None,
) -> Question:
    """One card's single-field moves (each candidate but the current values is one edit):
    each of ``fields`` moved alone to current +/- ``span``, inside the schema's bounds.
    Refuses what :func:`card_question` refuses."""
    names, name, kind, current = _card_fields(spec, card, fields, base)
    moves = [current]
    for i, f in enumerate(names):
        for v in _range(f, current[i], *FIELDS[f], None, span):
            if v != current[i]:
                moves.append((*current[:i], v, *current[i + 1 :]))
    if len(moves) < 2:
        raise SpecError(f"no value of {', '.join(names)} to try for {name}: widen --span")
    if len(moves) > MAX_CANDIDATES:
        raise SpecError(
            f"{len(moves)} single-field moves of {name}; at most {MAX_CANDIDATES}: "
            "narrow them with --span or fewer --field"
        )
    return Question("card", names, tuple(sorted(moves)), current, name, kind)


def rule_question(
    spec: RunSpec,
    rules: Sequence[str],
    values: Sequence[tuple[int, ...] | None] = (),
    span: int = DEFAULT_SPAN,
) -> Question:
    """The candidates of rule parameters (``start_coins``, ``tiles_per_city`` ...); refuses
    (SpecError) an unknown or non-numeric rule, a value out of its bounds."""
    rules = checked_names(rules, S.RULE_INTS, "--rule", "numeric rule parameters")
    shipped = tuple(int(run_pool(spec).rules[r]) for r in rules)
    bounds = [(int(S.RULE_INTS[r].lo), int(S.RULE_INTS[r].hi)) for r in rules]
    return Question("rule", rules, _grid(rules, shipped, bounds, values, span, "--rule"), shipped)


def variant_question(spec: RunSpec, variant: str) -> Question:
    """A variant off and on (the spec's own setting is the shipped one); refuses (SpecError)
    an unknown variant."""
    variant = variant.strip().lower()
    if variant not in VARIANTS:
        raise SpecError(f"--variant-choice {variant!r}: known variants: {', '.join(VARIANTS)}")
    shipped = (int(variant in spec.variants),)
    return Question("variant", (variant,), ((0,), (1,)), shipped)


def candidate_run(
    q: Question, spec: RunSpec, base: Changes, j: int, rules_dir: Path
) -> tuple[RunSpec, Changes]:
    """The spec and card edits candidate ``j`` plays. A rule candidate's house rules are
    written to ``rules_dir/cNN.toml`` (the spec's own ``--rules`` merged in, the candidate's
    values winning)."""
    values = q.candidates[j]
    if q.kind == "card":
        edits = [CardChange(q.card or "", f, v) for f, v in zip(q.names, values, strict=True)]
        return spec, Changes((*base.edits, *edits), base.card_files)
    if q.kind == "variant":
        others = tuple(v for v in spec.variants if v != q.names[0])
        return dataclasses.replace(spec, variants=others + (q.names[0],) * values[0]), base
    overrides = load_rule_overrides(spec.rules) if spec.rules is not None else {}
    mix_rules = run_pool(dataclasses.replace(spec, rules=None), base).rules
    for name, v in zip(q.names, values, strict=True):
        # The mix's own value is played without an override: a house rule that
        # changes nothing is refused.
        if v == mix_rules[name]:
            overrides.pop(name, None)
        else:
            overrides[name] = v
    if not overrides:
        return dataclasses.replace(spec, rules=None), base
    rules_dir.mkdir(parents=True, exist_ok=True)
    path = rules_dir / f"c{j:02d}.toml"
    body = "".join(f"{k} = {json.dumps(v)}\n" for k, v in overrides.items())
    path.write_text("# one candidate of omensim balance\n[rules]\n" + body, encoding="utf-8")
    return dataclasses.replace(spec, rules=str(path)), base


def measure(q: Question, o: Outcomes) -> tuple[np.ndarray, np.ndarray]:
    """Per game ``(num, den)`` of the question's rate (int8 arrays, in game order)."""
    return card_terms(o, q.card_kind or 0) if q.kind == "card" else first_terms(o)


def card_terms(o: Outcomes, kind: int) -> tuple[np.ndarray, np.ndarray]:
    """Per game, the holders of card ``kind`` who won outright, and its holders."""
    k = np.array([kind])
    won, _, den = holders(o, o, k, k)
    return won[:, 0], den[:, 0]


def first_terms(o: Outcomes) -> tuple[np.ndarray, np.ndarray]:
    """Per game, whether the first player won a decisive game, and whether it was decisive."""
    decisive = (o.winner >= 0).astype(np.int8)
    return (o.first_win * decisive).astype(np.int8), decisive
