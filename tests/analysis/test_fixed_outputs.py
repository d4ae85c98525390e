"""What a fixed set of small seeded commands prints, held to the digit.

Every figure these commands print (run summaries, compare, sweep, balance, tournament,
mixes, strength, panels and the report's summary lines) is recorded in
``fixed_outputs.txt``; a change to how a statistic is computed or formatted must leave
them as they are, or change the record on purpose (and say why in its commit). Only what
depends on the machine is masked: times, speeds and the temporary folder.

To record them again, run this file with ``OMENSIM_RECORD_FIXED=1`` set.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import invoke, ok

RECORD = Path(__file__).with_name("fixed_outputs.txt")

COMMANDS: list[list[str]] = [
    ["run", "--games", "2000", "--mix", "aegean", "--seed", "1", "--out", "r1"],
    ["run", "--games", "2000", "--mix", "aegean", "--seed", "1", "--variant", "emissary",
     "--out", "r2"],
    ["run", "--games", "20000", "--until-ci", "0.02", "--mix", "aegean", "--seed", "2",
     "--out", "u1"],
    ["run", "--games", "600", "--panel", "greedy,economic", "--seed", "4", "--out", "p1"],
    ["compare", "--mix", "aegean", "--games", "2000", "--b-variant", "emissary", "--seed", "3",
     "--out", "c0"],
    ["compare", "--mix", "aegean", "--games", "1000", "--change",
     "Talos, Bronze Guardian of Crete.cost=+1", "--out", "c1"],
    ["compare", "--mix", "aegean", "--games", "600", "--change",
     "Ker of the Spoils.cost=+1", "--panel", "greedy,economic", "--out", "c2"],
    ["sweep", "--mix", "aegean", "--field", "cost", "--delta", "-1,+1", "--games", "500",
     "--card", "3", "--card", "5", "--out", "s1"],
    ["tournament", "--mix", "aegean", "--bots", "random,greedy", "--games", "400",
     "--out", "t1"],
    ["mixes", "aegean", "dunes", "--games", "400"],
    ["strength", "--mix", "aegean", "--panel", "greedy,economic", "--games", "500",
     "--out", "st1"],
    ["balance", "--mix", "aegean", "--rule", "start_coins", "--values", "2-4", "--pilot", "500",
     "--max-games", "2000", "--out", "b1"],
    ["report", "r1", "r2", "--out", "rep1"],
    ["report", "--panel", "p1", "--out", "rep2"],
    ["report", "c1", "--out", "rep3"],
    ["report", "s1", "--out", "rep4"],
    ["report", "t1", "--out", "rep5"],
    ["report", "st1", "--out", "rep6"],
    ["report", "b1", "--out", "rep7"],
]  # fmt: skip

_MASKS = [
    (re.compile(r"^(\s*time\s+).*$", re.M), r"\1<time>"),
    (re.compile(r"^(\s*speed\s+).*$", re.M), r"\1<speed>"),
    (re.compile(r"\d[\d,.]* games/s"), "<n> games/s"),
    (re.compile(r"(\d+(\.\d+)?|<n>) ?(s|seconds|min)\b(?! per)"), "<secs>"),
]


def _masked(text: str, where: Path) -> str:
    text = text.replace(str(where) + os.sep, "").replace(str(where), ".")
    for pattern, repl in _MASKS:
        text = pattern.sub(repl, text)
    return text


def _outputs(where: Path) -> str:
    parts = []
    for args in COMMANDS:
        r = ok(invoke(*args))
        parts.append("$ omensim " + " ".join(args) + "\n" + _masked(r.stdout, where))
    return "\n".join(parts)


def test_the_fixed_commands_print_what_they_printed(tmp_path, monkeypatch) -> None:
    """Each command of :data:`COMMANDS`, run in order in one folder, prints its record."""
    monkeypatch.chdir(tmp_path)
    got = _outputs(tmp_path)
    if os.environ.get("OMENSIM_RECORD_FIXED") == "1":
        RECORD.write_text(got)
        pytest.skip(f"recorded {RECORD.name}")
    assert not re.search(r"\(\)|\[\]|\('|\['|\{'", got), "a Python repr reached the output"
    want = RECORD.read_text()
    for g, w in zip(got.split("\n$ "), want.split("\n$ "), strict=True):
        assert g == w
