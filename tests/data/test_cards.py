"""The card loader: the shipped Aegean data, one-line errors for bad files, compiled tables."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from sim.base import layout as L
from sim.base import vocab as V
from sim.data.cards import SETS_DIR, CardDataError, compile_tables, load_pool, load_set

AEGEAN = SETS_DIR / "aegean.toml"
TEXT = AEGEAN.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def aegean():
    return load_set(AEGEAN)


# --- the shipped set ------------------------------------------------------------


def test_aegean_composition(aegean):
    units = aegean.units
    assert sum(u["copies"] for u in units) == 22
    per_type = Counter()
    for u in units:
        per_type[u["type"]] += u["copies"]
    assert per_type == {"myrmidon": 6, "automaton": 5, "keres": 6, "moirai": 5}
    assert sum(r["copies"] for r in aegean.rewards) == 6
    assert len({u["name"] for u in units}) == len(units)
    assert len({r["name"] for r in aegean.rewards}) == len(aegean.rewards)


def _triggers(u):
    return {a["trigger"] for a in u["abilities"]}


@pytest.mark.parametrize(
    ("unit_type", "keywords", "triggers"),
    [
        ("myrmidon", {"RALLY"}, {"rally"}),
        ("automaton", {"COLOSSAL", "TRIBUTE"}, {"tribute"}),
        ("keres", {"EXALT"}, {"surge_end", "exalt"}),
        ("moirai", {"TREASURED"}, {"static"}),
    ],
)
def test_aegean_type_keywords_and_abilities(aegean, unit_type, keywords, triggers):
    of_type = [u for u in aegean.units if u["type"] == unit_type]
    assert of_type
    for u in of_type:
        assert set(u["keywords"]) == keywords, u["name"]
        assert _triggers(u) == triggers, u["name"]
        for a in u["abilities"]:
            if a["trigger"] == "exalt":
                assert a["ops"] == [] and a["when"] != "none", u["name"]
            else:
                assert a["ops"], u["name"]
        rally = [a for a in u["abilities"] if a["trigger"] == "rally"]
        assert all(a["cost"] > 0 for a in rally), u["name"]


def test_aegean_rewards_have_one_reward_ability(aegean):
    for r in aegean.rewards:
        assert [a["trigger"] for a in r["abilities"]] == ["reward"], r["name"]
        assert r["abilities"][0]["ops"], r["name"]


def test_aegean_uses_many_ops_and_declares_sources(aegean):
    ops = {o["op"] for e in aegean.units + aegean.rewards for a in e["abilities"] for o in a["ops"]}
    assert len(ops) >= 10, ops
    assert ops <= set(V.OPS)
    for e in aegean.units + aegean.rewards:
        assert e["source"] in {"rulebook", "reconstructed"}, e["name"]
        assert e["text"].strip(), e["name"]


def test_aegean_rules_are_the_rulebook_values(aegean):
    r = aegean.rules
    assert (r["tiles_per_city"], r["start_cards"], r["start_coins"]) == (2, 4, 4)
    assert (r["coin_supply"], r["vp_tokens"], r["city_capacity"]) == (20, 6, 5)
    assert (r["wealth_actions"], r["first_turn_wealth_actions"], r["wealth_bonus"]) == (3, 2, 1)
    assert (r["winner_keeps"], r["loser_keeps"]) == (1, 2)
    assert (r["hand_limit"], r["coin_limit"], r["rewards_per_surge"]) == (5, 10, 1)
    assert r["end_conditions"] == ["all_cities_empty"]
    assert r["tiebreaks"] == ["unused_rewards", "vp_tokens", "treasured_in_hand"]


# --- compiled tables match the TOML ------------------------------------------------


def test_compiled_tables_match_toml():
    pool = load_pool("aegean")
    T = pool.tables
    assert T.kind.shape == (len(pool.units), L.K_COLS)
    op_rows = []
    for k, u in enumerate(pool.units):
        assert T.kind[k, L.K_COST] == u["cost"]
        assert T.kind[k, L.K_OFFERING] == u["offering"]
        assert T.kind[k, L.K_STRENGTH] == u["strength"]
        assert T.kind[k, L.K_TYPE] == V.UNIT_TYPES[u["type"]]
        assert V.keyword_names(int(T.kind[k, L.K_KEYWORDS])) == [
            kw for kw in V.KEYWORDS if kw in u["keywords"]
        ]
        assert T.kind[k, L.K_ABIL_N] == len(u["abilities"])
        ongoing = [o["op"] for a in u["abilities"] if a["trigger"] == "static" for o in a["ops"]]
        want = L.STATIC_COST * ("cost" in ongoing) + L.STATIC_STRENGTH * ("strength" in ongoing)
        assert T.kind[k, L.K_STATIC] == want
        a0 = int(T.kind[k, L.K_ABIL_START])
        for j, a in enumerate(u["abilities"]):
            row = T.abil[a0 + j]
            assert row[L.A_TRIGGER] == V.TRIGGERS[a["trigger"]]
            assert row[L.A_COST] == a["cost"]
            assert row[L.A_COND] == V.CONDITIONS[a["when"]]
            assert row[L.A_COND_N] == a["when_n"]
            assert row[L.A_OP_N] == len(a["ops"])
            for i, o in enumerate(a["ops"]):
                op = T.ops[row[L.A_OP_START] + i]
                op_rows.append(row[L.A_OP_START] + i)
                assert op[L.OP_CODE] == V.OPS[o["op"]]
                assert op[L.OP_N] == o["n"]
                assert op[L.OP_M] == o["limit"]
                assert op[L.OP_TARGET] == V.TARGETS[o["target"]]
                assert op[L.OP_COND] == V.CONDITIONS[o["when"]]
                assert op[L.OP_COND_N] == o["when_n"]
                assert op[L.OP_MAY] == int(o["may"])
    assert len(set(op_rows)) == len(op_rows)  # no two abilities share op rows
    # Copies expand into physical cards, kind by kind.
    expected = [k for k, u in enumerate(pool.units) for _ in range(u["copies"])]
    assert T.card_kind.tolist() == expected
    assert T.rules[L.RU_N_CARDS] == len(expected) == 22
    tiles = [r for r, rw in enumerate(pool.rewards) for _ in range(rw["copies"])]
    assert T.tile_kind.tolist() == tiles
    assert T.rules[L.RU_N_TILES] == len(tiles) == 6
    for r, rw in enumerate(pool.rewards):
        assert T.reward[r, L.R_ABIL_N] == len(rw["abilities"])
        a = T.abil[T.reward[r, L.R_ABIL_START]]
        assert a[L.A_TRIGGER] == V.TR_REWARD
    assert T.rules[L.RU_COIN_SUPPLY] == pool.rules["coin_supply"]
    assert T.rules[L.RU_CAPACITY] == pool.rules["city_capacity"]
    assert T.rules[L.RU_END] == V.END_ALL_CITIES_EMPTY
    tbs = [V.TIEBREAKS[t] for t in pool.rules["tiebreaks"]]
    assert T.rules[L.RU_TIEBREAKS : L.RU_TIEBREAKS + len(tbs)].tolist() == tbs
    assert T.rules[L.RU_TIEBREAKS + len(tbs)] == V.TB_END


def test_copies_expand_into_card_kind(tmp_path: Path):
    path = _mutate(tmp_path, ('name = "Eudorus, Swift Runner"', "copies = 1"), "copies = 3")
    data = load_set(path)
    T = compile_tables(data.units, data.rewards, data.rules)
    k = next(i for i, u in enumerate(data.units) if u["name"] == "Eudorus, Swift Runner")
    assert (T.card_kind == k).sum() == 3
    assert len(T.card_kind) == 24
    assert np.all(np.diff(T.card_kind) >= 0)


# --- bad files: one line naming the file, the card and the field -----------------------


def _mutate(tmp_path: Path, anchor: tuple[str, str], new: str) -> Path:
    """Copy aegean.toml with the first ``anchor[1]`` after ``anchor[0]`` replaced by ``new``."""
    start = TEXT.index(anchor[0])
    i = TEXT.index(anchor[1], start)
    text = TEXT[:i] + new + TEXT[i + len(anchor[1]) :]
    path = tmp_path / "aegean.toml"
    path.write_text(text, encoding="utf-8")
    return path


EUDORUS = 'name = "Eudorus, Swift Runner"'
CLOTHO = 'name = "Clotho the Spinner"'

BAD_FILES = {
    "unknown op": (
        (EUDORUS, 'op = "gain_coins"'),
        'op = "gain_gold"',
        "Eudorus, Swift Runner",
        "ops[0].op",
    ),
    "missing cost": ((EUDORUS, "cost = 2\n"), "", "Eudorus, Swift Runner", "cost"),
    "negative cost": ((EUDORUS, "cost = 2"), "cost = -1", "Eudorus, Swift Runner", "cost"),
    "unknown keyword": (
        (EUDORUS, 'keywords = ["RALLY"]'),
        'keywords = ["RALY"]',
        "Eudorus, Swift Runner",
        "keywords",
    ),
    "unknown trigger": (
        (EUDORUS, 'trigger = "rally"'),
        'trigger = "on_rally"',
        "Eudorus, Swift Runner",
        "abilities[0].trigger",
    ),
    "unknown type": (
        (EUDORUS, 'type = "myrmidon"'),
        'type = "myrmidons"',
        "Eudorus, Swift Runner",
        "type",
    ),
    "static op under a non-static trigger": (
        (EUDORUS, '{ op = "gain_coins", n = 2 }'),
        '{ op = "strength", n = 2, target = "self" }',
        "Eudorus, Swift Runner",
        "ops[0].op",
    ),
    "one-shot op under the static trigger": (
        (CLOTHO, '{ op = "cost", n = -1, target = "same_city", when = "city_has_tiles" }'),
        '{ op = "draw", n = 1 }',
        "Clotho the Spinner",
        "ops[0].op",
    ),
    "duplicate name": (
        ('name = "Peisander, Spear of Maimalos"', 'name = "Peisander, Spear of Maimalos"'),
        EUDORUS,
        "Eudorus, Swift Runner",
        "name",
    ),
    "unknown unit key": (
        (EUDORUS, "cost = 2"),
        "cost = 2\ncolour = 3",
        "Eudorus, Swift Runner",
        "colour",
    ),
    "non-integer strength": (
        (EUDORUS, "strength = 2"),
        'strength = "two"',
        "Eudorus, Swift Runner",
        "strength",
    ),
    "bad source": (
        (EUDORUS, 'source = "reconstructed"'),
        'source = "guess"',
        "Eudorus, Swift Runner",
        "source",
    ),
    "unknown target": (
        ('name = "Menesthius, Son of the River"', 'target = "same_city"'),
        'target = "here"',
        "Menesthius, Son of the River",
        "ops[0].target",
    ),
    "unknown condition": (
        ('name = "Ker of the Battlefield"', 'when = "enemy_units_here_at_least"'),
        'when = "enemies_here"',
        "Ker of the Battlefield",
        "abilities[1].when",
    ),
    "reward with a unit trigger": (
        ('name = "Thunderbolt of Zeus"', 'trigger = "reward"'),
        'trigger = "play"',
        "Thunderbolt of Zeus",
        "abilities[0].trigger",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_gives_one_line_naming_file_card_field(tmp_path: Path, case: str):
    anchor, new, card, fld = BAD_FILES[case]
    path = _mutate(tmp_path, anchor, new)
    with pytest.raises(CardDataError) as info:
        load_set(path)
    msg = str(info.value)
    assert "\n" not in msg, msg
    assert path.name in msg, msg
    assert card in msg, msg
    assert f"'{fld}'" in msg, msg


def test_invalid_toml_is_one_line_naming_the_file(tmp_path: Path):
    path = tmp_path / "broken.toml"
    path.write_text(TEXT.replace('name = "Eudorus, Swift Runner"', 'name = "Eudorus', 1))
    with pytest.raises(CardDataError) as info:
        load_set(path)
    msg = str(info.value)
    assert "\n" not in msg, msg
    assert msg.startswith("broken.toml:"), msg
    assert "TOML" in msg and "line" in msg, msg


def test_missing_file_is_one_line(tmp_path: Path):
    with pytest.raises(CardDataError) as info:
        load_set(tmp_path / "nope.toml")
    assert "\n" not in str(info.value) and "nope.toml" in str(info.value)


def test_shipped_files_all_load():
    # Guards the mutations above: the unmodified copy loads without error.
    assert load_set(AEGEAN).name == "aegean"
