"""A rule that cannot act is refused by name, from every source; the table is checked by play.

:data:`sim.data.rule_reach.RULE_NEEDS` declares what each rule parameter needs to act.
Every parameter it calls inert on a single set is refused there (``--rules``,
``--b-rules``, a set file, the API), and, played anyway by setting the kernel's rule
slots directly, gives rows identical to the plain set's: the declaration is checked
against the games, not only against itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import invoke, one_error_line

from sim import Error
from sim.base import layout as L
from sim.data import cards as C
from sim.data import schema as S
from sim.data.rule_reach import RULE_NEEDS, inert_rules, mix_facts
from sim.data.spec import RunSpec
from sim.run.compiled import compile_run

SETS = ("aegean", "dunes", "reign")
GAMES = 40
SLOT_NAMES = {
    getattr(L, n): n for n in sorted(dir(L), reverse=True) if n.startswith("RU_")
}  # one layout name per rule slot


def _other(key: str, value: Any) -> Any:
    """A value of rule ``key`` other than ``value`` (None when the key has no other)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        bound = S.RULE_INTS[key]
        return value + 1 if value + 1 <= bound.hi else value - 1
    if isinstance(value, str):
        others = [r for r in C.READINGS.get(key, ()) if r != value]
        return others[0] if others else None
    return None


def _inert_cases() -> list[tuple[str, str, Any]]:
    cases = []
    for name in SETS:
        pool = C.load_pool(name)
        for key, _ in inert_rules(mix_facts(pool, pool.rules), RULE_NEEDS):
            alt = _other(key, pool.rules[key])
            if alt is not None:
                cases.append((name, key, alt))
    return cases


INERT = _inert_cases()


def _rules_file(tmp_path: Path, key: str, value: Any) -> Path:
    path = tmp_path / f"{key}.toml"
    text = str(value).lower() if isinstance(value, bool) else repr(value).replace("'", '"')
    path.write_text(f"[rules]\n{key} = {text}\n")
    return path


def test_every_single_set_has_inert_parameters_to_check() -> None:
    """The play check below is not empty: each set has parameters declared inert."""
    assert {name for name, _, _ in INERT} == set(SETS)
    assert ("aegean", "devoted_discount", 1) in INERT
    assert ("aegean", "feats_to_end", 1) in INERT


@pytest.mark.parametrize(("mix", "key", "value"), INERT)
def test_an_inert_parameter_is_refused_and_plays_identical_rows(
    tmp_path: Path, mix: str, key: str, value: Any
) -> None:
    from sim.run.engine import Engine

    spec = RunSpec(games=GAMES, mix=mix, seed=3, rules=str(_rules_file(tmp_path, key, value)))
    with pytest.raises(Error, match=f"{key} = .* has no effect on mix"):
        compile_run(spec)
    # Played anyway, with the kernel's rule slots set directly: the rows do not move.
    pool = C.load_pool(mix)
    before = pool.tables.rules
    after = C.compile_tables(
        pool.units, pool.rewards, {**pool.rules, key: value}, pool.structures, pool.feats
    ).rules
    slots = {SLOT_NAMES[i]: int(after[i]) for i in range(len(after)) if after[i] != before[i]}
    plain = Engine(compile_run(RunSpec(games=GAMES, mix=mix, seed=3))).play(0, GAMES)
    forced = Engine(compile_run(RunSpec(games=GAMES, mix=mix, seed=3), rule_values=slots)).play(
        0, GAMES
    )
    assert forced.equals(plain), f"{key} = {value} changed the games of {mix}"


def test_the_issue_cases_are_refused_from_rules_b_rules_and_the_api(tmp_path: Path) -> None:
    """devoted_discount and feats_to_end on aegean: refused by name wherever they come from."""
    from sim import api

    for key, value in (("devoted_discount", 2), ("feats_to_end", 3)):
        path = _rules_file(tmp_path, key, value)
        line = one_error_line(invoke("run", "--games", "4", "--rules", str(path), "-q"))
        assert f"{key} = {value} has no effect on mix 'aegean'" in line
        line = one_error_line(
            invoke("compare", "--games", "4", "--b-rules", str(path), "--out", str(tmp_path / key))
        )
        assert f"{key} = {value} has no effect" in line
        with pytest.raises(Error, match=f"{key} = {value} has no effect"):
            api.run(games=4, rules=str(path), out=tmp_path / f"api-{key}")


