"""The open readings that are rule switches (sim/data/interpretations.py), each in both settings.

Every test plays one position under the default reading and under the other one
(the rule slot set as a ``--rules`` file would set it), and checks where they part.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import done, invoke

from sim.data.cards import READING_SWITCHES, RULE_OPTIONAL, load_pool, load_rule_overrides
from sim.data.interpretations import INTERPRETATIONS, READINGS
from sim.kernel import decisions as D
from sim.run.scenario import Scenario, ScenarioError

NOT_ALLOWED = "matched no legal option"

# Heir to the Dunes (configs/sets/dunes.toml): cost/offering/strength
CHANNELER = "Moonlight Channeler"  # 2/3/2, Anubis
LABORER = "Linen-Wrapped Laborer"  # 1/2/2, both gods
BEARER = "Bearer of the Sun Disc"  # 2/3/2, Horus
MARAUDER = "Sunset Marauder"  # 2/2/1, neutral
SERVANT = "Temple Servant"  # 1/2/1, neutral
GRAND = "Grand Vizier of the Two Lands"  # 6/1/6, MANEUVER 3
SCROLLS = "Vizier of the Scrolls"  # 4/3/3, MANEUVER 2
GRANARIES = "Vizier of the Granaries"  # MANEUVER 1
# Edge of the Aegean
KOURAI = "Kourai Khryseai, Golden Maidens"  # 5/3/5  TRIBUTE: may take cost<=3 from discard
PHOENIX = "Phoenix, Tutor of Achilles"  # 2/2/1
# A Reign of War
SPHINX = "Sphinx of Thebes"  # Beast 2/3/3: reveal 4, keep 2
HOPLITE = "Hoplite Recruit"
TRIPOD = "Tripod of the Pythia"


def _slot(key: str) -> dict[str, int]:
    """The rule override of ``key``'s other reading, as the scenario takes it."""
    from sim.base import layout as L

    slot = READING_SWITCHES[key][0]
    name = next(n for n in dir(L) if n.startswith("RU_") and getattr(L, n) == slot)
    return {name: 1}


def _build(mix: str, key: str, other: bool, **kw: Any) -> Scenario:
    kw.setdefault("stacks", {0: [], 1: [], 2: []})
    return Scenario.build(mix, strict=True, rules=_slot(key) if other else None, **kw)


def _all_but(mix: str, keep: list[str]) -> list[str]:
    """Every unit card of ``mix`` except one copy of each of ``keep`` (to empty the deck)."""
    rest = [u["name"] for u in load_pool(mix).units for _ in range(u["copies"])]
    for name in keep:
        rest.remove(name)
    return rest


def test_every_switch_is_a_named_reading_with_both_values(tmp_path) -> None:
    by_switch = {r.switch: r for r in READINGS if r.switch}
    for key, (_, default, other) in READING_SWITCHES.items():
        assert RULE_OPTIONAL[key] == default and other != default
        path = tmp_path / f"{key}.toml"
        value = str(other).lower() if isinstance(other, bool) else f'"{other}"'
        path.write_text(f"[rules]\n{key} = {value}\n")
        assert load_rule_overrides(path) == {key: other}
        reading = by_switch[f"{key} = {value}"]  # the reading that names this switch
        assert reading.key in INTERPRETATIONS


def test_every_reading_cites_rulebook_lines() -> None:
    for r in READINGS:
        assert ".txt, line" in r.lines or ".md, line" in r.lines, r.key
        assert r.default and r.other and r.why, r.key


# --- Dunes, Wealth Step: the repeat after a kept reveal ---------------------------------


