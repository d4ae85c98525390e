"""Plant one-line rule bugs in a copy of the kernel and count how many the rule tests catch.

Run from the repository root::

    python tools/plant_bugs.py                 # every planted bug, 2 at a time
    python tools/plant_bugs.py --only wealth_bonus,war_torn_enemy
    python tools/plant_bugs.py --markdown out.md   # also write the table
    python tools/plant_bugs.py --only feat_coins_strict --tests tests/rules/test_rules_reign.py

Each bug is one textual edit of one kernel line (two for a swapped pair of
statements), named with the rulebook line it breaks. For each, the tree
(``sim``, ``strategies``, ``tests``, ``configs``, ``docs``, ``pyproject.toml``; a rule test
reads the readings table in ``docs``) is copied
into a temporary directory, the edit is made there (never in this checkout),
and ``tests/rules`` runs in that copy with ``-x`` and its own empty
``NUMBA_CACHE_DIR``, so every mutant pays a cold compile of the kernel (about
a minute or two on a free core). The golden replays and the coverage checker
are left out by default: a replay catches any change of play without saying
which rule broke (``--golden`` puts them back). An unchanged copy runs
alongside the first mutants and must pass. A bug is *caught* when the tests
fail (or time out). Results print as each run ends, so a run cut short still
says what it measured.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COPIED = ("sim", "strategies", "tests", "configs", "docs", "pyproject.toml")
LEFT_OUT = ("tests/rules/test_golden.py", "tests/rules/test_rule_coverage.py")
AE, DU, RE = "edge-of-the-aegean.txt", "heir-to-the-dunes.txt", "reign-of-war.en.md"


@dataclass(frozen=True)
class Bug:
    """One planted rule bug: ``old`` (found exactly once in ``file``) becomes ``new``."""

    name: str
    area: str
    rule: str  # the rulebook line it breaks
    file: str
    old: str
    new: str


BUGS: tuple[Bug, ...] = (
    # --- zones: decks, discard pile, supply ------------------------------------------
    Bug(
        "no_reshuffle",
        "zones",
        f"{AE}, line 80; {RE}, line 171",
        "sim/kernel/zones.py",
        "        reshuffle(st, d)\n",
        "        pass\n",
    ),
    Bug(
        "coins_past_supply",
        "zones",
        f"{AE}, line 82",
        "sim/kernel/zones.py",
        "    k = min(n, st[L.SUPPLY])\n",
        "    k = n\n",
    ),
    Bug(
        "take_discard_is_a_draw",
        "zones",
        f"{RE}, lines 168-169",
        "sim/kernel/zones.py",
        "    d = pile_of(st, p)\n    base = L.DISC",
        "    d = pile_of(st, p)\n"
        "    if st[L.DECK_N + d] == 0:\n        reshuffle(st, d)\n    base = L.DISC",
    ),
    # --- wealth ------------------------------------------------------------------
    Bug(
        "wealth_bonus_lost",
        "wealth",
        f"{AE}, line 74",
        "sim/kernel/wealth.py",
        "        cards += bonus\n",
        "        cards += 0\n",
    ),
    Bug(
        "first_turn_full_wealth",
        "wealth",
        f"{AE}, line 84",
        "sim/kernel/wealth.py",
        "        n = rule(tab, L.RU_FIRST_TURN_WEALTH)\n",
        "        n = rule(tab, L.RU_WEALTH_ACTIONS)\n",
    ),
    Bug(
        "reveal_keeps_undevoted",
        "wealth",
        f"{DU}, line 100",
        "sim/kernel/wealth.py",
        "    if (card_col(tab, card, L.K_DEVOTION) & st[L.GOD + p]) != 0:",
        "    if (card_col(tab, card, L.K_DEVOTION) & st[L.GOD + p]) == 0:",
    ),
    Bug(
        "reveal_repeat_by_any_unit",
        "wealth",
        f"{DU}, line 100",
        "sim/kernel/wealth.py",
        "            if card_col(tab, card, L.K_DEVOTION) == V.DEV_NEUTRAL:",
        "            if card_col(tab, card, L.K_DEVOTION) >= 0:",
    ),
    # --- board and surge ---------------------------------------------------------------
    Bug(
        "capacity_plus_one",
        "board",
        f"{AE}, line 96",
        "sim/kernel/board.py",
        "    return rule(tab, L.RU_CAPACITY) - side_weight(st, tab, c, p)",
        "    return rule(tab, L.RU_CAPACITY) + 1 - side_weight(st, tab, c, p)",
    ),
    Bug(
        "war_torn_enemy_four",
        "board",
        f"{AE}, line 120",
        "sim/kernel/board.py",
        "    return opp >= rule(tab, L.RU_WARTORN_ENEMY) or",
        "    return opp > rule(tab, L.RU_WARTORN_ENEMY) or",
    ),
    Bug(
        "no_devoted_discount",
        "surge",
        f"{DU}, line 135",
        "sim/kernel/surge.py",
        "            base_cost -= rule(tab, L.RU_DEVOTED_DISCOUNT)",
        "            base_cost -= 0",
    ),
    Bug(
        "neutral_flips_favor",
        "surge",
        f"{DU}, lines 69 and 133",
        "sim/kernel/surge.py",
        "    if st[L.FAVOR] == 0 or (dev == V.DEV_NEUTRAL and not rule(tab, L.RU_NEUTRAL_FLIPS)):",
        "    if st[L.FAVOR] == 0 or (dev == V.DEV_NEUTRAL and False):",
    ),
    Bug(
        "two_rewards_a_surge",
        "surge",
        f"{AE}, line 98; {RE}, line 176",
        "sim/kernel/surge.py",
        "    if st[L.REWARDS_USED_TURN] < rule(tab, L.RU_REWARDS_PER_SURGE):",
        "    if st[L.REWARDS_USED_TURN] <= rule(tab, L.RU_REWARDS_PER_SURGE):",
    ),
    Bug(
        "exalt_without_token",
        "surge",
        f"{AE}, line 110",
        "sim/kernel/surge.py",
        "    if st[L.VP_SUPPLY] == 0:\n        return\n    T.event(st, E.EV_EXALT",
        "    if st[L.VP_SUPPLY] < 0:\n        return\n    T.event(st, E.EV_EXALT",
    ),
    # --- abilities -----------------------------------------------------------------------
    Bug(
        "maneuver_moves_viziers",
        "abilities",
        f"{DU}, line 152",
        "sim/kernel/abilities.py",
        "                if B.has_kw(tab, card, V.KW_MANEUVER) or _moved_now(st, card):",
        "                if _moved_now(st, card):",
    ),
    Bug(
        "take_cost_limit_open",
        "abilities",
        f"{AE}, line 108 (Kourai Khryseai)",
        "sim/kernel/abilities.py",
        "            if limit > 0 and card_col(tab, card, L.K_COST) > limit:",
        "            if limit > 0 and card_col(tab, card, L.K_COST) > limit + 1:",
    ),
    Bug(
        "enrage_over_capacity",
        "abilities",
        f"{RE}, lines 151-152",
        "sim/kernel/abilities.py",
        "    return 2 - B.slot_weight(st, tab, c, p, i) <= B.room(st, tab, c, p)",
        "    return 2 - B.slot_weight(st, tab, c, p, i) <= B.room(st, tab, c, p) + 1",
    ),
    Bug(
        "reveal_keeps_all",
        "abilities",
        f"{RE}, lines 154-155 and 167",
        "sim/kernel/abilities.py",
        "    keep = op_col(tab, o, L.OP_M)\n",
        "    keep = 0\n",
    ),
    # --- war -----------------------------------------------------------------------------
    Bug(
        "war_tie_lower_cost_wins",
        "war",
        f"{AE}, line 130",
        "sim/kernel/war.py",
        "        return 1 if a > o else -1",
        "        return 1 if a < o else -1",
    ),
    Bug(
        "winner_keeps_two",
        "war",
        f"{AE}, line 128",
        "sim/kernel/war.py",
        "        keep = rule(tab, L.RU_WINNER_KEEPS)",
        "        keep = rule(tab, L.RU_LOSER_KEEPS)",
    ),
    # --- offering -----------------------------------------------------------------------
    Bug(
        "no_tribute",
        "offering",
        f"{AE}, line 108",
        "sim/kernel/offering.py",
        "    if not first:\n",
        "    if False:\n",
    ),
    Bug(
        "labor_after_discard",
        "offering",
        f"{DU}, lines 149 and 200",
        "sim/kernel/offering.py",
        "    run_trigger(st, tab, fp, ask, p, card, V.TR_LABOR, -1)\n"
        "    Z.discard_card(st, p, card)",
        "    Z.discard_card(st, p, card)\n"
        "    run_trigger(st, tab, fp, ask, p, card, V.TR_LABOR, -1)",
    ),
    Bug(
        "hand_limit_six",
        "offering",
        f"{AE}, line 140",
        "sim/kernel/offering.py",
        "        discard_from_hand(st, tab, fp, ask, p, st[L.HAND_N + p] - limit, 1)",
        "        discard_from_hand(st, tab, fp, ask, p, st[L.HAND_N + p] - limit - 1, 1)",
    ),
    # --- end, scoring, feats ------------------------------------------------------------
    Bug(
        "two_cities_need_three",
        "end",
        f"{DU}, line 221; {RE}, line 134",
        "sim/kernel/turn.py",
        "    if ends & V.END_TWO_CITIES_EMPTY and empty >= 2:",
        "    if ends & V.END_TWO_CITIES_EMPTY and empty >= 3:",
    ),
    Bug(
        "used_reward_scores_two",
        "scoring",
        f"{AE}, line 151",
        "sim/kernel/scoring.py",
        "            + L.W_REW_USED * used\n",
        "            + 2 * used\n",
    ),
    Bug(
        "feat_coins_strict",
        "feats",
        f"{RE}, line 108 (feat cards)",
        "sim/kernel/feats.py",
        "        return st[L.COINS + p] >= n",
        "        return st[L.COINS + p] > n",
    ),
    # --- set-up, draft ------------------------------------------------------------------
    Bug(
        "emissary_tie_to_lower_strength",
        "set-up",
        f"{AE}, line 47",
        "sim/kernel/game.py",
        "    first = oldest if v0 == v1 else (0 if v0 > v1 else 1)",
        "    first = oldest if v0 == v1 else (0 if v0 < v1 else 1)",
    ),
    Bug(
        "favor_to_first_player",
        "set-up",
        f"{DU}, lines 57 and 73",
        "sim/kernel/game.py",
        "    second = 1 - st[L.OLDEST] if rule(tab, L.RU_FAVOR_BY_AGE) else 1 - first",
        "    second = 1 - st[L.OLDEST] if rule(tab, L.RU_FAVOR_BY_AGE) else first",
    ),
    Bug(
        "pile_draft_five_soldiers",
        "draft",
        f"{RE}, line 208",
        "sim/kernel/draft.py",
        "PILE_LIMITS_SOLDIER = 6\n",
        "PILE_LIMITS_SOLDIER = 5\n",
    ),
    # --- the third pass: the move rules, the new readings and the repaired tests ------
    Bug(
        "maneuver_moves_a_unit_twice",
        "abilities",
        f"{DU}, line 152",
        "sim/kernel/abilities.py",
        "if B.has_kw(tab, card, V.KW_MANEUVER) or _moved_now(st, card):",
        "if B.has_kw(tab, card, V.KW_MANEUVER):",
    ),
    Bug(
        "move_op_moves_a_unit_twice",
        "abilities",
        f"{DU}, line 152 (move up to N of your units)",
        "sim/kernel/abilities.py",
        "                if _moved_now(st, card):\n                    continue\n",
        "",
    ),
    Bug(
        "build_from_hand_ignored",
        "offering",
        f"{DU}, line 200 (reading build_from)",
        "sim/kernel/offering.py",
        "    if rule(tab, L.RU_BUILD_FROM_HAND):\n",
        "    if False:\n",
    ),
    Bug(
        "structure_resolves_every_surge",
        "surge",
        f"{DU}, lines 88 and 125 (reading structure_ability)",
        "sim/kernel/surge.py",
        "    again = rule(tab, L.RU_STRUCT_EACH_SURGE)\n",
        "    again = 1\n",
    ),
    Bug(
        "structure_cards_never_leave",
        "surge",
        f"{DU}, lines 204-207 (reading structure_cards)",
        "sim/kernel/surge.py",
        "            if rule(tab, L.RU_STRUCT_CARDS_LEAVE):\n",
        "            if False:\n",
    ),
    Bug(
        "discount_for_any_devoted",
        "surge",
        f"{DU}, line 135 (reading discount_unit)",
        "sim/kernel/surge.py",
        "    if rule(tab, L.RU_DISCOUNT_ANY_DEVOTED):\n",
        "    if True:\n",
    ),
    Bug(
        "feats_only_in_feat_step",
        "feats",
        f"{RE}, lines 47-49 (reading feat_timing)",
        "sim/kernel/feats.py",
        "        if q == 1 and not rule(tab, L.RU_FEATS_EACH_STEP):\n",
        "        if q == 1:\n",
    ),
    Bug(
        "favor_start_ignored",
        "set-up",
        f"{DU}, line 57 (favor_start)",
        "sim/kernel/game.py",
        "(1 - second if rule(tab, L.RU_FAVOR_START_FIRST) else second)",
        "second",
    ),
    Bug(
        "second_coins_to_first",
        "set-up",
        f"{DU}, line 53 (second_player_coins)",
        "sim/kernel/game.py",
        "        Z.gain_coins(st, 1 - first, rule(tab, L.RU_SECOND_COINS))\n",
        "        Z.gain_coins(st, first, rule(tab, L.RU_SECOND_COINS))\n",
    ),
    Bug(
        "emissary_sum_without_offering",
        "set-up",
        f"{DU}, line 59",
        "sim/kernel/game.py",
        " + kind_col(tab, k, L.K_OFFERING) + kind_col(tab, k, L.K_STRENGTH)",
        " + kind_col(tab, k, L.K_STRENGTH)",
    ),
    Bug(
        "no_coin_bonus",
        "wealth",
        f"{DU}, line 104",
        "sim/kernel/wealth.py",
        "    elif total > 0 and coins == total:\n        coins += bonus\n",
        "    elif total > 0 and coins == total:\n        coins += 0\n",
    ),
    Bug(
        "war_order_offers_peaceful",
        "war",
        f"{AE}, line 120",
        "sim/kernel/war.py",
        "        if st[L.WARTORN + c]:\n            put_opt(st, n, c, 0, 0, 0)\n",
        "        if True:\n            put_opt(st, n, c, 0, 0, 0)\n",
    ),
    Bug(
        "deck_not_shuffled",
        "set-up",
        f"{DU}, line 50",
        "sim/kernel/draft.py",
        "    st[L.DECK_N] = cards\n    shuffle(st, L.DECK, cards, L.RNG_DECK)\n",
        "    st[L.DECK_N] = cards\n",
    ),
    Bug(
        "beast_counts_one_in_a_mix",
        "board",
        f"{RE}, lines 92-93",
        "sim/kernel/board.py",
        "card_col(tab, card, L.K_TYPE) == V.T_BEAST:\n        return 2",
        "card_col(tab, card, L.K_TYPE) == V.T_BEAST and rule(tab, L.RU_COIN_SUPPLY) == 40:\n"
        "        return 2",
    ),
)


def _copy_tree(dest: Path) -> None:
    """Copy the parts of the checkout the rule tests need (no caches, no results)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for name in COPIED:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        else:
            shutil.copy2(src, dest / name)


