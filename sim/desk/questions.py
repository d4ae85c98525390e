"""The questions the desk asks, each as the ``omensim`` command line that answers it.

A :class:`Question` is what an Ask form holds; :func:`command` turns it into the
command (``omensim compare --mix aegean ... --out answers/NAME``) a worker process
runs and the answer page shows, so the desk answers nothing the CLI would not.
Every form value is checked here first, in one line, so a bad form starts nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Any

from sim.data.cards import CONFIG_DIR, SETS_DIR
from sim.data.changes import FIELDS
from sim.data.spec import SpecError, games_problem, split_names

KINDS: dict[str, str] = {
    "first": "First-player advantage of a mix",
    "emissary": "The Emissary of War effect",
    "change": "A card change (a change set)",
    "mixes": "A ranking of mixes",
    "strength": "Every card's strength",
    "balance": "A balance race for a card's field",
}
"""Each question's kind and its title on the Ask page."""

PLANNED = ("emissary", "change")
"""The kinds the CLI sizes itself (``omensim compare --plan``)."""

NAME_SEP = r"\s*,\s*|\s+"
"""What separates the names of a form's list of tiers or mixes: a comma or spaces."""

DEFAULT_PRECISION = 0.5
"""Points: the half-width a precision question aims at unless the form says otherwise."""


def bots() -> list[str]:
    """The shipped bot profiles (configs/strategies), by name."""
    return sorted(p.stem for p in (CONFIG_DIR / "strategies").glob("*.toml"))


def sets() -> list[str]:
    """The shipped card sets (configs/sets), by name."""
    return sorted(p.stem for p in SETS_DIR.glob("*.toml"))


@dataclass(frozen=True)
class Question:
    """One question as its form gives it (``games`` is the budget, or with ``precision``
    the ceiling; ``precision`` is in points)."""

    kind: str
    mix: str = "aegean"
    bot: str = "greedy"
    seed: int = 0
    games: int = 20_000
    precision: float | None = None
    changes: tuple[str, ...] = ()
    change_set: str = ""
    card: str = ""
    field: str = "cost"
    mixes: tuple[str, ...] = ()
    tiers: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for the answer's record."""
        return asdict(self)

    @property
    def title(self) -> str:
        """What the question asks, in a few words."""
        what = {
            "first": f"first-player advantage of {self.mix}",
            "emissary": f"Emissary effect on {self.mix}",
            "change": f"{', '.join(self.changes)} on {self.mix}",
            "mixes": f"ranking of {', '.join(self.mixes)}",
            "strength": f"card strength in {self.mix}",
            "balance": f"balance {self.card}.{self.field} in {self.mix}",
        }[self.kind]
        return f"{what} ({' < '.join(self.tiers) if self.tiers else self.bot})"


def _text(form: dict[str, Any], key: str, default: str = "") -> str:
    value = form.get(key, default)
    return (str(value) if value is not None else default).strip()


def from_form(form: dict[str, Any], changes: tuple[str, ...] = ()) -> Question:
    """The Question a form names, each value checked; SpecError names what is wrong.

    ``changes``: the ``--change`` texts of the form's change set (read by the caller).
    """
    kind = _text(form, "kind")
    if kind not in KINDS:
        raise SpecError(f"unknown question {kind!r}; known: {', '.join(KINDS)}")
    mix = _text(form, "mix", "aegean").lower()
    if not re.fullmatch(r"[a-z0-9+:]+", mix):
        raise SpecError(f"mix {mix!r}: card sets joined by '+', e.g. 'dunes+aegean'")
    bot = _text(form, "bot", "greedy")
    if bot not in bots():
        raise SpecError(f"unknown bot {bot!r}; known: {', '.join(bots())}")
    seed_text = _text(form, "seed", "0") or "0"
    if not re.fullmatch(r"\d{1,18}", seed_text):
        raise SpecError(f"seed must be a whole number from 0, got {seed_text!r}")
    games, problem = games_problem(_text(form, "games", "20000") or "20000")
    if problem:
        raise SpecError(f"games: {problem}")
    precision = None
    if _text(form, "budget", "games") == "precision":
        raw = _text(form, "precision", str(DEFAULT_PRECISION))
        try:
            precision = float(raw)
        except ValueError:
            raise SpecError(f"precision must be points such as 0.5, got {raw!r}") from None
        if not (math.isfinite(precision) and 0 < precision < 50):
            raise SpecError(f"precision must be between 0 and 50 points, got {raw!r}")
        if kind in ("mixes", "strength"):
            raise SpecError(f"{KINDS[kind].lower()}: give a game budget (no --until-ci there)")
    card, fld = _text(form, "card"), _text(form, "field", "cost").lower()
    if kind == "balance":
        if not card:
            raise SpecError("a balance race needs a card")
        if fld not in FIELDS:
            raise SpecError(f"field {fld!r}: valid fields: {', '.join(FIELDS)}")
    if kind == "change" and not changes:
        raise SpecError("a card change needs a change set with at least one edit (Cards page)")
    tiers: tuple[str, ...] = ()
    if kind == "strength" and _text(form, "tiers"):
        tiers = split_names(_text(form, "tiers"), "tiers", "bot", sep=NAME_SEP)
        unknown = [t for t in tiers if t not in bots()]
        if unknown:
            raise SpecError(f"unknown tier {unknown[0]!r}; known: {', '.join(bots())}")
        if len(tiers) < 2:
            raise SpecError("skill tiers: two or more different bots, weakest first")
    mixes: tuple[str, ...] = ()
    if kind == "mixes":
        mixes = split_names(_text(form, "mixes").lower(), "mixes", "mix", sep=NAME_SEP)
        if not mixes:
            raise SpecError("a ranking needs mixes, e.g. 'aegean dunes+aegean'")
    return Question(
        kind=kind, mix=mix, bot=bot, seed=int(seed_text), games=games, precision=precision,
        changes=changes if kind == "change" else (), change_set=_text(form, "change_set"),
        card=card, field=fld, mixes=mixes, tiers=tiers,
    )  # fmt: skip


