"""Files checked as configs/README.md promises: any key the schema does not list is an error
(top level, [set], [strategy]); tables of the wrong kind are one line; card names are
compared case-folded, stripped and NFC-normalised; a set whose games cannot end is refused."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import invoke, one_error_line

from sim import Error
from sim.data import cards as C
from sim.data.changes import Changes
from strategies.profiles import ProfileError, load_profile

AEGEAN = (C.SETS_DIR / "aegean.toml").read_text()
PROFILE = (C.SETS_DIR.parent / "strategies" / "economic.toml").read_text()


def second_named_as_first(text: str, how: Callable[[str], str]) -> str:
    """The set with its second unit named as its first, written ``how``."""
    names = [ln.split("=", 1)[1].strip() for ln in text.splitlines() if ln.startswith("name =")]
    first, second = json.loads(names[1]), json.loads(names[2])  # names[0] is the set's
    return text.replace(f"name = {json.dumps(second)}", f"name = {json.dumps(how(first))}", 1)


def set_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "aegean.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("edit", "text"),
    [
        (lambda t: t + "\n[extras]\nx = 1\n", "field 'extras': unknown top-level key"),
        (lambda t: t.replace("[[units]]", "[[unit]]"), "field 'unit': unknown top-level key"),
        (lambda t: t.replace("[set]\n", "[set]\nauthor = 'me'\n", 1), "unknown [set] key"),
        (lambda t: "set = 5\n[[units]]\nname = 'x'\n", "must be a table ([set])"),
        (lambda t: "rewards = 5\n[set]\nname = 'x'\n", "list of [[rewards]]"),
        (lambda t: "structures = 'x'\n" + t, "must be a list of [[structures]] tables"),
        (lambda t: "feats = {a = 1}\n" + t, "must be a list of [[feats]] tables"),
        (lambda t: second_named_as_first(t, str.upper), "duplicate name (the same name as"),
        (lambda t: second_named_as_first(t, lambda x: x + " "), "duplicate name"),
    ],
)
def test_a_set_file_of_the_wrong_structure_is_one_line(
    tmp_path: Path, edit: Callable[[str], str], text: str
) -> None:
    path = set_file(tmp_path, edit(AEGEAN))
    with pytest.raises(C.CardDataError, match=re.escape(text)):
        C.load_set(path)


def test_names_equal_but_for_the_nfc_form_are_one_card(tmp_path: Path) -> None:
    """An NFD "é" and an NFC one are the same name: the second is refused, and --change
    finds a card by its name in either form."""
    composed = second_named_as_first(AEGEAN, lambda x: x + "\u00e9")
    C.load_set(set_file(tmp_path, composed))  # one name with é: fine
    both = second_named_as_first(composed, lambda x: unicodedata.normalize("NFD", x))
    with pytest.raises(C.CardDataError, match="duplicate name"):
        C.load_set(set_file(tmp_path, both))
    name = C.load_pool("aegean").units[0]["name"]
    shouted = unicodedata.normalize("NFD", f"  {name.upper()} ")
    pool = Changes.parse([f"{shouted}.cost=+1"]).load_pool("aegean")
    assert pool.units[0]["cost"] == C.load_pool("aegean").units[0]["cost"] + 1


@pytest.mark.parametrize(
    ("edit", "text"),
    [
        (lambda t: t.replace("[strategy]\n", "[strategy]\ncoin = 9\n"), "weights go in"),
        (lambda t: t.replace("[strategy]\n", "[strategy]\nbots = 1\n"), "unknown key"),
    ],
)
def test_an_unknown_strategy_key_is_refused(tmp_path: Path, edit, text: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(edit(PROFILE))
    with pytest.raises(ProfileError, match=text):
        load_profile(path)
    assert isinstance(ProfileError("x"), Error)


def test_a_set_whose_games_cannot_end_is_refused_with_the_reason(tmp_path: Path) -> None:
    text = "\n".join(
        "cost = 20" if line.startswith("cost =") else line for line in AEGEAN.splitlines()
    )
    path = set_file(tmp_path, text)
    line = one_error_line(
        invoke("run", "--games", "40", "--cards", str(path), "-q", "--out", str(tmp_path / "r"))
    )
    assert "probe games reached the turn cap" in line
    assert not (tmp_path / "r").exists()