def plant(tree: Path, bug: Bug) -> None:
    """Make ``bug``'s edit in the copy at ``tree``; it must match exactly once."""
    path = tree / bug.file
    text = path.read_text(encoding="utf-8")
    if text.count(bug.old) != 1:
        raise SystemExit(f"{bug.name}: the text to replace occurs {text.count(bug.old)} times")
    path.write_text(text.replace(bug.old, bug.new), encoding="utf-8")


@dataclass
class Outcome:
    """What the rule tests did with one planted bug."""

    bug: Bug | None
    caught: bool
    first_failure: str
    seconds: float


def run_one(
    bug: Bug | None, golden: bool, timeout: int, tests: tuple[str, ...] = ("tests/rules",)
) -> Outcome:
    """Copy the tree, plant ``bug`` (None: the unchanged baseline) and run ``tests`` -x."""
    with tempfile.TemporaryDirectory(prefix="omensim-plant-") as tmp:
        tree = Path(tmp) / "tree"
        tree.mkdir()
        _copy_tree(tree)
        if bug is not None:
            plant(tree, bug)
        env = {
            **os.environ,
            "PYTHONPATH": str(tree),
            "NUMBA_CACHE_DIR": str(Path(tmp) / "nc"),
        }
        env.pop("NUMBA_DISABLE_JIT", None)  # the kernel's own dispatcher needs the JIT
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-rf", "-p", "no:cacheprovider"]
        cmd.extend(tests)
        for skipped in () if golden else LEFT_OUT:
            cmd.append(f"--ignore={skipped}")
        start = time.monotonic()
        try:
            done = subprocess.run(
                cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return Outcome(bug, True, f"(timed out after {timeout} s)", time.monotonic() - start)
        seconds = time.monotonic() - start
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", done.stdout, flags=re.M)
    first = failed[0] if failed else ("" if done.returncode == 0 else done.stdout[-200:])
    return Outcome(bug, done.returncode != 0, first, seconds)


def table(outcomes: list[Outcome]) -> str:
    """The planted-bug table (Markdown)."""
    out = [
        "| bug | area | rulebook line | caught | first failing test |",
        "| --- | --- | --- | --- | --- |",
    ]
    for o in outcomes:
        assert o.bug is not None
        first = o.first_failure.replace("|", "/") or "-"
        out.append(
            f"| `{o.bug.name}` | {o.bug.area} | {o.bug.rule} | "
            f"{'yes' if o.caught else '**no**'} | `{first}` |"
        )
    caught = sum(o.caught for o in outcomes)
    out.append("")
    out.append(f"Caught {caught} of {len(outcomes)} planted bugs.")
    return "\n".join(out)


def _stale(bugs: list[Bug]) -> int:
    """2 (after a line naming each) if the text a bug replaces is not in its file exactly
    once, else 0."""
    status = 0
    for b in bugs:
        n = (REPO / b.file).read_text(encoding="utf-8").count(b.old)
        if n != 1:
            print(f"Error: {b.name}: {b.file} holds the text to replace {n} times", file=sys.stderr)
            status = 2
    return status


def main(argv: list[str] | None = None) -> int:
    """Run the baseline, then every selected bug, at most ``--jobs`` at a time."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--only", default="", help="comma-separated bug names, run in that order (default: all)"
    )
    ap.add_argument("--no-baseline", action="store_true", help="skip the run of the unchanged tree")
    ap.add_argument(
        "--baseline-last", action="store_true", help="run the unchanged tree after the bugs"
    )
    ap.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    ap.add_argument("--golden", action="store_true", help="include the golden replays")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per mutant run")
    ap.add_argument(
        "--tests",
        default="tests/rules",
        help="comma-separated test files or folders to run (default tests/rules); e.g. the "
        "file of a new test, to check on a busy host that it catches a bug",
    )
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    ap.add_argument("--list", action="store_true", help="list the bugs and exit")
    args = ap.parse_args(argv)
    if args.jobs < 1 or args.timeout < 1:
        print("Error: --jobs and --timeout must be at least 1", file=sys.stderr)
        return 2
    bugs = list(BUGS)
    if args.list:  # each edit checked too: a kernel change can leave a bug's text behind
        for b in bugs:
            print(f"{b.name:32} {b.area:10} {b.rule}")
        return _stale(bugs)
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {b.name for b in bugs}
        if unknown:
            print(f"unknown bug(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        by_name = {b.name: b for b in bugs}
        bugs = [by_name[n] for n in args.only.split(",")]
    if _stale(bugs):  # every edit must apply before any run starts
        return 2
    tests = tuple(t for t in args.tests.split(",") if t)
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        # The unchanged copy runs first, or last with --baseline-last (a mutant's result
        # then shows sooner on a busy host; a failing baseline voids every "caught").
        base_run = None
        if not args.no_baseline and not args.baseline_last:
            base_run = pool.submit(run_one, None, args.golden, args.timeout, tests)
        futures = {pool.submit(run_one, b, args.golden, args.timeout, tests): b for b in bugs}
        if not args.no_baseline and args.baseline_last:
            base_run = pool.submit(run_one, None, args.golden, args.timeout, tests)
        done_by_name = {}
        for f in as_completed([*futures, *([base_run] if base_run else [])]):
            o = f.result()
            if o.bug is None:
                if o.caught:
                    print(f"the unchanged tree fails its rule tests: {o.first_failure}", flush=True)
                    for g in futures:
                        g.cancel()
                    return 1
                print(f"baseline passes ({o.seconds:.0f} s)", flush=True)
                continue
            done_by_name[o.bug.name] = o
            verdict = "caught" if o.caught else "MISSED"
            print(f"{o.bug.name}: {verdict} ({o.seconds:.0f} s) {o.first_failure}", flush=True)
        outcomes = [done_by_name[b.name] for b in bugs]
    text = table(outcomes)
    print(text)
    print(f"(whole run {time.monotonic() - start:.0f} s)")
    if args.markdown:
        args.markdown.write_text(text + "\n", encoding="utf-8")
    return 0 if all(o.caught for o in outcomes) else 3


if __name__ == "__main__":
    raise SystemExit(main())