def _chunk(games: int) -> list[str]:
    """A chunk size giving about eight Parquet parts, so progress shows part by part
    (results never depend on it)."""
    size = min(1 << 16, max(1_000, -(-games // 8)))
    return ["--chunk-size", str(size)]


def _seats(q: Question) -> list[str]:
    return ["--mix", q.mix, "--p0", q.bot, "--p1", q.bot, "--seed", str(q.seed)]


def _b_side(q: Question) -> list[str]:
    if q.kind == "emissary":
        return ["--b-variant", "emissary"]
    return [opt for text in q.changes for opt in ("--change", text)]


def plan_command(q: Question) -> list[str]:
    """``omensim compare --plan W``: the CLI's own estimate of games and time."""
    width = (q.precision or DEFAULT_PRECISION) / 100
    return ["compare", *_seats(q), "--games", str(q.games), *_b_side(q), "--plan", f"{width:g}"]


def command(q: Question, out: str, games: int | None = None) -> list[str]:
    """The ``omensim`` arguments that answer ``q`` into the folder ``out`` (workspace-
    relative); ``games``: the games a precision compare plays (from its plan). A precision
    first-player question plays until its interval is that narrow, its games the ceiling."""
    n = games if games is not None else q.games
    if q.kind == "first":
        until = [] if q.precision is None else ["--until-ci", f"{q.precision / 100:g}"]
        return ["run", *_seats(q), "--games", str(n), "--out", out, *_chunk(n), *until]
    if q.kind in ("emissary", "change"):
        return ["compare", *_seats(q), "--games", str(n), *_b_side(q), "--out", out, *_chunk(n)]
    if q.kind == "mixes":
        return ["mixes", *q.mixes, "--bot", q.bot, "--games", str(n), "--seed", str(q.seed),
                "--out", out]  # fmt: skip
    if q.kind == "strength":
        bots_ = ["--tiers", ",".join(q.tiers)] if q.tiers else ["--panel", q.bot]
        return ["strength", "--mix", q.mix, *bots_, "--games", str(n),
                "--seed", str(q.seed), "--out", out]  # fmt: skip
    # The race's first look: the CLI's default, or a quarter of a smaller budget.
    pilot = min(4_000, max(1, n // 4))
    args = ["balance", *_seats(q), "--card", q.card, "--field", q.field,
            "--pilot", str(pilot), "--max-games", str(n), "--out", out]  # fmt: skip
    if q.precision is not None:
        args += ["--precision", f"{q.precision:g}"]
    return args


PLAN_LINE = re.compile(
    r"(?P<games>[\d,]+) games per run, .*?\((?P<speed>[\d,.]+) games/s in the pilot\)"
)


def planned_games(plan_text: str) -> tuple[int, float] | None:
    """``(games per run, games/s)`` read from ``compare --plan``'s last line, or None."""
    m = PLAN_LINE.search(plan_text)
    if m is None:
        return None
    return int(m["games"].replace(",", "")), float(m["speed"].replace(",", ""))


def pieces(q: Question) -> list[tuple[str, str, int]]:
    """``(bot, mix, games)`` for each part of a question without a ``--plan`` in the CLI,
    at the most it can play: each skill tier's games, each ranked mix's, or its one run."""
    if q.kind == "strength" and q.tiers:
        return [(bot, q.mix, q.games) for bot in q.tiers]
    if q.kind == "mixes":
        return [(q.bot, mix, q.games) for mix in q.mixes]
    return [(q.bot, q.mix, games_played(q, q.games))]


def games_played(q: Question, games: int) -> int:
    """Games the question plays in all for a budget of ``games`` (an upper bound for a
    race and for a precision run), to turn a speed into a time."""
    if q.kind in ("emissary", "change"):
        return 2 * games
    if q.kind == "mixes":
        return games * len(q.mixes)
    if q.kind == "strength":
        return games * max(1, len(q.tiers))
    if q.kind == "balance":
        return games * 9  # the shipped value +/- the CLI's default span of 4
    return games
