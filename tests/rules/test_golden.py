"""Golden replays: a few seeded games per set, replayed and compared with checked-in text.

Each file ``tests/golden/<mix>-s<seed>-g<game>[-<p0>-<p1>].txt`` is the full
``omensim replay --positions`` text of one game (set-up, every event of every step of
every turn with its cause, the score); each ``story-*.txt`` the ``omensim replay`` story
of one game of each set (the same events, with the bots' options, the running score, why
it was won). Both are told from the kernel's event trace (``sim.analysis.narrator``).
The test replays the game again and compares the text exactly, so any
change to the rules, the cards or the bots' play shows up as a readable diff
of the game instead of a shifted win rate.

When the change is intended (a bot or a rule was changed on purpose),
regenerate every golden file with one command and review the diff in git:

    OMENSIM_UPDATE_GOLDEN=1 python -m pytest tests/rules/test_golden.py -q

(or ``python tests/rules/test_golden.py --update``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
UPDATE_ENV = "OMENSIM_UPDATE_GOLDEN"
REGENERATE = f"{UPDATE_ENV}=1 python -m pytest tests/rules/test_golden.py -q"

# (mix, seed, game, p0, p1): two or three games per set, greedy vs greedy and one
# greedy vs random. Short games keep the files readable.
CASES: list[tuple[str, int, int, str, str]] = [
    ("aegean", 1, 0, "greedy", "greedy"),
    ("aegean", 1, 1, "greedy", "greedy"),
    ("aegean", 2, 5, "greedy", "random"),
    ("dunes", 1, 0, "greedy", "greedy"),
    ("dunes", 1, 3, "greedy", "greedy"),
    ("dunes", 2, 1, "greedy", "random"),
    ("reign", 1, 0, "greedy", "greedy"),
    ("reign", 1, 1, "greedy", "greedy"),
    ("reign", 2, 2, "greedy", "random"),
    ("dunes+aegean", 1, 0, "greedy", "greedy"),
    ("dunes+aegean", 1, 1, "greedy", "greedy"),
    ("dunes+aegean", 2, 4, "greedy", "random"),
]
GAMES_PER_RUN = 100  # the run each case belongs to; only (seed, game) matter
# One game of each set told as a story from the kernel's event trace (``Replay.story``):
# the events in order with their causes, the bots' weighed options, the running score
# and why the game was won. Files ``story-<mix>-s<seed>-g<game>.txt``.
STORY_CASES: list[tuple[str, int, int, str, str]] = [
    ("aegean", 1, 0, "greedy", "greedy"),
    ("dunes", 1, 0, "greedy", "greedy"),
    ("reign", 1, 0, "greedy", "greedy"),
]


def golden_path(mix: str, seed: int, game: int, p0: str, p1: str) -> Path:
    """Where a case's text lives: bots in the name only when not greedy vs greedy."""
    bots = "" if (p0, p1) == ("greedy", "greedy") else f"-{p0}-{p1}"
    return GOLDEN_DIR / f"{mix}-s{seed}-g{game}{bots}.txt"


def story_path(mix: str, seed: int, game: int, p0: str, p1: str) -> Path:
    """Where a story case's text lives."""
    return golden_path(mix, seed, game, p0, p1).with_name(
        "story-" + golden_path(mix, seed, game, p0, p1).name
    )


def golden_text(mix: str, seed: int, game: int, p0: str, p1: str, story: bool = False) -> str:
    """The replay text of a case (the replay also checks itself against the batch kernel):
    the positions step by step, or with ``story`` the story told from the event trace."""
    from sim.analysis.replay import replay
    from sim.data.spec import RunSpec

    spec = RunSpec(games=GAMES_PER_RUN, mix=mix, seed=seed, p0=p0, p1=p1)
    r = replay(spec, game)
    return r.story() if story else r.text()


def all_cases() -> list[tuple[Path, tuple[str, int, int, str, str], bool]]:
    """Every golden file with its case and whether it is a story."""
    return [(golden_path(*c), c, False) for c in CASES] + [
        (story_path(*c), c, True) for c in STORY_CASES
    ]


def update_all() -> list[Path]:
    """Rewrite every golden file from the current code; returns the files written."""
    GOLDEN_DIR.mkdir(exist_ok=True)
    written = []
    for path, case, story in all_cases():
        path.write_text(golden_text(*case, story=story), encoding="utf-8")
        written.append(path)
    return written


@pytest.mark.parametrize(
    ("path", "case", "story"), all_cases(), ids=[c[0].stem for c in all_cases()]
)
def test_golden_replay(path: Path, case: tuple[str, int, int, str, str], story: bool) -> None:
    text = golden_text(*case, story=story)
    if os.environ.get(UPDATE_ENV) == "1":
        GOLDEN_DIR.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path.name}; create it with: {REGENERATE}"
    want = path.read_text(encoding="utf-8")
    if text != want:
        import difflib

        diff = "".join(
            list(
                difflib.unified_diff(
                    want.splitlines(keepends=True),
                    text.splitlines(keepends=True),
                    f"golden/{path.name}",
                    "replay now",
                )
            )[:60]
        )
        pytest.fail(
            f"the replay of {path.name} changed. If the change is intended, regenerate "
            f"the golden files with `{REGENERATE}` and review `git diff tests/golden`.\n{diff}",
            pytrace=False,
        )


def test_every_golden_file_is_a_case() -> None:
    """A stale file (a case removed from CASES) would never be checked again."""
    expected = {path.name for path, _case, _story in all_cases()}
    stale = sorted(p.name for p in GOLDEN_DIR.glob("*.txt") if p.name not in expected)
    assert not stale, f"golden files with no case in CASES: {stale}; delete them"


if __name__ == "__main__":  # python tests/rules/test_golden.py --update
    if sys.argv[1:] != ["--update"]:
        sys.exit(f"usage: python {sys.argv[0]} --update   (or: {REGENERATE})")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    for p in update_all():
        print(p.relative_to(Path.cwd()) if p.is_relative_to(Path.cwd()) else p)
