"""Omen: A Reign of War, rule by rule: one scenario per rule of the rulebook.

Every test quotes the English translation (``reign-of-war.en.md``)
of the Chinese rulebook (``reign-of-war.zh.txt``, which stays the authority), or the
documented reading (``sim/data/interpretations.py``) it checks, builds a position with
the Scenario API and asserts exact cards and numbers.

Positions are built ``strict``: no bot answers for either seat, so every decision
with more than one legal option is scripted here. A scripted choice the rules do
not allow raises :class:`ScenarioError`, which is how "not offered" rules are checked.

Card values are those shipped in ``configs/sets/reign.toml`` (reconstructed; the
comments give cost/offering/strength).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import done
from invariants import check_invariants

from sim.base import layout as L
from sim.data.cards import load_pool, load_rule_overrides
from sim.data.spec import RunSpec, SpecError
from sim.kernel.abilities import destroy_unit
from sim.run.engine import Engine
from sim.run.scenario import Scenario, ScenarioError

# --- card names (configs/sets/reign.toml) -----------------------------------------
# Soldiers
HOPLITE = "Hoplite Recruit"  # 1/2/1 x5  gain 1 coin
SPEARMAN = "Phalanx Spearman"  # 2/1/2 x5  enrage 1 of your Soldiers/Oracles here
SHIELD = "Shield Bearer"  # 2/2/2 x4  draw 1
SLINGER = "Slinger of Rhodes"  # 1/2/1 x4  opponent discards 1
QUARTERMASTER = "Quartermaster"  # 2/3/1 x4  1 coin per own unit here
BERSERKER = "Berserker of Ares"  # 3/1/2 x4  enrage this unit; enrage 1 here
# Beasts
BOAR = "Wild Boar of Calydon"  # 1/2/3 x4  gain 3 coins
HOUND = "War Hound"  # 2/2/4 x4  opponent discards 2
EAGLE = "Great Eagle"  # 2/2/4 x3  draw 2
SPHINX = "Sphinx of Thebes"  # 2/3/3 x3  reveal 4, keep 2
# Oracles
AUGUR = "Temple Augur"  # 2/2/1 x4  gain 1 coin
PRIESTESS = "Priestess of Ares"  # 3/2/2 x4  enrage 1 of your Soldiers/Oracles here
HERMES = "Priest of Hermes"  # 3/2/2 x3  take up to 1 coin from the opponent
SEER = "Seer of Dodona"  # 4/1/2 x4  draw 1
SCOUT = "Scout Rider"  # 1/2/1 x4  may move 1 of your units from this city to another
# Reward cards: 12 two-player cards (6 kinds x 2); Laurel of the Melee is 4-player only
SPEAR = "Spear of Ares"
HORN = "War Horn of Enyo"
CHARIOT = "Chariot of the Dioskouroi"  # move up to 2 of your units to other cities
TREASURY = "Treasury of Delphi"  # gain 3 coins, draw 1
TRIPOD = "Tripod of the Pythia"
NET = "Net of Hephaestus"
TWO_PLAYER_REWARDS = [SPEAR, HORN, CHARIOT, TREASURY, TRIPOD, NET]
LAUREL = "Laurel of the Melee"
# Feats
F_SOLDIER = "Hold the Three Cities"
F_ORACLE = "Voices in Every Temple"
F_BEAST = "Beasts at Every Gate"
F_BREAK = "Break Their Will"
F_FURY = "Fury of War"
F_MUSTER = "Muster the Host"
ALL_FEATS = [F_SOLDIER, F_ORACLE, F_BEAST, F_BREAK, F_FURY, F_MUSTER]

NOT_ALLOWED = "matched no legal option"
TOP4 = [SEER, EAGLE, BERSERKER, QUARTERMASTER]  # deck top in draw tests


def build(**kw: Any) -> Scenario:
    """A strict Reign position; by default one (unused-by-the-test) reward card per city."""
    kw.setdefault("stacks", {0: [SPEAR], 1: [CHARIOT], 2: [TRIPOD]})
    return Scenario.build("reign", strict=True, **kw)


# =============================================================================
# Setup, cards, variants of the card pool
# =============================================================================


@pytest.mark.parametrize(("seed", "game"), [(1, 0), (7, 3), (2024, 11)])
def test_setup_deals_rewards_cards_coins_and_feats(seed: int, game: int) -> None:
    """Setup: "Shuffle the 12 reward cards and split them into three equal stacks (4 each)"
    (reign-of-war.zh.txt, line 9) ... "Put the 40 coins beside the unit deck." ... "Each player
    takes a set of 6 feat cards, face up in front of them, 4 unit cards and 4 coins." The three
    stacks are the cities and the reward cards form them (reign-of-war.en.md, lines 26-27, 38-39).
    Reading
    ``reward_deal``: the melee-only cards are extra cards outside the 12."""
    # Checks reign-of-war.en.md, lines 25, 28-29, 43.
    sc = Scenario.from_game("reign", seed, game, strict=True)
    assert [len(sc.stack(c)) for c in range(3)] == [4, 4, 4]
    tiles = sorted(t for c in range(3) for t in sc.stack(c))
    assert tiles == sorted(TWO_PLAYER_REWARDS * 2)
    assert LAUREL not in tiles  # "for the 4-player melee only"
    assert len(sc.hand(0)) == len(sc.hand(1)) == 4
    assert sc.coins(0) == sc.coins(1) == 4
    assert sc.supply == 40 - 8
    assert sc.deck_size() == 174 - 8
    assert [f["name"] for f in sc.pool.feats] == ALL_FEATS
    assert sc.feats(0) == sc.feats(1) == []  # all face up
    assert all(sc.city(c, p) == [] for c in range(3) for p in range(2))
    assert sc.turns_done == 0 and not sc.over


@pytest.mark.parametrize("mix", ["reign", "reign+aegean", "aegean+reign", "dunes+reign:10"])
def test_melee_reward_cards_never_dealt_in_any_mix(mix: str) -> None:
    """Cards: "Some reward cards carry two small circles in the lower-right corner: they are for
    the 4-player melee only and are not used in a 2-player game" (reign-of-war.zh.txt, line 35);
    Setup: "the 12 reward cards" (line 9). Every mix with Reign adds its 12 two-player cards
    (6 kinds x 2) and never the melee cards, which the set file keeps apart."""
    # Checks reign-of-war.en.md, lines 42-44.
    data = next(s for s in load_pool(mix).sets if s.name == "reign")
    melee = [r["name"] for r in data.rewards if r["four_player"]]
    assert melee == [LAUREL]
    pool = load_pool(mix)
    reign = [r for r in pool.rewards if r["set"] == "reign"]
    assert [r["name"] for r in reign] == TWO_PLAYER_REWARDS
    assert sum(r["copies"] for r in reign) == 12
    names = [pool.rewards[int(k)]["name"] for k in pool.tables.tile_kind]
    assert LAUREL not in names and sum(n in TWO_PLAYER_REWARDS for n in names) == 12


@pytest.mark.parametrize(("first", "game", "seat"), [("p0", 0, 0), ("p1", 0, 1), ("p1", 3, 1)])
def test_setup_oldest_player_starts(first: str, game: int, seat: int) -> None:
    """Setup: "The oldest player starts. The player whose turn it is is the "active player", the
    other the "opponent"" (reign-of-war.en.md, lines 30-31). Reading ``oldest_player``: the
    oldest player is the seat named by --first; that seat is active on the first turn."""
    sc = Scenario.from_game("reign", 3, game, first=first, strict=True)
    assert sc.active == seat
    assert sc.first == seat


def test_card_pool_174_units_of_50_kinds() -> None:
    """Setup: "Shuffle the 174 unit cards" ... "of the 50 unit kinds"."""
    # Checks reign-of-war.en.md, lines 24, 32.
    pool = load_pool("reign")
    assert len(pool.units) == 50
    assert sum(u["copies"] for u in pool.units) == 174
    assert len(pool.tables.card_kind) == 174


def test_learning_game_uses_only_24_marked_kinds() -> None:
    """Setup, Variant (learning game): "of the 50 unit kinds, use only the 24 kinds marked with
    a circle in the card's lower-left corner." """
    # Checks reign-of-war.en.md, lines 32-33.
    pool = load_pool("reign", learning=True)
    assert len(pool.units) == 24 and all(u["learning"] for u in pool.units)
    assert sum(u["copies"] for u in pool.units) == 89
    eng = Engine(RunSpec(games=1, mix="reign", variants=("learning",)))
    assert len(eng.pool.units) == 24 and len(eng.pool.tables.card_kind) == 89


def test_learning_variant_refused_without_learning_units() -> None:
    """Setup, Variant (learning game): the circle marks exist only on A Reign of War units, so
    ``--variant learning`` on a mix without them is a spec error, not a silent no-op."""
    with pytest.raises(SpecError, match="learning"):
        Engine(RunSpec(games=1, mix="aegean", variants=("learning",)))