def _set_file(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (C.SETS_DIR / f"{name}.toml").read_text()
    assert old in text
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace(old, new, 1))
    return path


def test_a_set_file_switching_on_an_inert_rule_is_refused(tmp_path: Path) -> None:
    path = _set_file(tmp_path, "aegean", "[rules]\n", "[rules]\ndevoted_discount = 2\n")
    with pytest.raises(Error, match="devoted_discount = 2 has no effect in set 'aegean'"):
        C.load_set(path)
    line = one_error_line(invoke("run", "--games", "4", "--cards", str(path), "-q"))
    assert "devoted_discount = 2 has no effect" in line


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ("tiles_per_city = 2 ", "tiles_per_city = 8 ", "cannot be dealt its stack"),
        ("start_cards = 4 ", "start_cards = 20 ", "cannot deal two opening hands"),
        ("coin_supply = 20 ", "coin_supply = 5 ", "cannot pay both players"),
        ("war_torn_enemy_units = 3 ", "war_torn_enemy_units = 9 ", "no war is possible"),
    ],
)
def test_a_set_file_is_checked_as_the_shipped_sets_are(
    tmp_path: Path, old: str, new: str, fragment: str
) -> None:
    """A deal the tables cannot make is refused whichever file supplied the number."""
    path = _set_file(tmp_path, "aegean", old, new)
    line = one_error_line(invoke("run", "--games", "4", "--cards", str(path), "-q"))
    assert fragment in line
    key, value = new.split(" = ")
    rules = _rules_file(tmp_path, key, int(value))
    line = one_error_line(invoke("run", "--games", "4", "--rules", str(rules), "-q"))
    assert fragment in line or "has no effect" in line


ACT_EVERYWHERE = {"war_torn_units"}
"""Reading switches with no entry in RULE_NEEDS: every mix plays the step they change."""


def _live_cases() -> list[tuple[str, str, Any, tuple[str, ...]]]:
    """(set, reading, other value, variants) for every reading switch where it can act."""
    cases = []
    for name in SETS:
        pool = C.load_pool(name)
        for key in L.READING_SWITCH_KEYS:
            variants = ("emissary",) if key == "emissary_favor" else ()
            if not inert_rules(mix_facts(pool, pool.rules, variants), [key]):
                cases.append((name, key, _other(key, pool.rules[key]), variants))
    return cases


def test_every_reading_switch_is_declared_where_it_acts() -> None:
    """The reading switches are in RULE_NEEDS, save those that act in every game; each
    is inert on some single set (so the play check above covers it) or on none."""
    declared = set(L.READING_SWITCH_KEYS) - ACT_EVERYWHERE
    assert declared <= set(RULE_NEEDS)
    assert ACT_EVERYWHERE.isdisjoint(RULE_NEEDS)
    assert {key for _, key, _ in INERT} >= declared
    assert {key for _, key, _, _ in _live_cases()} == set(L.READING_SWITCH_KEYS)


@pytest.mark.parametrize(
    ("mix", "key", "value"), [c for c in INERT if c[1] in L.READING_SWITCH_KEYS]
)
def test_a_reading_switch_that_cannot_act_is_refused_in_one_line(
    tmp_path: Path, mix: str, key: str, value: Any
) -> None:
    """Every reading switch on every single set it cannot act on (tribute_timing on dunes,
    favor_flip on reign, ...): one line naming it, from the command line."""
    path = _rules_file(tmp_path, key, value)
    line = one_error_line(invoke("run", "--games", "4", "--mix", mix, "--rules", str(path)))
    assert f"{key} = " in line and f"has no effect on mix '{mix}'" in line


@pytest.mark.parametrize(("mix", "key", "value", "variants"), _live_cases())
def test_a_reading_switch_that_can_act_is_accepted(
    tmp_path: Path, mix: str, key: str, value: Any, variants: tuple[str, ...]
) -> None:
    path = _rules_file(tmp_path, key, value)
    spec = RunSpec(games=4, mix=mix, seed=1, rules=str(path), variants=variants)
    assert compile_run(spec).pool.rules[key] == value