@pytest.mark.parametrize("after_miss", [False, True])
def test_reveal_repeat_after_a_kept_card(after_miss: bool) -> None:
    """heir-to-the-dunes.txt, line 100: "If the unit is devoted to their god, they add it to their
    hand ... The player may discard a neutral unit from their hand to repeat this process once."
    Moonlight Channeler (Anubis) is revealed and kept. Default (``reveal_repeat = "always"``):
    the repeat is still offered, so Sunset Marauder buys a second reveal (the Laborer, devoted to
    both, kept too). ``"after_miss"``: nothing is asked and the Laborer stays on the deck."""
    sc = _build(
        "dunes", "reveal_repeat", after_miss, hands={0: [MARAUDER]}, coins=(0, 0),
        deck_top=[CHANNELER, LABORER], favor="horus",
    )  # fmt: skip
    if not after_miss:
        sc.script("reveal", card=MARAUDER)
    sc.script_wealth(0)
    sc.wealth()
    if after_miss:
        assert sorted(sc.hand(0)) == sorted([MARAUDER, CHANNELER]) and sc.discard_pile() == []
        assert sc.deck_top(1) == [LABORER]
    else:
        assert sorted(sc.hand(0)) == sorted([CHANNELER, LABORER])
        assert sc.discard_pile() == [MARAUDER]
    done(sc)


@pytest.mark.parametrize("after_miss", [False, True])
def test_reveal_repeat_after_a_miss_in_both_readings(after_miss: bool) -> None:
    """heir-to-the-dunes.txt, line 100: after a miss (Bearer, devoted to Horus, discarded) both
    readings offer the repeat."""
    sc = _build(
        "dunes", "reveal_repeat", after_miss, hands={0: [MARAUDER]}, coins=(0, 0),
        deck_top=[BEARER, LABORER], favor="horus",
    )  # fmt: skip
    sc.script("reveal", card=MARAUDER)
    sc.script_wealth(0)
    sc.wealth()
    assert sc.hand(0) == [LABORER] and sc.discard_pile() == [BEARER, MARAUDER]
    done(sc)


# --- Dunes, Set Up with the Emissary of War: whose god is Favored -----------------------


@pytest.mark.parametrize("by_age", [False, True])
def test_emissary_favor(by_age: bool) -> None:
    """heir-to-the-dunes.txt, lines 57, 59-61 and 73: "Flip the Favor card to the side matching
    the god of the second player." Seat 0 is the oldest; Grand Vizier (13) makes seat 1 the First
    Player. Default (``emissary_favor = "second_player"``): seat 0, now second, is Favored
    (Anubis). ``"by_age"``: the Favor was set at the standard set-up, for the younger seat 1
    (Horus)."""
    sc = _build(
        "dunes", "emissary_favor", by_age, hands={0: [SERVANT, CHANNELER], 1: [GRAND, BEARER]},
        favor="horus",
    )  # fmt: skip
    sc.script("emissary", card=SERVANT)
    sc.script("emissary", card=GRAND)
    assert sc.emissary(oldest=0) == 1 and sc.active == 1
    assert sc.favor == ("horus" if by_age else "anubis")
    done(sc)


@pytest.mark.parametrize("by_age", [False, True])
def test_emissary_favor_in_a_dealt_game(by_age: bool) -> None:
    """heir-to-the-dunes.txt, lines 57 and 59: the kernel's own set-up with the Emissary on
    agrees with the scenario's: by age, the Favor is the god of the seat that is not the oldest;
    by default, the god of the seat that does not start."""
    from sim.base import layout as L

    rules = {"RU_EMISSARY": 1, **(_slot("emissary_favor") if by_age else {})}
    seen = set()
    for game in range(12):
        sc = Scenario("dunes", rules=rules)
        sc.setup(5, game)
        oldest = int(sc.st[L.OLDEST])
        second = 1 - oldest if by_age else 1 - sc.first
        assert sc.favor == sc.god(second)
        seen.add(sc.first == oldest)
    assert seen == {True, False}  # the Emissary gave the start to the younger seat at least once


# --- Dunes, Vizier: MANEUVER N, up to N or exactly N ------------------------------------


def _maneuver(exact: bool) -> Scenario:
    cities = {0: {0: [SERVANT, CHANNELER]}, 1: {0: [MARAUDER]}, 2: {0: [GRANARIES]}}
    return _build(
        "dunes", "maneuver_count", exact, hands={0: [SCROLLS]}, coins=(4, 4), cities=cities,
        stacks={0: [], 1: ["Was Scepter"], 2: []},
    )  # fmt: skip