# =============================================================================
# Surge: Soldiers, Beasts, Oracles
# =============================================================================


def test_soldier_ability_resolves_on_play() -> None:
    """Cards, Abilities by unit type: "Soldiers are played into your side of a city and their
    ability resolves at once (mandatory unless the text says "may")." """
    # Checks reign-of-war.en.md, lines 60-61.
    sc = build(hands={0: [HOPLITE]}, coins=(3, 4))
    sc.script_play(HOPLITE, city=1)
    sc.script_pass()
    sc.surge()
    assert sc.city(1, 0) == [HOPLITE]
    assert sc.coins(0) == 3 - 1 + 1
    done(sc)


def test_beast_played_into_city_ignores_its_ability() -> None:
    """2. Surge: "Playing a unit into a city: choose a city, pay the unit's cost (yellow) and put
    the unit on your side of that city ... a beast's ability is ignored" (reign-of-war.en.md,
    lines 62-63)."""
    # Checks reign-of-war.en.md, lines 85-87.
    sc = build(hands={0: [BOAR]}, coins=(3, 4))
    sc.script_play(BOAR, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [BOAR]
    assert sc.coins(0) == 2  # paid 1, no "gain 3 coins"
    assert sc.strength(0, 0) == 3
    done(sc)


def test_beast_counts_two_for_capacity() -> None:
    """2. Surge: "a side of a city never holds more than 5 units: the city capacity. Important:
    soldiers and oracles count as 1 unit, a beast counts as 2" (reign-of-war.en.md, lines
    165-166)."""
    # Checks reign-of-war.en.md, lines 90-92.
    four = [HOPLITE, HOPLITE, SHIELD, SHIELD]
    sc = build(hands={0: [BOAR]}, cities={0: {0: four}})
    sc.script_play(BOAR, city=0)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    sc = build(hands={0: [BOAR]}, cities={0: {0: four[:3]}})
    sc.script_play(BOAR, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [*four[:3], BOAR]
    done(sc)


@pytest.mark.parametrize(
    ("mix", "tile"), [("aegean+reign", "Lyre of Orpheus"), ("dunes+reign", "Was Scepter")]
)
def test_beast_counts_two_when_combined_with_other_games(mix: str, tile: str) -> None:
    """2. Surge: "a beast counts as 2 (also when combined with other games)": under an Aegean or
    Dunes base a Beast still fills 2 unit-slots. It does not fit beside 4 units, it fits
    beside 3, and the opponent's Hoplite and Beast (3 unit-slots) make a city war-torn."""
    # Checks reign-of-war.en.md, lines 92-93.
    four = [HOPLITE, HOPLITE, SHIELD, SHIELD]
    stacks = {0: [tile], 1: [], 2: []}
    sc = Scenario.build(mix, strict=True, hands={0: [BOAR]}, cities={0: {0: four}}, stacks=stacks)
    sc.script_play(BOAR, city=0)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    sc = Scenario.build(
        mix, strict=True, hands={0: [BOAR]}, cities={0: {0: four[:3]}}, coins=(4, 4),
        stacks=stacks,
    )  # fmt: skip
    sc.script_play(BOAR, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [*four[:3], BOAR]
    done(sc)
    cities = {0: {0: [HOPLITE, HOPLITE], 1: [HOPLITE, BOAR]}}
    assert Scenario.build(mix, strict=True, cities=cities, stacks=stacks).war_torn(0)
    cities = {0: {0: [HOPLITE, HOPLITE], 1: [HOPLITE, HOPLITE]}}
    assert not Scenario.build(mix, strict=True, cities=cities, stacks=stacks).war_torn(0)


@pytest.mark.parametrize(
    ("theirs", "mine", "torn"),
    [
        ([BOAR, HOPLITE], [], True),  # the opponent fills 3 unit-slots
        ([BOAR], [], False),
        ([BOAR], [HOUND, HOPLITE], True),  # 2 + 3 = 5 in all
        ([BOAR], [HOUND], False),  # 4 in all
        ([], [BOAR, HOUND, HOPLITE], True),  # 5 on the active side, none on the opponent's
    ],
)
def test_beast_counts_two_for_war_torn(theirs: list[str], mine: list[str], torn: bool) -> None:
    """5. War: "A city is war-torn if the opponent has 3 or more units on their side of it, or
    both sides together hold 5 or more units (remember a beast counts as 2)." Complex rules:
    "A city can be war-torn even when the opponent has no units in it." """
    # Checks reign-of-war.en.md, lines 112-114, 177.
    sc = build(cities={1: {0: mine, 1: theirs}})
    assert sc.war_torn(1) is torn


def test_war_winner_can_never_keep_a_beast() -> None:
    """5. War: "discards down to 1 unit in that city; the loser discards down to 2 units (again a
    beast counts as 2, so the winner can never keep a beast)." """
    # Checks reign-of-war.en.md, lines 118-119.
    cities = {0: {0: [EAGLE, SHIELD], 1: [HOUND, SLINGER]}}  # 6 vs 5
    sc = build(cities=cities)
    sc.script_keep(0, [0])  # the winner keeping its Beast: not offered
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.war()
    sc = build(cities=cities)
    sc.script_keep(0, [1])  # the winner keeps the Shield Bearer
    sc.script_keep(0, [0])  # the loser keeps its Beast (2 slots)
    sc.war()
    assert sc.rewards(0) == [(SPEAR, False)]
    assert sc.city(0, 0) == [SHIELD]  # the only option: the Beast cannot stay
    assert sc.city(0, 1) == [HOUND]
    assert sorted(sc.discard_pile()) == sorted([EAGLE, SLINGER])
    done(sc)


def test_units_played_into_several_cities_in_one_turn() -> None:
    """Complex rules: "The active player may play units into several cities in one turn."
    (reign-of-war.en.md, line 173.)"""
    sc = build(hands={0: [HOPLITE, BOAR]}, coins=(4, 4))
    sc.script_play(HOPLITE, city=0)
    sc.script_play(BOAR, city=2)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [HOPLITE] and sc.city(2, 0) == [BOAR]
    assert sc.hand(0) == []
    done(sc)


def test_beast_paid_and_discarded_resolves_its_ability() -> None:
    """2. Surge, Discarding a beast: "to use a beast's ability, pay its cost (yellow), resolve the
    ability, then discard the card." Beasts may be "discarded to resolve their ability"
    (reign-of-war.en.md, line 63)."""
    # Checks reign-of-war.en.md, lines 95-96.
    sc = build(hands={0: [BOAR]}, coins=(1, 4))
    sc.script_beast(BOAR)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 1 - 1 + 3
    assert sc.discard_pile() == [BOAR]
    assert all(sc.city(c, 0) == [] for c in range(3))
    assert sc.hand(0) == []
    done(sc)


def test_a_beast_has_one_ability_and_a_second_block_is_refused(tmp_path: Path) -> None:
    """2. Surge, Discarding a beast: "pay its cost (yellow), resolve the ability, then discard the
    card"; Beasts may be "discarded to resolve their ability". Reading ``beast_one_ability``:
    every shipped Beast has exactly one ``beast`` block, and a designer's Wild Boar given a
    second block ("draw 1") is refused by name rather than silently never played."""
    # Checks reign-of-war.en.md, lines 62-63, 95-96.
    from sim.data.cards import SETS_DIR, CardDataError
    from sim.data.changes import Changes
    from sim.run.compiled import compile_run

    beasts = [u for u in load_pool("aegean+dunes+reign").units if u["type"] == "beast"]
    assert beasts and all([a["trigger"] for a in u["abilities"]] == ["beast"] for u in beasts)
    text = (SETS_DIR / "reign.toml").read_text(encoding="utf-8")
    boar = 'text = "Gain 3 coins."\n[[units.abilities]]\ntrigger = "beast"\n'
    assert text.count(boar) == 1
    second = '[[units.abilities]]\ntrigger = "beast"\nops = [ { op = "draw", n = 1 } ]\n'
    i = text.index(boar) + len(boar)
    i = text.index("\n", i) + 1  # after the Boar's one ops line
    path = tmp_path / "reign.toml"
    path.write_text(text[:i] + second + text[i:], encoding="utf-8")
    with pytest.raises(CardDataError, match=r"abilities\[1\]\.trigger.*one ability") as err:
        compile_run(RunSpec(games=2, mix="reign"), Changes.parse(card_files=[path]))
    assert BOAR in str(err.value) and "\n" not in str(err.value)


def test_beast_discard_needs_its_cost() -> None:
    """2. Surge, Discarding a beast: "pay its cost (yellow)": unaffordable, it is not offered."""
    sc = build(hands={0: [HOUND]}, coins=(1, 4))
    sc.script_beast(HOUND)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


def test_oracle_ability_waits_for_portent() -> None:
    """2. Surge: "an oracle's ability waits for the Portent step." 3. Portent: "Resolve the
    ability of each of your oracles, in each of your cities" (reign-of-war.en.md, line 64)."""
    # Checks reign-of-war.en.md, lines 87-88, 104.
    sc = build(hands={0: [AUGUR]}, coins=(2, 4))
    sc.script_play(AUGUR, city=2)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 0
    sc.portent()
    assert sc.coins(0) == 1
    done(sc)


@pytest.mark.parametrize(("first", "coins"), [(AUGUR, 1), (PRIESTESS, 0)])
def test_portent_order_chosen_by_owner_enraged_oracle_skipped(first: str, coins: int) -> None:
    """3. Portent: "Resolve the ability of each of your oracles ... in any order." Enrage: an
    enraged unit "counts as a beast of strength 4 (red 4) with no abilities": an Augur the
    Priestess enrages first no longer resolves."""
    # Checks reign-of-war.en.md, lines 64-65, 104, 149-150.
    sc = build(cities={0: {0: [PRIESTESS, AUGUR]}}, coins=(0, 4))
    sc.script_portent(first)
    sc.script_enrage(AUGUR)  # the Priestess enrages the Augur (after it resolved, or before)
    sc.portent()
    assert sc.coins(0) == coins
    assert sc.enraged(0, 0) == [False, True]
    done(sc)


def test_portent_only_the_active_players_oracles() -> None:
    """3. Portent: "Resolve the ability of each of your oracles" (the active player's)."""
    # Checks reign-of-war.en.md, lines 104-105.
    sc = build(cities={0: {0: [AUGUR], 1: [AUGUR]}, 1: {1: [AUGUR]}}, coins=(0, 0), supply=10)
    sc.portent()
    assert (sc.coins(0), sc.coins(1)) == (1, 0)


def test_enraged_oracle_does_not_resolve() -> None:
    """Other rules, Enrage: an enraged unit "counts as a beast of strength 4 (red 4) with no
    abilities"."""
    # Checks reign-of-war.en.md, lines 149-150.
    sc = build(cities={0: {0: [AUGUR]}, 1: {0: [AUGUR]}}, enraged={0: {0: [0]}}, coins=(0, 4))
    sc.portent()
    assert sc.coins(0) == 1  # only the Augur in city 1


def test_full_turn_portent_and_feat_come_before_war() -> None:
    """Turn: "2. Surge ... 3. Portent: resolve oracle abilities ... 4. Feat: turn completed feat
    cards face down. 5. War". The Priestess enrages the Hoplite (1 -> 4) before the War, which
    turns a loss (5 vs 6) into a win (8 vs 6); the 5 unit-slots of Muster the Host count in the
    Feat step, before the War destroys them."""
    # Checks reign-of-war.en.md, lines 184-186.
    mine = [PRIESTESS, HOPLITE, SLINGER, SLINGER]  # 2 + 1 + 1 + 1 = 5
    theirs = [SHIELD, SHIELD, SEER]  # 2 + 2 + 2 = 6
    sc = build(cities={0: {0: mine, 1: theirs}}, turn=1, deck_top=TOP4)
    sc.script_wealth(3)
    sc.script_pass()
    sc.script_enrage(HOPLITE)  # 4 + 2 + 1 + 1 = 8 > 6
    sc.script_keep(0, [0])  # the winner keeps the Priestess
    sc.script_keep(0, [0, 1])  # the loser keeps the two Shield Bearers
    sc.script_offer(None)
    sc.turn()
    assert F_MUSTER in sc.feats(0)
    assert sc.rewards(0) == [(SPEAR, False)]
    assert sc.city(0, 0) == [PRIESTESS] and sc.city(0, 1) == [SHIELD, SHIELD]
    assert sc.active == 1
    done(sc)


# =============================================================================
# Feat step
# =============================================================================


def feat_after(**kw: Any) -> list[str]:
    sc = build(**kw)
    sc.feat()
    return sc.feats(0)


@pytest.mark.parametrize(
    ("units", "feat"),
    [([HOPLITE, SHIELD, SLINGER], F_SOLDIER), ([AUGUR, SEER, HERMES], F_ORACLE)],
)
def test_feat_type_in_each_city(units: list[str], feat: str) -> None:
    """4. Feat: "Check your feat cards; turn face down each one whose condition you now meet."
    (Have a Soldier / an Oracle in each city.)"""
    # Checks reign-of-war.en.md, line 108.
    cities = {c: {0: [u]} for c, u in enumerate(units)}
    assert feat_after(cities=cities) == [feat]
    cities = {c: {0: [u]} for c, u in enumerate(units[:2])}
    assert feat_after(cities=cities) == []


def test_feat_beasts_in_each_city_enraged_counts_as_beast() -> None:
    """4. Feat (Have a Beast in each city). Reading ``reign_enraged_type``: an enraged Soldier or
    Oracle counts as a Beast for feats, and no longer as a Soldier."""
    cities = {0: {0: [BOAR]}, 1: {0: [EAGLE]}, 2: {0: [HOPLITE]}}
    assert feat_after(cities=cities) == []
    assert feat_after(cities=cities, enraged={2: {0: [0]}}) == [F_BEAST]
    soldiers = {0: {0: [HOPLITE]}, 1: {0: [SHIELD]}, 2: {0: [SLINGER]}}
    assert feat_after(cities=soldiers, enraged={2: {0: [0]}}) == []


def test_feat_three_enraged_units() -> None:
    """4. Feat (Have 3 enraged units at once)."""
    cities = {0: {0: [HOPLITE, AUGUR]}, 1: {0: [SHIELD]}}
    assert feat_after(cities=cities, enraged={0: {0: [0, 1]}, 1: {0: [0]}}) == [F_FURY]
    assert feat_after(cities=cities, enraged={0: {0: [0, 1]}}) == []


@pytest.mark.parametrize(
    ("units", "met"),
    [
        ([HOPLITE, SHIELD, SLINGER, AUGUR, SEER], True),
        ([HOPLITE, SHIELD, SLINGER, BOAR], True),  # a Beast fills 2 unit-slots
        ([HOPLITE, SHIELD, SLINGER, AUGUR], False),
    ],
)
def test_feat_five_unit_slots_in_one_city(units: list[str], met: bool) -> None:
    """4. Feat (Have 5 units on your side of one city); "a beast counts as 2"."""
    assert feat_after(cities={1: {0: units}}) == ([F_MUSTER] if met else [])
    spread = {0: {0: units[:2]}, 1: {0: units[2:]}}
    assert F_MUSTER not in feat_after(cities=spread)


@pytest.mark.parametrize(("opp_hand", "met"), [(4, True), (2, False)])
def test_feat_opponent_discards_three_in_one_turn(opp_hand: int, met: bool) -> None:
    """4. Feat (Make your opponent discard 3 cards in one turn): a Slinger (1) and an unleashed
    War Hound (2); an opponent with only 2 cards discards only 2. The count is per turn."""
    opp = [HOPLITE, SHIELD, SEER, AUGUR][:opp_hand]
    sc = build(hands={0: [SLINGER, HOUND], 1: opp}, coins=(3, 4))
    sc.script_play(SLINGER, city=0)
    sc.script("discard", card=opp[0])
    sc.script_beast(HOUND)
    for name in opp[1:3]:
        sc.script("discard", card=name)
    sc.script_pass()
    sc.surge()
    assert sc.hand(1) == opp[3:]
    sc.feat()
    assert sc.feats(0) == ([F_BREAK] if met else [])
    sc.end_turn()
    assert sc.opp_discarded == 0  # the per-turn count behind a feat (kernel-only)
    done(sc)


@pytest.mark.parametrize(("coins", "met"), [(5, False), (6, True), (7, True)])
def test_a_designer_s_coin_feat_is_met_at_its_threshold(
    tmp_path: Path, coins: int, met: bool
) -> None:
    """4. Feat: "Check your feat cards; turn face down each one whose condition you now
    meet." The rulebook prints no feat texts; the engine's ``coins_at_least`` condition
    ("Have N coins", configs/README.md) is a designer's, met at N coins or more."""
    # Checks reign-of-war.en.md, line 108.
    from sim.data.cards import SETS_DIR
    from sim.data.changes import Changes
    from sim.run.compiled import compile_run
    from sim.run.positions import place

    old = 'condition = "opponent_discarded_this_turn"\nn = 3\n'
    text = (SETS_DIR / "reign.toml").read_text()
    assert text.count(old) == 1
    path = tmp_path / "reign.toml"
    path.write_text(text.replace(old, 'condition = "coins_at_least"\nn = 6\n'))
    run = compile_run(RunSpec(games=2, mix="reign"), Changes.parse((), [path]))
    sc = Scenario.from_compiled(run, strict=True)
    place(sc, coins=(coins, 0), stacks={0: [SPEAR], 1: [CHARIOT], 2: [TRIPOD]})
    sc.feat()
    assert sc.feats(0) == ([F_BREAK] if met else [])
    assert sc.feats(1) == []


def test_discard_abilities_never_take_reward_cards() -> None:
    """Other rules: "An ability that makes a player reveal their hand and discard affects unit
    cards only: reward cards are never revealed or discarded by it." Complex rules: "No player
    can make another reveal or discard a reward card." (reign-of-war.en.md, lines 158-160, 172.)
    The War Hound's "opponent discards 2" meets 1 unit card and an unused reward card in hand:
    only the unit card goes."""
    sc = build(hands={0: [HOUND], 1: [SEER]}, rewards={1: [(TREASURY, False)]}, coins=(2, 4))
    sc.script_beast(HOUND)
    sc.script("discard", card=SEER)
    sc.script_pass()
    sc.surge()
    assert sc.hand(1) == []
    assert sc.rewards(1) == [(TREASURY, False)]
    assert sorted(sc.discard_pile()) == sorted([HOUND, SEER])
    done(sc)


def test_feat_stays_done_and_only_the_active_players() -> None:
    """Cards, Feat cards: "When a player meets the condition on one, they turn it face down; each
    face-down feat card scores 2 VP at game end." 4. Feat: "Check your feat cards" (the active
    player's only)."""
    # Checks reign-of-war.en.md, lines 47-49.
    units = [HOPLITE, SHIELD, SLINGER, AUGUR, SEER]
    sc = build(cities={0: {0: units, 1: units}})
    sc.feat()
    assert sc.feats(0) == [F_MUSTER] and sc.feats(1) == []
    for _ in range(5):
        destroy_unit(sc.st, sc.tab, 0, 0, 0)
    sc.feat()
    assert sc.feats(0) == [F_MUSTER]


def test_completed_feats_score_two_each() -> None:
    """Scoring: "2 VP for each face-down (completed) feat card in front of you; 2 VP for each
    reward card in your hand; 1 VP for each face-down (used) reward card in front of you"
    (reign-of-war.en.md, lines 109, 140-142)."""
    sc = build(
        feats={0: [F_SOLDIER, F_FURY], 1: [F_BREAK]},
        rewards={0: [(HORN, False)], 1: [(TREASURY, True), (HORN, True)]},
    )
    res = sc.result()
    assert (res["score_p0"], res["score_p1"]) == (2 * 2 + 2, 2 + 1 + 1)
    assert res["winner"] == 0


# =============================================================================
# War
# =============================================================================


def test_war_winner_takes_top_reward_card() -> None:
    """5. War: "The higher total takes the top card of that city's reward stack into their hand,
    then discards down to 1 unit in that city; the loser discards down to 2 units". Each side's
    total is the strength of all its units there, and the winner takes the reward card into hand
    (reign-of-war.en.md, lines 39, 116-119)."""
    cities = {1: {0: [SHIELD, SHIELD], 1: [HOPLITE, SLINGER, AUGUR]}}
    sc = build(cities=cities, stacks={1: [TRIPOD, HORN]})
    sc.script_keep(1, [1])
    sc.script_keep(1, [0, 2])
    sc.war()
    assert sc.rewards(0) == [(HORN, False)] and sc.stack(1) == [TRIPOD]
    assert sc.city(1, 0) == [SHIELD] and sc.city(1, 1) == [HOPLITE, AUGUR]
    done(sc)


@pytest.mark.parametrize("rich", [0, 1])
def test_war_tie_goes_to_more_soldiers(rich: int) -> None:
    """5. War: "On a tie the player with more soldiers in that city wins"."""
    # Checks reign-of-war.en.md, line 120.
    soldiers = [SHIELD, HOPLITE, SLINGER]  # 4 strength, 3 Soldiers
    mixed = [HERMES, AUGUR, HOPLITE]  # 4 strength, 1 Soldier
    sc = build(cities={0: {rich: soldiers, 1 - rich: mixed}})
    assert sc.strength(0, 0) == sc.strength(0, 1) == 4
    sc.script_keep(0, [0])
    sc.script_keep(0, [0, 1])
    sc.war()
    assert sc.rewards(rich) == [(SPEAR, False)] and sc.rewards(1 - rich) == []
    assert sc.city(0, rich) == [SHIELD]
    done(sc)


def test_war_tie_enraged_soldiers_are_not_soldiers() -> None:
    """5. War: "the player with more soldiers"; Enrage: an enraged unit "counts as a beast".
    Reading ``reign_enraged_type``: enraged Soldiers do not count in the tie-break."""
    # Checks reign-of-war.en.md, line 120.
    mine = [HOPLITE, HOPLITE, HOPLITE]  # 4 + 1 + 1 = 6, 2 Soldiers once one is enraged
    theirs = [SHIELD, SHIELD, SHIELD]  # 6, 3 Soldiers
    sc = build(cities={0: {0: mine, 1: theirs}}, enraged={0: {0: [0]}})
    assert sc.strength(0, 0) == sc.strength(0, 1) == 6
    sc.script_keep(0, [0])  # the winner keeps a Shield Bearer
    sc.script_keep(0, [1, 2])  # the loser (active) keeps its two plain Hoplites
    sc.war()
    assert sc.rewards(1) == [(SPEAR, False)] and sc.rewards(0) == []
    assert sc.city(0, 0) == [HOPLITE, HOPLITE] and sc.enraged(0, 0) == [False, False]
    done(sc)


def test_war_full_tie_both_keep_two_no_reward() -> None:
    """5. War: "if still tied, both discard down to 2 units and no one takes a reward card."
    A Beast counts 2, so keeping it keeps nothing else."""
    # Checks reign-of-war.en.md, lines 120-121.
    mine = [BOAR, HOPLITE]  # 3 + 1 = 4, 1 Soldier
    theirs = [SHIELD, AUGUR, AUGUR]  # 2 + 1 + 1 = 4, 1 Soldier
    sc = build(cities={0: {0: mine, 1: theirs}})
    sc.script_keep(0, [0])  # the active player keeps the Beast alone
    sc.script_keep(0, [1, 2])
    sc.war()
    assert sc.rewards(0) == sc.rewards(1) == [] and sc.stack(0) == [SPEAR]
    assert sc.city(0, 0) == [BOAR] and sc.city(0, 1) == [AUGUR, AUGUR]
    done(sc)


def test_war_city_without_rewards_never_war_torn() -> None:
    """5. War: "Units may still be played into a city with no reward cards left, but such a city
    is never war-torn." (reign-of-war.en.md, lines 174-175.)"""
    # Checks reign-of-war.en.md, lines 123-124.
    sc = build(cities={2: {1: [BOAR, EAGLE]}}, stacks={0: [SPEAR], 1: [], 2: []})
    assert not sc.war_torn(2)
    # "Units may still be played into a city with no reward cards left": the Hoplite goes in,
    # filling the city to 5 unit-slots (a Beast counts 2), and it is still not war-torn.
    sc = build(
        cities={2: {1: [BOAR, EAGLE]}}, stacks={0: [SPEAR], 1: [], 2: []},
        hands={0: [HOPLITE]}, coins=(1, 4),
    )  # fmt: skip
    sc.script_play(HOPLITE, city=2)
    sc.script_pass()
    sc.surge()
    assert sc.city(2, 0) == [HOPLITE] and sc.coins(0) == 1  # paid 1, gained 1
    assert not sc.war_torn(2)
    done(sc)


# =============================================================================
# Reward cards
# =============================================================================


def test_reward_card_used_once_per_surge() -> None:
    """2. Surge, Using a reward card: "the active player may use 1 reward card won on an earlier
    turn, resolving its ability and laying it face down"; Complex rules: "The active player may
    play only 1 reward card per turn." The used card lies face down in front of the player
    (reign-of-war.en.md, lines 40-41, 81-83)."""
    # Checks reign-of-war.en.md, lines 98-99, 176.
    sc = build(rewards={0: [(TREASURY, False), (TREASURY, False)]}, deck_top=TOP4, coins=(0, 4))
    sc.script_use_reward(TREASURY)
    sc.script("surge", a=2)  # a second reward card: not offered
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    assert sc.rewards(0) == [(TREASURY, True), (TREASURY, False)]
    assert sc.coins(0) == 3 and sc.hand(0) == [SEER]


def test_reward_cards_score_two_unused_one_used() -> None:
    """Cards, Reward cards: "At game end each reward card in hand scores 2 VP ... a face-down
    reward card scores only 1 VP." (reign-of-war.en.md, lines 38, 40-42, 99-101.)"""
    sc = build(rewards={0: [(TREASURY, False), (HORN, True)]})
    res = sc.result()
    assert res["score_p0"] == 3
    assert (res["rewards_unused_p0"], res["rewards_used_p0"]) == (1, 1)


# =============================================================================
# Moving a Soldier (reading ``soldier_ability_on_move``)
# =============================================================================
# Cards, Abilities by unit type: "Soldiers are played into your side of a city and their ability
# resolves at once" (reign-of-war.zh.txt, line 58); 2. Surge, Playing a unit into a city: "A
# soldier's ability resolves at once" (line 84; reign-of-war.en.md, lines 85-87). The rulebook
# says nothing about moves: off (the default) is its text; on is a first-edition review's
# account of play.

ON_MOVE = {"RU_SOLDIER_ON_MOVE": 1}


def _chariot_position(on_move: bool) -> Scenario:
    """Seat 0: a Hoplite and a Temple Augur in city 0, the Chariot to use, no coins."""
    return build(
        cities={0: {0: [HOPLITE, AUGUR]}},
        rewards={0: [(CHARIOT, False)]},
        coins=(0, 4),
        rules=ON_MOVE if on_move else None,
    )


@pytest.mark.parametrize("on_move", [False, True])
def test_moved_soldier_ability(on_move: bool) -> None:
    """Off: a Soldier's ability resolves when it is played (reign-of-war.en.md, lines 85-87), so
    moving it by the Chariot resolves nothing. On: the Hoplite moved into another city resolves
    "Gain 1 coin" again there; the Oracle moved with it has no play ability (its ability waits
    for the Portent step, line 88), so it gives nothing either way."""
    sc = _chariot_position(on_move)
    sc.script_use_reward(CHARIOT)
    sc.script("move", a=0, c=1, card=HOPLITE)
    sc.script("move", a=0, c=2, card=AUGUR)
    sc.script_pass()
    sc.surge()
    done(sc)
    assert sc.city(1, 0) == [HOPLITE] and sc.city(2, 0) == [AUGUR]
    assert sc.coins(0) == int(on_move)
    check_invariants(sc)


@pytest.mark.parametrize("on_move", [False, True])
def test_moved_soldier_moves_once_per_ability(on_move: bool) -> None:
    """The Chariot ("move up to 2 of your units") moves two units, each once: the Hoplite moved
    into city 1 cannot be moved on to city 2 by the same ability, so under
    ``soldier_ability_on_move`` its ability resolves once for the Chariot, never twice."""
    sc = _chariot_position(on_move)
    sc.script_use_reward(CHARIOT)
    sc.script("move", a=0, c=1, card=HOPLITE)
    sc.script("move", a=1, c=2, card=HOPLITE)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


@pytest.mark.parametrize("on_move", [False, True])
def test_moved_enraged_soldier_resolves_nothing(on_move: bool) -> None:
    """Other rules, Enrage: an enraged unit "is treated as a strength-4 Beast and loses all its
    abilities", and stays enraged when moved (reading ``reign_enraged_type``): moving it
    resolves nothing under either reading."""
    sc = build(
        cities={0: {0: [HOPLITE]}},
        enraged={0: {0: [0]}},
        rewards={0: [(CHARIOT, False)]},
        coins=(0, 4),
        rules=ON_MOVE if on_move else None,
    )
    sc.script_use_reward(CHARIOT)
    sc.script("move", a=0, c=1, card=HOPLITE)
    sc.script("move", a=-1)
    sc.script_pass()
    sc.surge()
    done(sc)
    assert sc.city(1, 0) == [HOPLITE] and sc.enraged(1, 0) == [True]
    assert sc.coins(0) == 0


@pytest.mark.parametrize("on_move", [False, True])
def test_soldier_moving_itself_triggers_one_level(on_move: bool) -> None:
    """Scout Rider ("You may move 1 of your units from this city to another city") played into
    city 0 moves itself to city 1. Off: that is all (reign-of-war.en.md, lines 85-87: the ability
    resolves on play).
    On: moved into city 1, it resolves again and may move itself on to city 2; that second move
    was made by an ability a move triggered, so it triggers nothing more (strict: a third
    "may" would be an unscripted decision and fail the test)."""
    sc = build(hands={0: [SCOUT]}, coins=(1, 4), rules=ON_MOVE if on_move else None)
    sc.script_play(SCOUT, city=0)
    sc.script_may(True)
    sc.script("move", a=0, c=1, card=SCOUT)
    if on_move:
        sc.script_may(True)
        sc.script("move", a=1, c=2, card=SCOUT)
    sc.script_pass()
    sc.surge()
    done(sc)
    where = 2 if on_move else 1
    assert sc.city(where, 0) == [SCOUT]
    assert all(sc.city(c, 0) == [] for c in range(3) if c != where)


def test_soldier_on_move_is_a_house_rule_off_by_default() -> None:
    """The shipped Reign rules play the rulebook's text (off), in Reign and in mixes with it;
    ``configs/rules/soldier-on-move.toml`` turns the other reading on through ``--rules``."""
    path = Path(__file__).parents[2] / "configs" / "rules" / "soldier-on-move.toml"
    assert load_rule_overrides(path) == {"soldier_ability_on_move": True}
    for mix in ("reign", "aegean+reign"):
        assert load_pool(mix).tables.rules[L.RU_SOLDIER_ON_MOVE] == 0
    engine = Engine(RunSpec(games=2, mix="reign", rules=str(path)))
    assert engine.tables.rules[L.RU_SOLDIER_ON_MOVE] == 1
    assert json.loads(engine.metadata["rule_overrides"]) == {"soldier_ability_on_move": True}
    assert "soldier_ability_on_move" in json.loads(engine.metadata["interpretations"])


# =============================================================================
# Supply step
# =============================================================================


@pytest.mark.parametrize("cards", [0, 1, 3])
def test_supply_offering_split_freely(cards: int) -> None:
    """6. Supply: "The active player may discard 1 (at most 1) unit card and take any mix of
    unit cards and coins totalling its offering value (blue)." """
    # Checks reign-of-war.en.md, lines 127-128.
    sc = build(hands={0: [QUARTERMASTER, HOPLITE]}, deck_top=TOP4, coins=(0, 4))
    sc.script_offer(QUARTERMASTER, cards=cards)
    sc.offering()
    assert sc.discard_pile() == [QUARTERMASTER]
    assert sc.hand(0) == [HOPLITE, *TOP4[:cards]]
    assert sc.coins(0) == 3 - cards
    done(sc)


def test_supply_no_hand_or_coin_limit() -> None:
    """6. Supply: "(Unlike the later sets, this rulebook states no hand limit and no coin limit
    at the end of the turn.)" """
    # Checks reign-of-war.en.md, lines 130-131.
    hand = [HOPLITE] * 5 + [SHIELD] * 4 + [SLINGER] * 3
    sc = build(hands={0: hand}, coins=(25, 4))
    sc.script_offer(None)
    sc.offering()
    assert len(sc.hand(0)) == 12 and sc.coins(0) == 25
    done(sc)


@pytest.mark.parametrize("active", [0, 1])
def test_supply_turns_back_only_the_active_players_enraged(active: int) -> None:
    """Other rules, Enrage: "All of the active player's enraged units are flipped back during
    that player's Supply step." """
    # Checks reign-of-war.en.md, lines 150-151.
    cities = {0: {0: [HOPLITE, AUGUR], 1: [SHIELD]}, 2: {0: [SLINGER], 1: [SEER, HERMES]}}
    enraged = {0: {0: [0, 1], 1: [0]}, 2: {0: [0], 1: [1]}}
    sc = build(cities=cities, enraged=enraged, active=active)
    sc.offering()  # no hand: no offering to choose
    assert sc.enraged(0, active) == [False] * len(cities[0][active])
    assert sc.enraged(2, active) == [False] * len(cities[2][active])
    other = 1 - active
    assert sc.enraged(0, other) == [True] * len(cities[0][other])
    assert sc.enraged(2, other) == [i in enraged[2][other] for i in range(len(cities[2][other]))]


# =============================================================================
# Enrage
# =============================================================================


def test_enrage_only_soldiers_and_oracles() -> None:
    """Other rules, Enrage: "Only soldiers and oracles can be enraged." """
    # Checks reign-of-war.en.md, lines 148-149.
    sc = build(hands={0: [SPEARMAN]}, cities={0: {0: [BOAR]}})
    sc.script_play(SPEARMAN, city=0)
    sc.script_enrage(BOAR)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    # The Spearman itself is its only option: no choice to script.
    sc = build(hands={0: [SPEARMAN]}, cities={0: {0: [BOAR]}})
    sc.script_play(SPEARMAN, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.enraged(0, 0) == [False, True]
    done(sc)


def test_enraged_unit_is_strength_four_counting_two() -> None:
    """Other rules, Enrage: "An enraged unit is flipped over: it counts as a beast of strength 4
    (red 4) with no abilities." """
    # Checks reign-of-war.en.md, lines 149-150.
    sc = build(cities={0: {0: [AUGUR, HOPLITE], 1: [HOPLITE]}}, enraged={0: {0: [0]}})
    assert sc.strength(0, 0) == 4 + 1
    assert sc.war_torn(0) is False  # the opponent fills 1 slot; 2 + 1 + 1 = 4 in all
    sc2 = build(cities={0: {0: [AUGUR, HOPLITE], 1: [HOPLITE]}}, enraged={0: {0: [0, 1]}})
    assert sc2.war_torn(0)  # 2 + 2 + 1 = 5


def test_enraged_unit_counts_two_for_capacity() -> None:
    """Other rules, Enrage: an enraged unit "counts as a beast"; 2. Surge: "a beast counts as 2":
    an enraged Hoplite and two Shield Bearers fill 4 slots, leaving no room for a Beast."""
    cities = {0: {0: [HOPLITE, SHIELD, SHIELD]}}
    sc = build(hands={0: [BOAR]}, cities=cities, enraged={0: {0: [0]}})
    sc.script_play(BOAR, city=0)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    sc = build(hands={0: [BOAR]}, cities=cities)
    sc.script_play(BOAR, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [*cities[0][0], BOAR]
    done(sc)


def test_enrage_not_over_capacity() -> None:
    """Other rules, Enrage: "A unit whose enraging would put its side of the city over capacity
    (a beast counts as 2) is not enraged." The Berserker fills the fifth slot: neither its own
    nor its second enrage can happen."""
    # Checks reign-of-war.en.md, lines 151-152.
    sc = build(hands={0: [BERSERKER]}, cities={0: {0: [HOPLITE, SHIELD, SLINGER, AUGUR]}})
    sc.script_play(BERSERKER, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.enraged(0, 0) == [False] * 5
    done(sc)


def test_enrage_fills_capacity_exactly() -> None:
    """Other rules, Enrage: "over capacity" only: with 4 slots filled one unit may be enraged
    (4 - 1 + 2 = 5), the Berserker itself; then the side is full."""
    sc = build(hands={0: [BERSERKER]}, cities={0: {0: [HOPLITE, SHIELD, SLINGER]}})
    sc.script_play(BERSERKER, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.enraged(0, 0) == [False, False, False, True]
    done(sc)


# =============================================================================
# Revealing
# =============================================================================


@pytest.mark.parametrize("keep", [0, 1, 2])
def test_reveal_keep_up_to_m_discard_the_rest(keep: int) -> None:
    """Other rules: "A card revealed from the deck that is not added to a hand or placed beside a
    city is discarded." Sphinx of Thebes: reveal 4, keep 2 (reign-of-war.en.md, line 167), read
    as up to 2 (reading ``reveal_keep_count``, default "up_to")."""
    # Checks reign-of-war.en.md, lines 154-155.
    sc = build(hands={0: [SPHINX]}, deck_top=TOP4, coins=(2, 4))
    sc.script_beast(SPHINX)
    kept = [TOP4[3], TOP4[1]][:keep]
    for name in kept:
        sc.script("keep_revealed", card=name)
    if keep < 2:
        sc.script("keep_revealed", a=-1)
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == kept
    rest = [n for n in TOP4 if n not in kept]
    assert sorted(sc.discard_pile()) == sorted([*rest, SPHINX])
    assert sc.deck_size() == 174 - 1 - 4
    done(sc)


# =============================================================================
# Wealth: extra wealth actions variant
# =============================================================================


@pytest.mark.parametrize(
    ("hand", "coins", "actions"),
    [([HOPLITE], 2, 3), ([], 2, 4), ([HOPLITE], 0, 4), ([], 0, 5)],
)
def test_extra_wealth_actions_variant(hand: list[str], coins: int, actions: int) -> None:
    """1. Wealth, Variant: "a player with no cards in hand, or no coins, gets 1 extra wealth
    action; with neither, 2 extra." All on coins: 1 more coin."""
    # Checks reign-of-war.en.md, lines 77-78.
    sc = build(hands={0: hand}, coins=(coins, 4), turn=1, rules={"RU_EXTRA_WEALTH": 1})
    sc.script_wealth(0)
    sc.wealth()
    assert sc.coins(0) == coins + actions + 1
    done(sc)


@pytest.mark.parametrize(("reading", "bonus"), [(0, 1), (1, 0)])
def test_extra_wealth_bonus_reading(reading: int, bonus: int) -> None:
    """1. Wealth: "All 3 on coins: gain 1 more coin." Variant: "with neither, 2 extra."
    Reading ``extra_wealth_bonus``: 'all_actions' (default) gives the bonus when all 5 go one
    way; 'three_actions' (RU_BONUS_BASE_ONLY) gives none on a turn with extra actions."""
    # Checks reign-of-war.en.md, lines 73-74.
    rules = {"RU_EXTRA_WEALTH": 1, "RU_BONUS_BASE_ONLY": reading}
    sc = build(hands={0: []}, coins=(0, 4), turn=1, rules=rules)
    sc.script_wealth(0)
    sc.wealth()
    assert sc.coins(0) == 5 + bonus
    done(sc)


def test_extra_wealth_bonus_reading_keeps_the_bonus_with_three_actions() -> None:
    """1. Wealth: "All 3 on coins: gain 1 more coin": 'three_actions' still gives it with 3."""
    # Checks reign-of-war.en.md, lines 73-74.
    rules = {"RU_EXTRA_WEALTH": 1, "RU_BONUS_BASE_ONLY": 1}
    sc = build(hands={0: [HOPLITE]}, coins=(2, 4), turn=1, rules=rules)
    sc.script_wealth(0)
    sc.wealth()
    assert sc.coins(0) == 2 + 3 + 1
    done(sc)


@pytest.mark.parametrize(("reading", "actions"), [(0, 4), (1, 3)])
def test_reward_cards_in_hand_reading(reading: int, actions: int) -> None:
    """1. Wealth, Variant: "a player with no cards in hand, or no coins, gets 1 extra wealth
    action". Reading ``reign_rewards_in_hand``: by default an unused reward card kept in hand
    is not a card in hand (4 actions); RU_REWARDS_IN_HAND counts it (3 actions)."""
    # Checks reign-of-war.en.md, lines 77-78.
    rules = {"RU_EXTRA_WEALTH": 1, "RU_REWARDS_IN_HAND": reading}
    sc = build(hands={0: []}, rewards={0: [(SPEAR, False)]}, coins=(2, 4), turn=1, rules=rules)
    sc.script_wealth(0)
    sc.wealth()
    assert sc.coins(0) == 2 + actions + 1
    done(sc)


@pytest.mark.parametrize(("reading", "offered"), [(0, True), (1, False)])
def test_two_stacks_empty_check_reading(reading: int, offered: bool) -> None:
    """Game end: "The game ends when two cities' reward stacks are empty". Reading
    ``two_stacks_empty_check``: by default checked at the end of the turn, after the Supply
    step; with RU_END_AFTER_WAR the game ends right after the War step, so no offering."""
    # Checks reign-of-war.en.md, line 134.
    sc = build(
        hands={0: [QUARTERMASTER]},
        stacks={0: [], 1: [], 2: [TRIPOD]},
        deck_top=TOP4,
        coins=(0, 4),
        rules={"RU_END_AFTER_WAR": reading},
    )
    sc.script_wealth(0)
    sc.script_pass()
    if offered:
        sc.script_offer(QUARTERMASTER, cards=0)
    sc.turn()
    assert sc.over
    assert sc.result()["end_reason"] == "two_cities_empty"
    assert (QUARTERMASTER in sc.discard_pile()) is offered
    done(sc)


def test_two_stacks_empty_after_war_also_when_the_war_empties_all_three() -> None:
    """Reading ``two_stacks_empty_check`` = "after_war" in a mix with Aegean's end (all three
    stacks empty): a War that empties the last two stacks ends the game at once, no Supply."""
    # Checks reign-of-war.en.md, line 134.
    sc = Scenario.build(
        "reign+aegean",
        strict=True,
        hands={0: [QUARTERMASTER]},
        cities={
            1: {0: ["Spartan Veteran", "Spartan Veteran"], 1: [HOPLITE] * 3},
            2: {0: ["Warlord of Argos"], 1: [SLINGER] * 3},
        },
        stacks={0: [], 1: [NET], 2: [SPEAR]},
        coins=(0, 4),
        rules={"RU_END_AFTER_WAR": 1},
    )
    sc.script_wealth(0)
    sc.script_pass()
    sc.script("war_order", a=1)
    sc.script_keep(1, [0])  # the winner keeps one unit
    sc.script_keep(1, [0, 1])  # the loser two
    sc.script_keep(2, [0])
    sc.script_keep(2, [0, 1])
    sc.script_offer(QUARTERMASTER, cards=0)  # taken only if the Supply step were played
    sc.turn()
    assert sc.over
    assert [len(sc.stack(c)) for c in range(3)] == [0, 0, 0]
    assert QUARTERMASTER not in sc.discard_pile()


def test_coins_per_unit_count_a_beast_as_two_units() -> None:
    """Complex rules: "A beast always counts as 2 units." Quartermaster ("Gain 1 coin for each
    of your units here") beside a Wild Boar: 3 units, 3 coins (reading ``units_in_card_texts``)."""
    # Checks reign-of-war.en.md, lines 91-92, 165.
    sc = build(hands={0: [QUARTERMASTER]}, cities={0: {0: [BOAR]}}, coins=(2, 4))
    sc.script_play(QUARTERMASTER, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 2 - 2 + 3
    done(sc)


def test_coins_per_unit_count_an_enraged_unit_as_two_units() -> None:
    """Other rules: an enraged unit "counts as a beast", and a beast always counts as 2 units:
    Haruspex beside an enraged Hoplite Recruit gains 3 coins in the Portent step."""
    # Checks reign-of-war.en.md, lines 148-150.
    sc = build(cities={0: {0: ["Haruspex", HOPLITE]}}, enraged={0: {0: [1]}}, coins=(0, 4))
    sc.portent()
    assert sc.coins(0) == 3
    done(sc)


def test_an_enraged_soldier_is_not_another_soldier() -> None:
    """Other rules: an enraged unit "counts as a beast of strength 4 ... with no abilities"
    (reading ``reign_enraged_type``), so Standard Bearer's "If you have another Soldier here"
    is not met by an enraged Hoplite Recruit, and nothing is enraged."""
    # Checks reign-of-war.en.md, lines 148-150.
    sc = build(
        hands={0: ["Standard Bearer"]},
        cities={0: {0: [HOPLITE]}},
        enraged={0: {0: [0]}},
        coins=(3, 4),
    )
    sc.script_play("Standard Bearer", city=0)
    sc.script_pass()
    sc.surge()
    assert sc.enraged(0, 0) == [True, False]
    done(sc)


def test_wealth_first_turn_two_actions_with_bonus() -> None:
    """Complex rules: "The first player's first turn has only 2 wealth actions, with the bonus if
    both are the same." (reign-of-war.en.md, lines 74-75.)"""
    # Checks reign-of-war.en.md, lines 163-164.
    sc = build(coins=(4, 4), turn=0)
    sc.script_wealth(2)
    sc.wealth()
    assert len(sc.hand(0)) == 3 and sc.coins(0) == 4
    done(sc)


def test_wealth_without_variant_no_extra_actions() -> None:
    """1. Wealth: "The active player has 3 wealth actions" (the extra actions are a variant)."""
    # Checks reign-of-war.en.md, line 72.
    sc = build(coins=(0, 4), turn=1)
    sc.script_wealth(0)
    sc.wealth()
    assert sc.coins(0) == 4
    done(sc)


# =============================================================================
# Game end and scoring
# =============================================================================


@pytest.mark.parametrize(("stacks", "over"), [((0, 0, 1), True), ((0, 1, 1), False)])
def test_game_ends_when_two_cities_are_empty(stacks: tuple[int, ...], over: bool) -> None:
    """Turn: "Players alternate turns until two cities' reward stacks are empty"."""
    # Checks reign-of-war.en.md, line 68.
    names = [[SPEAR], [HORN], [TRIPOD]]
    sc = build(stacks={c: names[c][:k] for c, k in enumerate(stacks)})
    sc.end_turn()
    assert sc.over is over
    if over:
        assert sc.result()["end_reason"] == "two_cities_empty"


@pytest.mark.parametrize(("seat", "n", "over"), [(0, 5, True), (1, 5, True), (1, 4, False)])
def test_game_ends_with_five_completed_feats(seat: int, n: int, over: bool) -> None:
    """Game end: "when, at the end of the active player's turn, the opponent has 5 face-down
    feat cards." Turn: "... or a player has completed 5 of their 6 feat cards"
    (reign-of-war.en.md, lines 68-69). Reading ``reign_feat_end``: either player holding 5
    completed feats at the end of a turn ends the game."""
    # Checks reign-of-war.en.md, lines 134-135.
    sc = build(feats={seat: ALL_FEATS[:n]})
    sc.end_turn()
    assert sc.over is over
    if over:
        res = sc.result()
        assert res["end_reason"] == "feats_completed"
        assert res[f"score_p{seat}"] == 2 * n


SCORE_TIES = [
    # 4 VP each: 2 used against none, none against 2, then 2 against 2 (shared)
    ([(HORN, True), (TREASURY, True), (SPEAR, False)], [(CHARIOT, False), (TRIPOD, False)], 0),
    ([(SPEAR, False), (HORN, False)], [(CHARIOT, True), (TRIPOD, False), (TRIPOD, True)], 1),
    (
        [(SPEAR, False), (HORN, True), (TREASURY, True)],
        [(CHARIOT, True), (TREASURY, True), (TRIPOD, False)],
        -1,
    ),
]


@pytest.mark.parametrize(("won0", "won1", "winner"), SCORE_TIES)
def test_score_tie_more_used_reward_cards_then_shared(
    won0: list[tuple[str, bool]], won1: list[tuple[str, bool]], winner: int
) -> None:
    """Scoring: "On a tie, the player with more face-down (used) reward cards wins." With no
    further tie-break the victory is shared."""
    # Checks reign-of-war.en.md, line 144.
    sc = build(rewards={0: won0, 1: won1}, stacks={})
    res = sc.result()
    assert res["score_p0"] == res["score_p1"] == 4
    assert res["winner"] == winner


# =============================================================================
# Emissary of War variant
# =============================================================================


@pytest.mark.parametrize("oldest", [0, 1])
def test_emissary_tie_goes_to_oldest_without_strength_tiebreak(oldest: int) -> None:
    """Variants, Emissary of War: "The owner of the higher total is the first player; on a tie the
    older player goes first. The first player discards their emissary; the second player takes
    theirs back into hand. (Unlike the later sets, no strength tie-break is stated.)" """
    # Checks reign-of-war.en.md, lines 194-198.
    # Shield Bearer 2 + 2 + 2 = 6 (Strength 2); Wild Boar 1 + 2 + 3 = 6 (Strength 3).
    sc = build(hands={0: [SHIELD], 1: [BOAR]})
    assert sc.emissary(oldest=oldest) == oldest
    assert sc.discard_pile() == [[SHIELD, BOAR][oldest]]
    assert sc.hand(1 - oldest) == [[SHIELD, BOAR][1 - oldest]]


def test_emissary_higher_total_goes_first() -> None:
    """Variants, Emissary of War: "add each one's three values (yellow, blue, red). The owner of
    the higher total is the first player". Each emissary is a unit card picked from hand
    (reign-of-war.en.md, lines 192-196)."""
    sc = build(hands={0: [HOPLITE, SEER], 1: [HOUND]})  # 1 + 2 + 1 = 4 vs 2 + 2 + 4 = 8
    sc.script("emissary", card=HOPLITE)
    assert sc.emissary(oldest=0) == 1
    assert sc.discard_pile() == [HOUND] and sorted(sc.hand(0)) == sorted([HOPLITE, SEER])
    done(sc)


# --- Trial of Skill ------------------------------------------------------------------------


def _trial(seed: int = 4, game: int = 1) -> Scenario:
    return Scenario.from_game("reign", seed, game, rules={"RU_TRIAL": 1})


def test_trial_of_skill_gives_each_player_one_card_of_every_kind() -> None:
    """Reign rulebook, Trial of Skill: "Each player gets a deck of 50 cards, one of each unit
    kind; each player draws from and discards to their own deck and discard pile." """
    # Checks reign-of-war.en.md, lines 200-202.
    sc = _trial()
    kinds = sc.tables.card_kind
    for p in range(2):
        deck = sc.zone_ids("deck", p)
        hand = sc.zone_ids("hand", p)
        own = sorted(int(kinds[c]) for c in [*deck, *hand])
        assert own == list(range(50)), "exactly one card of each of the 50 kinds"
        assert len(hand) == 4
    assert sc.own_decks
    assert sc.box_size() == 174 - 100, "the other copies stay in the box"
    check_invariants(sc)


def test_trial_of_skill_discards_go_to_the_players_own_pile() -> None:
    """Reign rulebook, Trial of Skill: "each player draws from and discards to their own deck
    and discard pile." """
    # Checks reign-of-war.en.md, lines 201-202.
    sc = _trial()
    p = sc.active
    name = sc.hand(p)[0]
    sc.script_offer(name, cards=1)
    sc.offering()
    assert sc.discard_pile(p) == [name]
    assert sc.discard_pile(1 - p) == []
    assert sc.deck_size(p) == 50 - 4 - 1 and sc.deck_size(1 - p) == 50 - 4


@pytest.mark.parametrize(
    ("rule", "seed", "game", "bots"),
    [
        ("RU_TRIAL", 9, 3, ("greedy", "random")),
        ("RU_SIMPLE_DRAFT", 8, 1, ("random", "greedy")),
        ("RU_PILE_DRAFT", 3, 4, ("greedy", "random")),
    ],
)
def test_variant_game_plays_out_with_cards_conserved(
    rule: str, seed: int, game: int, bots: tuple[str, str]
) -> None:
    """Trial of Skill, the simple draft and the pile draft: every card stays in exactly one
    zone all game long, and the game ends as a Reign game does."""
    sc = Scenario.from_game("reign", seed, game, bots=bots, rules={rule: 1})
    while not sc.over:
        sc.turn()
        check_invariants(sc)
    assert sc.result()["end_reason"] in {"two_cities_empty", "feats_completed", "turn_cap"}


def test_trial_variant_needs_two_copies_of_every_kind() -> None:
    with pytest.raises(SpecError, match="trial"):
        Engine(RunSpec(games=10, mix="aegean", variants=("trial",)))
    Engine(RunSpec(games=10, mix="reign", variants=("trial",)))


# --- Simple draft ----------------------------------------------------------------------------


def test_simple_draft_gives_each_player_30_drafted_cards() -> None:
    """Reign rulebook, Simple draft: "deal 10 to each player; each player keeps 1 and passes
    the rest to the left, until the cards are gone; repeat until each player has 30 cards.
    Players shuffle and play normally, each with their own deck and discard pile." """
    sc = Scenario.from_game("reign", 2, 5, rules={"RU_SIMPLE_DRAFT": 1})
    # Reward and feat cards are set up normally (reign-of-war.en.md, lines 224-228).
    assert [len(sc.stack(c)) for c in range(3)] == [4, 4, 4]
    assert sc.feats(0) == sc.feats(1) == []
    for p in range(2):
        assert sc.deck_size(p) + len(sc.hand(p)) == 30
    assert sc.own_decks
    assert sc.box_size() == 174 - 60
    check_invariants(sc)


def test_simple_draft_picks_are_the_players_choices() -> None:
    """Each pick is the player's own choice from the packet in front of them: changing seat
    0's very first pick changes the 30 cards seat 0 ends up with."""

    def drafted(first_pick: int) -> list[int]:
        sc = Scenario("reign", rules={"RU_SIMPLE_DRAFT": 1})
        sc.script("draft", a=first_pick)
        sc.setup(2, 5)
        assert sc.script_left() == 0
        cards = [*sc.zone_ids("deck", 0), *sc.zone_ids("hand", 0)]
        assert len(cards) == 30
        return sorted(int(c) for c in cards)

    assert drafted(0) != drafted(9)


def test_simple_draft_refused_where_it_cannot_be_dealt() -> None:
    with pytest.raises(SpecError, match="simple-draft"):
        Engine(RunSpec(games=10, mix="aegean", variants=("simple-draft",)))
    with pytest.raises(SpecError, match="pick one"):
        Engine(RunSpec(games=10, mix="reign", variants=("trial", "simple-draft")))


# --- Pile draft ------------------------------------------------------------------------------


def test_pile_draft_gives_each_player_10_whole_piles_within_the_limits() -> None:
    """Reign rulebook, Pile draft: "Split the unit cards into 50 piles, one pile per unit kind
    holding all its copies ... the players alternate until each has taken 10 piles. A player
    may take at most 6 soldier piles, 4 beast piles and 4 oracle piles. Piles not taken go
    back to the box. The game is then played normally, each player with their own deck and
    discard pile." """
    # Checks reign-of-war.en.md, lines 205-211.
    sc = Scenario.from_game("reign", 6, 2, rules={"RU_PILE_DRAFT": 1})
    kinds = sc.tables.card_kind
    types = [u["type"] for u in sc.pool.units]
    copies = [u["copies"] for u in sc.pool.units]
    owned: list[set[int]] = []
    for p in range(2):
        deck = sc.zone_ids("deck", p)
        hand = sc.zone_ids("hand", p)
        mine = [int(kinds[c]) for c in [*deck, *hand]]
        piles = set(mine)
        assert len(piles) == 10
        assert all(mine.count(k) == copies[k] for k in piles), "whole piles only"
        by_type = [types[k] for k in piles]
        assert by_type.count("soldier") <= 6
        assert by_type.count("beast") <= 4 and by_type.count("oracle") <= 4
        owned.append(piles)
    assert not owned[0] & owned[1]
    assert sc.own_decks
    check_invariants(sc)


@pytest.mark.parametrize(("kind", "limit"), [("soldier", 6), ("beast", 4), ("oracle", 4)])
def test_pile_draft_limits_are_reached_and_never_passed(kind: str, limit: int) -> None:
    """Pile draft: "A player may take at most 6 soldier piles, 4 beast piles and 4 oracle
    piles." A seat that takes a pile of ``kind`` whenever one is offered ends with exactly
    the limit (it may reach it, and is offered none past it); the other seat avoids them."""
    # Checks reign-of-war.en.md, line 208.
    from sim.kernel import draft as DR

    sc = Scenario("reign", rules={"RU_PILE_DRAFT": 1}, strict=True)
    st, tab = sc.st, sc.tab
    types = [u["type"] for u in sc.pool.units]
    DR.draft_begin(st, tab)
    keen = int(st[L.DRAFT_SEAT])
    taken: dict[int, list[str]] = {0: [], 1: []}
    while st[L.DRAFT_PICK] < DR.draft_picks(tab):
        p = int(st[L.DRAFT_SEAT])
        offered = [types[int(k)] for k in sc.options[: DR.draft_options(st, tab), 0]]
        if p == keen:
            if len(taken[p]) and taken[p].count(kind) == limit:
                assert kind not in offered, "a pile past the limit is offered"
            pick = offered.index(kind) if kind in offered else 0
        else:
            pick = next((i for i, t in enumerate(offered) if t != kind), 0)
        taken[p].append(offered[pick])
        DR.draft_take(st, tab, pick)
    assert len(taken[0]) == len(taken[1]) == 10
    assert taken[keen].count(kind) == limit
    for p in (0, 1):
        for t, most in (("soldier", 6), ("beast", 4), ("oracle", 4)):
            assert taken[p].count(t) <= most


@pytest.mark.parametrize(("coins", "left"), [(0, 4), (10, 0), (12, 2)])
def test_pile_draft_coins(coins: int, left: int) -> None:
    """Pile draft: "Each player takes 10 coins. ... The younger player puts 1 coin in the middle
    of the table and takes 1 pile; the players alternate until each has taken 10 piles."
    Reading ``reign_drafts``: by default (``pile_draft_coins = 0``) the coins are not played
    and each player starts with the usual 4; ``pile_draft_coins`` = N gives each player N
    coins less the 1 put back in the supply per pile taken: 10 leaves none, 12 leaves 2. The
    piles drafted are the same whatever the coins."""
    # Checks reign-of-war.en.md, lines 204-207.
    plain = Scenario.from_game("reign", 6, 2, rules={"RU_PILE_DRAFT": 1})
    rules = {"RU_PILE_DRAFT": 1, "RU_PILE_DRAFT_COINS": coins}
    sc = Scenario.from_game("reign", 6, 2, rules=rules)
    assert [sc.coins(p) for p in range(2)] == [left, left]
    assert sc.st[L.SUPPLY] == 40 - 2 * left
    for p in range(2):
        assert sc.hand(p) == plain.hand(p)
        assert sc.zone_ids("deck", p) == plain.zone_ids("deck", p)
        ids = [*sc.zone_ids("deck", p), *sc.zone_ids("hand", p)]
        assert len({int(sc.tables.card_kind[c]) for c in ids}) == 10  # 10 piles, 10 coins paid
    check_invariants(sc)


def test_pile_draft_coins_from_a_rules_file(tmp_path: Path) -> None:
    """Pile draft: "Each player takes 10 coins" (reign-of-war.en.md, line 204), played from a
    house-rules file: with ``--variant pile-draft`` each player starts with 0 coins after 10
    piles; without the variant the parameter changes nothing and is refused by name."""
    from sim.data.cards import CardDataError
    from sim.run.compiled import compile_run

    path = tmp_path / "coins.toml"
    path.write_text("[rules]\npile_draft_coins = 10\n", encoding="utf-8")
    spec = RunSpec(games=2, mix="reign", seed=6, variants=("pile-draft",), rules=str(path))
    sc = Scenario.from_spec(spec, game=1)
    assert sc.coins(0) == sc.coins(1) == 0
    with pytest.raises(CardDataError, match="pile_draft_coins = 10 has no effect"):
        compile_run(RunSpec(games=2, mix="reign", rules=str(path)))


def test_pile_draft_refusals() -> None:
    Engine(RunSpec(games=10, mix="reign", variants=("pile-draft",)))
    with pytest.raises(SpecError, match="pick one"):
        Engine(RunSpec(games=10, mix="reign", variants=("pile-draft", "trial")))
