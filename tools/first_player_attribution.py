"""Where the first player's edge in Heir to the Dunes comes from: one paired compare per choice.

Every arm plays the same games as the shipped rules (same seed, same game indices: common
random numbers, as ``omensim compare`` plays them) with one thing changed: a Dunes reading
switched to its other reading, one rule of the turn structure that favours the first player
neutralised or flipped, or the abilities of one group of reconstructed cards removed. Each
row is the first player's win rate among decisive games (no shared victory, no turn cap) in
that arm, and its paired shift from the shipped rules with a 95% interval
(:func:`sim.analysis.paired.paired_ratio_diff`, the compare's own estimator).

    python tools/first_player_attribution.py --games 20000 --seed 3 > attribution.md
    python tools/first_player_attribution.py --games 2000 --p0 search --p1 search --only ...

The Markdown table goes to stdout, progress to stderr. docs/first-player-dunes.md holds a run.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.analysis.compare import play_outcomes
from sim.analysis.paired import Outcomes, pair, paired_ratio_diff
from sim.data.cards import SETS_DIR
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run.engine import Engine
from sim.run.session import numba_threads, resolve_threads

OTHER_SETS = (0.55, 0.57)
"""The first player's rate among decisive games in Aegean and Reign (greedy, issue figures):
an arm whose rate falls to the top of this range or below is a candidate for the default."""


@dataclass(frozen=True)
class Arm:
    """One change to the shipped Dunes game."""

    name: str
    group: str  # "reading", "turn" or "cards"
    what: str
    rules: str = ""  # the [rules] lines of a house-rules file
    strip: tuple[str, str] = ("", "")  # (table, type or devotion) whose abilities are removed


READING_ARMS = [
    Arm("favor_flip", "reading", "neutral units flip Favor too", 'favor_flip = "every_unit"'),
    Arm("reveal_repeat", "reading", "repeat the reveal only after a miss",
        'reveal_repeat = "after_miss"'),
    Arm("maneuver_count", "reading", "MANEUVER moves exactly N", 'maneuver_count = "exactly"'),
    Arm("war_torn_units", "reading", "either player's 3 units make a city war-torn",
        'war_torn_units = "either_player"'),
    Arm("reveal_reshuffles", "reading", "a reveal from an empty deck finds nothing",
        "reveal_reshuffles = false"),
    Arm("build_from", "reading", "build from the hand", 'build_from = "hand"'),
    Arm("structure_ability", "reading", "completed structures resolve every Surge",
        'structure_ability = "each_surge"'),
    Arm("structure_cards", "reading", "cards under a completed structure go to the discard",
        'structure_cards = "leave"'),
    Arm("discount_unit", "reading", "the discount for any devoted unit",
        'discount_unit = "any_devoted"'),
    Arm("units_in_card_texts", "reading", "card texts count a COLOSSAL unit as 2",
        'units_in_card_texts = "capacity"'),
    Arm("hand_and_leave", "reading", "build from the hand, and cards leave on the flip",
        'build_from = "hand"\nstructure_cards = "leave"'),
]  # fmt: skip
TURN_ARMS = [
    Arm("favor_start", "turn", "Favor starts on the first player's god",
        'favor_start = "first_player"'),
    Arm("first_turn_3", "turn", "no short first turn (3 Wealth actions)",
        "first_turn_wealth_actions = 3"),
    Arm("first_turn_1", "turn", "a shorter first turn (1 Wealth action)",
        "first_turn_wealth_actions = 1"),
    Arm("second_coin", "turn", "the second player starts with 1 more coin",
        "second_player_coins = 1"),
    Arm("no_reveal", "turn", "no Wealth reveal", "wealth_reveal = 0"),
    Arm("no_discount", "turn", "no first-devoted-unit discount", "devoted_discount = 0"),
    Arm("no_structure_end", "turn", "structures do not end the game",
        'end_conditions = ["two_cities_empty"]'),
    Arm("no_structures", "turn", "no structures", "structures_per_player = 0"),
]  # fmt: skip
CARD_ARMS = [
    Arm("embalmed", "cards", "Embalmed (LABOR) abilities removed", strip=("units", "embalmed")),
    Arm("followers_anubis", "cards", "Anubis Followers' abilities removed",
        strip=("units", "follower/anubis")),
    Arm("followers_horus", "cards", "Horus Followers' abilities removed",
        strip=("units", "follower/horus")),
    Arm("initiates", "cards", "Initiates' abilities removed", strip=("units", "initiate")),
    Arm("viziers", "cards", "Viziers' MANEUVER removed", strip=("units", "vizier")),
    Arm("structure_abilities", "cards", "structures' abilities removed",
        strip=("structures", "")),
    Arm("reward_tiles", "cards", "reward tiles' abilities removed", strip=("rewards", "")),
]  # fmt: skip
ARMS = READING_ARMS + TURN_ARMS + CARD_ARMS


def stripped_set(text: str, table: str, kind: str) -> str:
    """``dunes.toml`` with the ``[[TABLE.abilities]]`` blocks of the matching entries removed
    (``kind``: a unit type, or ``type/devotion``; "" every entry of the table)."""
    out: list[str] = []
    entry: list[str] = []
    dropping = False
    matches = False
    for line in text.splitlines(keepends=True):
        header = line.strip()
        if header.startswith("[") and not header.startswith("[["):
            dropping = False  # a plain table such as [rules]
        elif header.startswith("[["):
            if header == f"[[{table}]]":
                entry = []
                matches = False
            if header == f"[[{table}.abilities]]":
                dropping = matches
                if dropping:
                    continue
            else:
                dropping = False
        if dropping:
            continue
        out.append(line)
        entry.append(line)
        fields = dict(re.findall(r'^(type|devotion) = "([a-z]+)"', "".join(entry), re.M))
        want = kind.split("/")
        matches = not kind or (
            fields.get("type") == want[0] and (len(want) == 1 or fields.get("devotion") == want[1])
        )
    return "".join(out)


def decisive_first(o: Outcomes) -> tuple[np.ndarray, np.ndarray]:
    """Per game: the first player won (numerator) among decisive games (denominator)."""
    den = (o.winner >= 0).astype(np.float64)
    if o.capped is not None:
        den *= ~o.capped
    return o.first_win * den, den


def play(spec: RunSpec, changes: Changes | None, games: int) -> Outcomes:
    """Games ``0 .. games-1`` of ``spec`` in memory."""
    return play_outcomes(Engine(spec, changes=changes), games)


def arm_run(arm: Arm, base: RunSpec, tmp: Path) -> tuple[RunSpec, Changes | None]:
    """The spec (and card changes) of ``arm``."""
    if arm.rules:
        path = tmp / f"{arm.name}.toml"
        path.write_text(f"[rules]\n{arm.rules}\n", encoding="utf-8")
        return RunSpec(**{**base.__dict__, "rules": str(path)}), None
    table, kind = arm.strip
    path = tmp / arm.name / "dunes.toml"
    path.parent.mkdir()
    text = (SETS_DIR / "dunes.toml").read_text(encoding="utf-8")
    path.write_text(stripped_set(text, table, kind), encoding="utf-8")
    return base, Changes.parse((), [path])


def row(arm: Arm, a: Outcomes, b: Outcomes) -> str:
    """One Markdown row: the arm's decisive first-player rate and its paired shift."""
    a, b = pair(a, b)
    r = paired_ratio_diff(*decisive_first(a), *decisive_first(b))
    rate, d, lo, hi = (float(r[k]) for k in ("rate_b", "diff", "lo", "hi"))
    mark = " **candidate**" if rate <= OTHER_SETS[1] and arm.group == "reading" else ""
    return (
        f"| {arm.name} | {arm.group} | {arm.what} | {100 * rate:.1f}% | "
        f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]{mark} |"
    )


def main(argv: list[str] | None = None) -> int:
    """Play the arms and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--p0", default="greedy")
    ap.add_argument("--p1", default="greedy")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--only", default="", help="comma-separated arm names (default: all)")
    args = ap.parse_args(argv)
    arms = [a for a in ARMS if not args.only or a.name in args.only.split(",")]
    base = RunSpec(games=args.games, mix="dunes", seed=args.seed, p0=args.p0, p1=args.p1)
    with numba_threads(resolve_threads(args.threads)), tempfile.TemporaryDirectory() as tmp:
        t0 = time.time()
        shipped = play(base, None, args.games)
        num, den = decisive_first(shipped)
        print(
            f"{args.games:,} games of dunes, seed {args.seed}, {args.p0} vs {args.p1}: "
            f"shipped rules, first player {100 * num.sum() / den.sum():.1f}% of "
            f"{int(den.sum()):,} decisive games\n",
        )
        print("| arm | kind | change | first player, decisive | shift, points [95%] |")
        print("| --- | --- | --- | ---: | --- |")
        for arm in arms:
            spec, changes = arm_run(arm, base, Path(tmp))
            print(row(arm, shipped, play(spec, changes, args.games)), flush=True)
            print(f"{arm.name}: {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