@pytest.mark.parametrize("exact", [False, True])
def test_maneuver_count(exact: bool) -> None:
    """heir-to-the-dunes.txt, line 152: "the player may move units equal to the indicated
    number". Vizier of the Scrolls (MANEUVER 2) into city 1, one move made, then stop: the default
    (``maneuver_count = "up_to"``) allows it; ``"exactly"`` offers no stop while a unit can move."""
    sc = _maneuver(exact)
    sc.script("surge", a=D.ACT_PLAY, c=1, d=4, card=SCROLLS)
    sc.script_may(True)
    sc.script("move", a=0, c=1, card=CHANNELER)
    sc.script("move", a=-1)
    sc.script_pass()
    if exact:
        with pytest.raises(ScenarioError, match=NOT_ALLOWED):
            sc.surge()
        return
    sc.surge()
    assert sc.city(0, 0) == [SERVANT] and sc.city(1, 0) == [MARAUDER, SCROLLS, CHANNELER]
    done(sc)


@pytest.mark.parametrize("exact", [False, True])
def test_maneuver_count_both_moves_and_declining(exact: bool) -> None:
    """heir-to-the-dunes.txt, line 152: under both readings MANEUVER may be declined ("may"), and
    two moves are two moves."""
    sc = _maneuver(exact)
    sc.script("surge", a=D.ACT_PLAY, c=1, d=4, card=SCROLLS)
    sc.script_may(True)
    sc.script("move", a=0, c=1, card=CHANNELER)
    sc.script("move", a=1, c=2, card=MARAUDER)
    sc.script_pass()
    sc.surge()
    assert sc.city(1, 0) == [SCROLLS, CHANNELER] and sc.city(2, 0) == [GRANARIES, MARAUDER]
    done(sc)
    sc = _maneuver(exact)
    sc.script("surge", a=D.ACT_PLAY, c=1, d=4, card=SCROLLS)
    sc.script_may(False)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [SERVANT, CHANNELER]
    done(sc)


# --- Aegean, Offering Step: TRIBUTE before or after the offering's draw -----------------


@pytest.mark.parametrize("first", [False, True])
def test_tribute_timing_against_a_reshuffling_draw(first: bool) -> None:
    """edge-of-the-aegean.txt, lines 108 and 138. The deck is empty; the discard pile holds
    Phoenix (cost 2). Kourai Khryseai (offering 3) is offered for 1 card and 2 coins. Default
    (``tribute_timing = "after_gain"``): the draw reshuffles Phoenix and Kourai into a new deck
    and takes one of them, so TRIBUTE finds an empty discard pile. ``"after_discard"``: TRIBUTE
    takes Phoenix first, and the draw reshuffles Kourai alone and draws it (edge-of-the-aegean.txt,
    line 80)."""
    rest = _all_but("aegean", [KOURAI, PHOENIX])
    sc = _build(
        "aegean", "tribute_timing", first, hands={0: [KOURAI], 1: rest}, discard=[PHOENIX],
        coins=(0, 4),
    )  # fmt: skip
    assert sc.deck_size() == 0
    # Scripted choices are taken in order: the TRIBUTE's before or after the split.
    sc.script("offer", card=KOURAI)
    if not first:
        sc.script("split", a=1)
    sc.script_may(True)  # asked in both: the may comes before its targets are looked for
    if first:
        sc.script_target("take", PHOENIX)
        sc.script("split", a=1)
    sc.offering()
    assert sc.coins(0) == 2 and sc.discard_pile() == []
    if first:
        assert sorted(sc.hand(0)) == sorted([PHOENIX, KOURAI]) and sc.deck_size() == 0
    else:
        assert len(sc.hand(0)) == 1 and sc.deck_size() == 1
        assert sorted([*sc.hand(0), *sc.deck_top(1)]) == sorted([PHOENIX, KOURAI])
    done(sc)


# --- Reign (and Dunes): a reveal from an empty deck -------------------------------------


