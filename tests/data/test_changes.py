"""Designer edits to a pool: --change parsing, applying, --cards replacement files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim.data.cards import SETS_DIR, CardDataError, load_pool
from sim.data.changes import CardChange, Changes, apply_edits, changed_units, parse_change
from sim.data.spec import RunSpec, SpecError

TALOS = "Talos, Bronze Guardian of Crete"


def unit(pool, name):
    return pool.units[pool.kind_index(name)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Moonlight Channeler.cost=3", CardChange("Moonlight Channeler", "cost", 3, False)),
        ("Moonlight Channeler.cost=+1", CardChange("Moonlight Channeler", "cost", 1, True)),
        ("Moonlight Channeler.cost=-1", CardChange("Moonlight Channeler", "cost", -1, True)),
        ("Moonlight Channeler.cost+=2", CardChange("Moonlight Channeler", "cost", 2, True)),
        ("Moonlight Channeler.cost-=2", CardChange("Moonlight Channeler", "cost", -2, True)),
        (" Moonlight Channeler . STRENGTH = 4 ", CardChange("Moonlight Channeler", "strength", 4)),
        (f"{TALOS}.copies=2", CardChange(TALOS, "copies", 2)),
    ],
)
def test_parse_change(text: str, expected: CardChange) -> None:
    got = parse_change(text)
    assert (got.card, got.field, got.value, got.relative) == (
        expected.card,
        expected.field,
        expected.value,
        expected.relative,
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Moonlight Channeler cost 3", "expected CARD.FIELD=VALUE"),
        ("Moonlight Channeler.colour=3", "unknown field 'colour'; valid fields: cost"),
        ("Moonlight Channeler.cost=3.5", "value must be a whole number, got '3.5'"),
        ("Moonlight Channeler.cost=three", "value must be a whole number"),
        ("Moonlight Channeler.cost=", "value must be a whole number"),
        (".cost=3", "expected CARD.FIELD=VALUE"),
        ("Moonlight Channeler.cost+=-1", "not both signs"),
    ],
)
def test_parse_change_errors_are_one_line(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace(".", r"\.")) as e:
        parse_change(text)
    assert "\n" not in str(e.value)


def test_apply_edits_copies_the_pool_and_recompiles() -> None:
    base = load_pool("aegean")
    changed = apply_edits(base, [parse_change(f"{TALOS}.cost=3"), parse_change(f"{TALOS}.cost=+1")])
    assert unit(base, TALOS)["cost"] == 6  # untouched
    assert unit(changed, TALOS)["cost"] == 4
    from sim.base import layout as L

    k = base.kind_index(TALOS)
    assert changed.tables.kind[k, L.K_COST] == 4
    assert base.tables.kind[k, L.K_COST] == 6
    assert changed.card_hash() != base.card_hash()
    assert changed_units(base, changed) == [TALOS]


def test_case_insensitive_name_and_copies_change_the_deck() -> None:
    base = load_pool("aegean")
    changed = apply_edits(base, [parse_change("talos, bronze guardian of crete.copies=3")])
    assert len(changed.tables.card_kind) == len(base.tables.card_kind) + 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Talos.cost=3", "no unit named 'Talos' in mix 'aegean'"),
        ("Tallos, Bronze Guardian of Crete.cost=3", "did you mean 'Talos, Bronze Guardian"),
        (f"{TALOS}.cost=-7", "cost would be -1; it must be between 0 and 99"),
        (f"{TALOS}.cost=100", "cost would be 100"),
        (f"{TALOS}.copies=0", "copies would be 0; it must be between 1 and 99"),
    ],
)
def test_apply_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as e:
        apply_edits(load_pool("aegean"), [parse_change(text)])
    assert "\n" not in str(e.value)


def test_too_many_cards_is_one_spec_error() -> None:
    pool = load_pool("reign")
    name = pool.units[0]["name"]
    with pytest.raises(SpecError, match=r"--change: .*unit cards; at most 256"):
        apply_edits(pool, [parse_change(f"{name}.copies=99")])


def test_moonlight_channeler_in_dunes_aegean() -> None:
    pool = Changes.parse(["Moonlight Channeler.cost=3"]).load_pool("dunes+aegean")
    assert unit(pool, "Moonlight Channeler")["cost"] == 3


def test_empty_changes_give_the_shipped_pool() -> None:
    assert not Changes()
    assert Changes().load_pool("aegean").card_hash() == load_pool("aegean").card_hash()


def _write_set(tmp_path: Path, old: str, new: str) -> Path:
    text = (SETS_DIR / "aegean.toml").read_text()
    assert old in text
    path = tmp_path / "my-aegean.toml"
    path.write_text(text.replace(old, new, 1))
    return path


def test_cards_file_replaces_its_set(tmp_path: Path) -> None:
    path = _write_set(
        tmp_path, 'name = "Talos, Bronze Guardian of Crete"\ntype', 'name = "Talos II"\ntype'
    )
    base = load_pool("dunes+aegean")
    pool = Changes.parse([], [path]).load_pool("dunes+aegean")
    assert "Talos II" in [u["name"] for u in pool.units]
    assert TALOS not in [u["name"] for u in pool.units]
    assert pool.mix == "dunes+aegean"
    assert len(pool.units) == len(base.units)
    assert changed_units(base, pool) == ["Talos II", TALOS]
    # Edits apply after the replacement.
    pool = Changes.parse(["Talos II.cost=1"], [path]).load_pool("aegean")
    assert unit(pool, "Talos II")["cost"] == 1


def test_cards_file_errors(tmp_path: Path) -> None:
    path = _write_set(tmp_path, 'name = "Talos, Bronze Guardian of Crete"', 'name = "X"')
    with pytest.raises(SpecError, match="holds set 'aegean', which is not in --mix 'dunes'"):
        Changes.parse([], [path]).load_pool("dunes")
    with pytest.raises(SpecError, match="replaced twice"):
        Changes.parse([], [path, path]).load_pool("aegean")
    bad = _write_set(tmp_path, "cost = 6", "cost = -6")
    with pytest.raises(CardDataError, match="field 'cost': must be a whole number from 0 to 99"):
        Changes.parse([], [bad]).load_pool("aegean")
    with pytest.raises(CardDataError, match="cannot read"):
        Changes.parse([], [tmp_path / "missing.toml"]).load_pool("aegean")


def test_engine_plays_the_changed_cards_and_records_them() -> None:
    from sim.run.engine import Engine

    changes = Changes.parse([f"{TALOS}.strength=+1"])
    spec = RunSpec(games=10)
    engine = Engine(spec, changes=changes)
    assert unit(engine.pool, TALOS)["strength"] == 7
    assert json.loads(engine.metadata["card_changes"]) == {
        "change": [f"{TALOS}.strength=+1"],
        "cards": [],
    }
    shipped = Engine(spec)
    assert "card_changes" not in shipped.metadata
    assert engine.metadata["card_hash"] != shipped.metadata["card_hash"]
    assert engine.tab.shape == shipped.tab.shape
    # Exactly the one strength slot: in the kind table, and in the copy of the kind row
    # the flat table keeps for each physical Talos (layout.TB_CARD_ROWS).
    from sim.base import layout as L

    k = engine.pool.kind_index(TALOS)
    expected = [int(engine.tab[L.TB_KIND]) + k * L.K_COLS + L.K_STRENGTH] + [
        L.TB_CARD_ROWS + int(card) * L.K_COLS + L.K_STRENGTH
        for card in np.flatnonzero(engine.tables.card_kind == k)
    ]
    assert sorted(np.flatnonzero(engine.tab != shipped.tab).tolist()) == sorted(expected)