@pytest.mark.parametrize("reshuffles", [True, False])
def test_reveal_from_an_empty_deck(reshuffles: bool) -> None:
    """reign-of-war.en.md, lines 155-156, 168 and 171: Sphinx of Thebes (reveal 4, keep 2) with
    an empty deck and 4 cards in the discard pile. Default (``reveal_reshuffles = true``): the
    pile is reshuffled into a new deck and 4 cards are revealed; ``false``: nothing is revealed
    and the pile stays."""
    pile = [HOPLITE, "Shield Bearer", "Great Eagle", "Seer of Dodona"]
    rest = _all_but("reign", [SPHINX, *pile])
    sc = _build(
        "reign", "reveal_reshuffles", not reshuffles, hands={0: [SPHINX], 1: rest},
        discard=pile, coins=(2, 4),
    )  # fmt: skip
    assert sc.deck_size() == 0
    sc.script_beast(SPHINX)
    if reshuffles:
        sc.script("keep_revealed", card=HOPLITE)
        sc.script("keep_revealed", a=-1)
    sc.script_pass()
    sc.surge()
    if reshuffles:
        assert sc.hand(0) == [HOPLITE] and sc.deck_size() == 0
        assert sorted(sc.discard_pile()) == sorted([*pile[1:], SPHINX])
    else:
        assert sc.hand(0) == [] and sc.deck_size() == 0
        assert sc.discard_pile() == [*pile, SPHINX]
    done(sc)


@pytest.mark.parametrize("reshuffles", [True, False])
def test_dunes_wealth_reveal_from_an_empty_deck(reshuffles: bool) -> None:
    """heir-to-the-dunes.txt, lines 100 and 108: the Wealth reveal with an empty deck and
    Moonlight Channeler alone in the discard pile. Default: reshuffled, revealed and kept;
    ``reveal_reshuffles = false``: nothing is revealed (the draws that follow still reshuffle:
    they are draws)."""
    sc = _build(
        "dunes", "reveal_reshuffles", not reshuffles, hands={1: _all_but("dunes", [CHANNELER])},
        discard=[CHANNELER], coins=(0, 0),
    )  # fmt: skip
    sc.script_wealth(0 if reshuffles else 3)
    sc.wealth()
    assert sc.hand(0) == [CHANNELER] and sc.discard_pile() == []
    assert sc.coins(0) == (4 if reshuffles else 0)
    done(sc)


# --- Dunes, Favor: does a neutral unit flip it? -----------------------------------------


@pytest.mark.parametrize("every_unit", [False, True])
def test_favor_flip_on_a_neutral_unit(every_unit: bool) -> None:
    """heir-to-the-dunes.txt, lines 69, 75 and 133. Temple Servant (neutral; INVOCATION: gain 2
    coins) is played with Anubis, seat 0's god, Favored. Default (``favor_flip = "devoted"``):
    Favor stays, so the INVOCATION resolves; ``"every_unit"`` (line 75 read literally): the
    Servant flips Favor to Horus before its ability, which then does not resolve."""
    sc = _build(
        "dunes", "favor_flip", every_unit, hands={0: [SERVANT]}, coins=(1, 4), favor="anubis"
    )
    sc.script("surge", a=D.ACT_PLAY, c=0, d=1, card=SERVANT)
    sc.script_pass()
    sc.surge()
    assert sc.favor == ("horus" if every_unit else "anubis")
    assert sc.coins(0) == (0 if every_unit else 2)
    done(sc)


# --- Reign, Game end: whose 5 feats ----------------------------------------------------

FEATS = ["Hold the Three Cities", "Voices in Every Temple", "Beasts at Every Gate"]
FEATS += ["Break Their Will", "Fury of War"]


@pytest.mark.parametrize("opponent", [False, True])
@pytest.mark.parametrize("seat", [0, 1])
def test_feats_end(opponent: bool, seat: int) -> None:
    """reign-of-war.en.md, lines 134-137: "when, at the end of the active player's turn, the
    opponent has 5 face-down feat cards." Seat 0 is active. Default (``feats_end =
    "either_player"``): either seat's 5 feats end the game; ``"opponent"``: only seat 1's."""
    stacks = {0: ["Spear of Ares"], 1: ["Chariot of the Dioskouroi"], 2: [TRIPOD]}
    sc = _build("reign", "feats_end", opponent, feats={seat: FEATS}, stacks=stacks)
    sc.end_turn()
    assert sc.over is (seat == 1 or not opponent)
    assert sc.result()["end_reason"] == ("feats_completed" if sc.over else "none")


# --- every set, War Step: whose 3 units make a city war-torn ----------------------------


@pytest.mark.parametrize("either", [False, True])
@pytest.mark.parametrize("mix", ["aegean", "dunes", "reign"])
def test_war_torn_units(either: bool, mix: str) -> None:
    """edge-of-the-aegean.txt, line 120 (heir-to-the-dunes.txt, line 158; reign-of-war.en.md,
    lines 112-113): "A city is war-torn if an opponent has at least 3 units in the city". The
    active seat 0 has 3 units in city 1, seat 1 none. Default (``war_torn_units =
    "opponent"``): not war-torn; ``"either_player"``: war-torn."""
    units = {
        "aegean": ["Eudorus, Swift Runner", "Peisander, Spear of Maimalos", PHOENIX],
        "dunes": [SERVANT, MARAUDER, SERVANT],
        "reign": [HOPLITE] * 3,
    }
    tile = {"aegean": "Lyre of Orpheus", "dunes": "Was Scepter", "reign": TRIPOD}
    cities = {1: {0: units[mix]}}
    sc = _build(mix, "war_torn_units", either, cities=cities)
    assert sc.war_torn(1) is False  # no reward tiles: never war-torn under either reading
    sc = _build(mix, "war_torn_units", either, cities=cities, stacks={0: [], 1: [tile[mix]], 2: []})
    assert sc.war_torn(1) is either


# --- Dunes, Offering Step: where the cards a build puts under a structure come from -----

PYRAMID = "Pyramid of the Jackal"  # build cost 4, 3 VP; completed: gain 3 coins
SEER = "Nomad Seer"


@pytest.mark.parametrize("hand", [False, True])
def test_build_from(hand: bool) -> None:
    """heir-to-the-dunes.txt, line 200: "The unit is revealed and cards equal to the unit's
    strength are placed under the structure" - from where, unsaid. Moonlight Channeler
    (strength 2) builds the Pyramid: default (``build_from = "deck"``) the top 2 cards of the
    deck; ``"hand"`` 2 cards of the player's hand, the player's choice; the deck untouched."""
    top = [GRAND, BEARER, LABORER]
    sc = _build(
        "dunes", "build_from", hand, hands={0: [CHANNELER, SERVANT, MARAUDER, SCROLLS]},
        coins=(0, 4), deck_top=top,
    )  # fmt: skip
    sc.script_build(CHANNELER, PYRAMID)
    if hand:
        sc.script_target("discard", MARAUDER)
        sc.script_target("discard", SCROLLS)
    sc.offering()
    assert sc.under_cards(0) == ([MARAUDER, SCROLLS] if hand else top[:2])
    assert sorted(sc.hand(0)) == sorted([SERVANT] if hand else [SERVANT, MARAUDER, SCROLLS])
    assert sc.deck_top(3 if hand else 1) == (top if hand else top[2:])
    assert sc.discard_pile() == [CHANNELER]
    assert sc.structures(0)[1] == (PYRAMID, 2, False)
    done(sc)


def test_build_from_hand_takes_what_the_hand_holds() -> None:
    """``build_from = "hand"``: a build for more cards than the hand holds tucks the whole hand
    (a mandatory effect does as much as it can, reading ``ability_partial``)."""
    sc = _build("dunes", "build_from", True, hands={0: [SCROLLS, SERVANT]}, coins=(0, 4))
    sc.script_build(SCROLLS, PYRAMID)  # strength 3, one card left in hand
    sc.offering()
    assert sc.under_cards(0) == [SERVANT] and sc.hand(0) == []
    assert sc.structures(0)[1] == (PYRAMID, 1, False)


# --- Dunes, Surge Step: a completed structure's ability, once or every Surge -------------


@pytest.mark.parametrize("each", [False, True])
def test_structure_ability(each: bool) -> None:
    """heir-to-the-dunes.txt, lines 88, 116 and 125: "Flip and resolve completed structures"
    heads every Surge Step. The Pyramid (completed: gain 3 coins) completed on an earlier turn:
    default (``structure_ability = "once"``) nothing; ``"each_surge"`` 3 coins again. Flipped
    this Surge, it resolves once under both readings."""
    sc = _build(
        "dunes", "structure_ability", each, coins=(0, 4), under={0: {PYRAMID: 4}},
        built={0: [PYRAMID]},
    )  # fmt: skip
    sc.surge()
    assert sc.coins(0) == (3 if each else 0)
    sc = _build("dunes", "structure_ability", each, coins=(0, 4), under={0: {PYRAMID: 4}})
    sc.surge()
    assert sc.coins(0) == 3 and sc.structures(0)[1] == (PYRAMID, 4, True)


# --- Dunes, Structures: the cards under a structure once it is completed -----------------


@pytest.mark.parametrize("leave", [False, True])
def test_structure_cards(leave: bool) -> None:
    """heir-to-the-dunes.txt, lines 81, 125 and 204-207: "A player can never have cards under more
    than 1 of their structures at any time." Default (``structure_cards = "stay"``): the 4 cards
    under the Pyramid stay out of the game when it completes; ``"leave"``: they go to the discard
    pile, so the next structure is the only one with cards under it."""
    sc = _build("dunes", "structure_cards", leave, coins=(0, 4), under={0: {PYRAMID: 4}})
    under = sc.under_cards(0)
    assert len(under) == 4
    sc.surge()
    assert sc.coins(0) == 3
    assert sc.under_cards(0) == ([] if leave else under)
    assert sorted(sc.discard_pile()) == (sorted(under) if leave else [])
    assert sc.structures(0)[1] == (PYRAMID, 0 if leave else 4, True)


# --- Dunes, Devotion and Favor: which unit takes the first-devoted-unit discount ---------


@pytest.mark.parametrize("any_devoted", [False, True])
def test_discount_unit(any_devoted: bool) -> None:
    """heir-to-the-dunes.txt, line 88 ("The cost of the first devoted unit played on each turn is
    reduced by 1") against line 135 ("play a unit devoted to their god"). Seat 0 serves Anubis
    and plays Bearer of the Sun Disc (Horus, cost 2): default (``discount_unit = "own_god"``)
    full price; ``"any_devoted"`` 1 coin, and the discount is spent."""
    sc = _build("dunes", "discount_unit", any_devoted, hands={0: [BEARER]}, coins=(4, 4))
    assert sc.god(0) == "anubis"
    sc.script("surge", a=D.ACT_PLAY, c=0, d=1 if any_devoted else 2, card=BEARER)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == (3 if any_devoted else 2)
    done(sc)


# --- A Reign of War: a feat completes in its Feat step or whenever met ------------------

MUSTER = "Muster the Host"  # 5 unit-slots on one side of a city


@pytest.mark.parametrize("each", [False, True])
def test_feat_timing(each: bool) -> None:
    """reign-of-war.en.md, lines 47-49 ("When a player meets the condition on one, they turn it
    face down") against line 108 (4. Feat: "Check your feat cards; turn face down each one whose
    condition you now meet"). The opponent (seat 1) holds 5 units in city 0 during seat 0's turn:
    default (``feat_timing = "feat_step"``) it waits for its own Feat step; ``"each_step"``
    completes it at the end of seat 0's Surge step."""
    units = [HOPLITE] * 5
    sc = _build("reign", "feat_timing", each, cities={0: {1: units}}, coins=(0, 0))
    sc.surge()  # nothing in hand: a forced pass
    assert sc.feats(1) == ([MUSTER] if each else [])
    assert sc.feats(0) == []


# --- A Reign of War: "Reveal the top N cards of the deck; keep M": up to M or exactly M -----

EAGLE = "Great Eagle"
REVEALED = ["Seer of Dodona", EAGLE, "Berserker of Ares", "Quartermaster"]  # the deck's top 4


def _sphinx(exact: bool) -> Scenario:
    sc = _build(
        "reign", "reveal_keep_count", exact, hands={0: [SPHINX]}, deck_top=REVEALED,
        coins=(2, 4),
    )  # fmt: skip
    sc.script_beast(SPHINX)
    return sc


@pytest.mark.parametrize("exact", [False, True])
def test_reveal_keep_count(exact: bool) -> None:
    """reign-of-war.en.md, lines 60-61 (an ability resolves "mandatory unless the text says
    "may"") and line 167 ("A revealed card is discarded unless its text says otherwise").
    Sphinx of Thebes ("Reveal the top 4 cards of the deck; keep 2 and discard the rest"):
    Great Eagle kept, then stop. The default (``reveal_keep_count = "up_to"``) allows it and
    discards the other three; ``"exactly"`` offers no stop while a revealed card is left."""
    sc = _sphinx(exact)
    sc.script("keep_revealed", card=EAGLE)
    sc.script("keep_revealed", a=-1)
    sc.script_pass()
    if exact:
        with pytest.raises(ScenarioError, match=NOT_ALLOWED):
            sc.surge()
        return
    sc.surge()
    assert sc.hand(0) == [EAGLE]
    assert sorted(sc.discard_pile()) == sorted([*REVEALED[:1], *REVEALED[2:], SPHINX])
    done(sc)


@pytest.mark.parametrize("exact", [False, True])
def test_reveal_keep_count_keeps_two_in_both_readings(exact: bool) -> None:
    """reign-of-war.en.md, lines 154-155 and 167: under both readings two cards kept are the
    2 of "keep 2", and nothing more is asked; the other two are discarded."""
    sc = _sphinx(exact)
    sc.script("keep_revealed", card=EAGLE)
    sc.script("keep_revealed", card="Quartermaster")
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == [EAGLE, "Quartermaster"]
    assert sorted(sc.discard_pile()) == sorted([REVEALED[0], REVEALED[2], SPHINX])
    done(sc)


def test_the_docs_show_the_readings_table() -> None:
    from pathlib import Path

    from sim.data.interpretations import readings_table

    docs = Path(__file__).resolve().parents[2] / "docs" / "rules-coverage.md"
    assert readings_table() in docs.read_text(encoding="utf-8"), (
        "docs/rules-coverage.md readings table is stale: paste the output of "
        "`python -c 'from sim.data.interpretations import readings_table as t; print(t())'`"
    )


# --- the readings in force: in every run's manifest, and listed by `omensim cards --readings` ---


def test_cards_readings_lists_each_reading_with_its_lines() -> None:
    result = invoke("cards", "--mix", "dunes", "--readings")
    assert result.exit_code == 0, result.output
    for r in READINGS:
        assert f"{r.key}  [default]" in result.stdout
        assert f"lines: {r.lines}" in result.stdout
    assert "Moonlight Channeler" not in result.stdout  # the readings instead of the cards
    help_text = invoke("cards", "--help").stdout
    assert "--readings" in help_text and "open reading" in help_text


def test_a_run_s_manifest_records_the_readings_in_force(tmp_path) -> None:
    import json

    rules = tmp_path / "r.toml"
    rules.write_text('[rules]\nstructure_cards = "leave"\nbuild_from = "hand"\n')
    out = tmp_path / "run"
    result = invoke(
        "run", "--games", "20", "--mix", "dunes", "--rules", str(rules), "--out", str(out), "-q"
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "_manifest.json").read_text())
    force = json.loads(manifest["metadata"]["readings"])
    assert set(force) == {r.key for r in READINGS}
    assert force["structure_cards"] == 'other: structure_cards = "leave"'
    assert force["build_from"] == 'other: build_from = "hand"'
    assert force["structure_ability"] == "default"
