"""Drawing, revealing and the discard pile, in every book; LABOR against the discard pile;
the turn's steps when sets are combined.

Most positions empty the deck (every other card in the opponent's hand), so what a
reshuffle would do, or must not do, shows.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import done

from sim.data.cards import load_pool
from sim.kernel import decisions as D
from sim.run.scenario import Scenario

# A Reign of War (configs/sets/reign.toml): cost/offering/strength
HOPLITE = "Hoplite Recruit"  # Soldier 1/2/1: gain 1 coin
SHIELD = "Shield Bearer"  # Soldier 2/2/2: draw 1
EAGLE = "Great Eagle"  # Beast 2/2/4
SEER = "Seer of Dodona"  # Oracle 4/1/2
ROBBER = "Grave Robber"  # Soldier 2/2/1: take 1 unit with cost <= 3 from the discard pile
AUGUR = "Temple Augur"  # Oracle 2/2/1: gain 1 coin (Portent)
TRIPOD = "Tripod of the Pythia"  # reward: reveal 4, keep 2, discard the rest; take cost <= 3
# Heir to the Dunes
SCRIBE = "Mummified Scribe"  # Embalmed 2/2/2, LABOR: draw 1
ARCHITECT = "Embalmed Architect"  # Embalmed 3/1/3, LABOR: top card of the deck under
SHRINE = "Shrine of the Embalmers"
TOMB_ROBBER = "Tomb Robber"  # Initiate 2/2/2, INVOCATION: take cost <= 4 from the discard
CHANNELER = "Moonlight Channeler"  # Follower (Anubis) 2/3/2
SERVANT = "Temple Servant"  # Initiate 1/2/1
MARAUDER = "Sunset Marauder"  # Initiate 2/2/1
SEER_D = "Nomad Seer"  # Initiate 3/2/2
# Edge of the Aegean
EUDORUS = "Eudorus, Swift Runner"


def _all_but(mix: str, keep: list[str]) -> list[str]:
    """Every unit card of ``mix`` but one copy of each of ``keep``: a hand that empties the deck."""
    rest = [u["name"] for u in load_pool(mix).units for _ in range(u["copies"])]
    for name in keep:
        rest.remove(name)
    return rest


def _build(mix: str, **kw: Any) -> Scenario:
    kw.setdefault("stacks", {0: [], 1: [], 2: []})
    return Scenario.build(mix, strict=True, **kw)


# --- A Reign of War, Other rules: Drawing ------------------------------------------


def test_reign_draw_from_an_empty_deck_reshuffles_the_discard_pile() -> None:
    """ "A player who must draw from an empty deck shuffles the discard pile into a new deck"
    and "When the unit deck runs out, shuffle the discard pile into a new deck."
    (reign-of-war.en.md, lines 155-156 and 171.) Wealth: all 3 actions on cards, 4 draws, from a
    discard pile of 5 reshuffled; the fifth card is the new deck."""
    pile = [HOPLITE, SHIELD, EAGLE, SEER, AUGUR]
    sc = _build("reign", hands={1: _all_but("reign", pile)}, discard=pile, coins=(0, 4))
    assert sc.deck_size() == 0
    sc.script_wealth(3)
    sc.wealth()
    assert len(sc.hand(0)) == 4 and sc.discard_pile() == [] and sc.deck_size() == 1
    assert sorted([*sc.hand(0), *sc.deck_top(1)]) == sorted(pile)
    done(sc)


def test_reign_taking_from_the_discard_pile_is_not_drawing() -> None:
    """ "Taking a revealed card into hand, or taking a card from the discard pile into hand, is
    not 'drawing'." (reign-of-war.en.md, lines 168-169.) Grave Robber takes Shield Bearer from
    a discard pile under an empty deck: the pile is not reshuffled (a draw would reshuffle it),
    and the card taken need not be the top one."""
    pile = [SHIELD, HOPLITE]
    rest = _all_but("reign", [ROBBER, *pile])
    sc = _build("reign", hands={0: [ROBBER], 1: rest}, discard=pile, coins=(2, 4))
    sc.script_play(ROBBER, city=0)
    sc.script_target("take", SHIELD)
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == [SHIELD] and sc.discard_pile() == [HOPLITE] and sc.deck_size() == 0
    done(sc)


def test_reign_kept_reveals_are_not_draws_and_the_rest_is_discarded_first() -> None:
    """Tripod of the Pythia: "Reveal the top 4 cards of the deck; keep 2 and discard the rest.
    Take 1 unit with cost 3 or less from the discard pile into your hand." "A revealed card is
    discarded unless its text says otherwise" (reign-of-war.en.md, lines 154-155, 167-169): the
    two not kept are in the discard pile before the take, so the take may pick one of them; the
    deck loses exactly the 4 revealed."""
    top4 = [SEER, EAGLE, SHIELD, HOPLITE]
    sc = _build("reign", rewards={0: [(TRIPOD, False)]}, deck_top=top4, coins=(0, 4))
    deck = sc.deck_size()
    sc.script_use_reward(TRIPOD)
    sc.script("keep_revealed", card=SEER)
    sc.script("keep_revealed", card=EAGLE)
    sc.script_target("take", SHIELD)
    sc.script_pass()
    sc.surge()
    assert sorted(sc.hand(0)) == sorted([SEER, EAGLE, SHIELD])
    assert sc.discard_pile() == [HOPLITE] and sc.deck_size() == deck - 4
    done(sc)


# --- Heir to the Dunes: the reveal, the discard pile and LABOR ----------------------


def test_dunes_taking_from_the_discard_pile_is_not_drawing() -> None:
    """heir-to-the-dunes.txt, lines 108 and 151: only a draw reshuffles ("If a player would draw
    a card but the deck has no cards"). Tomb Robber's INVOCATION (Anubis Favored) takes Nomad
    Seer from the discard pile under an empty deck; the rest of the pile stays."""
    pile = [SEER_D, SERVANT]
    rest = _all_but("dunes", [TOMB_ROBBER, *pile])
    sc = _build(
        "dunes", hands={0: [TOMB_ROBBER], 1: rest}, discard=pile, coins=(2, 4), favor="anubis"
    )
    sc.script("surge", a=D.ACT_PLAY, c=0, d=2, card=TOMB_ROBBER)
    sc.script_target("take", SEER_D)
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == [SEER_D] and sc.discard_pile() == [SERVANT] and sc.deck_size() == 0
    done(sc)


def test_dunes_revealed_card_kept_is_not_a_wealth_draw() -> None:
    """heir-to-the-dunes.txt, lines 87 and 100: "Reveal the top card of the deck. If the revealed
    card is devoted to the active player's god, they add it to their hand. Draw cards and gain
    coins." The kept reveal is no Wealth action: all 3 actions on cards still draw 4 more."""
    top = [CHANNELER, SERVANT, MARAUDER, SEER_D, SCRIBE]
    sc = _build("dunes", deck_top=top, coins=(0, 0), favor="horus")
    sc.script_wealth(3)
    sc.wealth()
    assert sorted(sc.hand(0)) == sorted(top) and sc.discard_pile() == []
    done(sc)


def test_labor_draw_reshuffles_the_discard_pile_without_the_revealed_unit() -> None:
    """heir-to-the-dunes.txt, lines 149 and 200: the player "resolves its LABOR ability before
    placing it in the discard pile". Mummified Scribe (strength 2; LABOR: draw 1) builds with
    exactly 2 cards left in the deck: they go under the Shrine, LABOR's draw finds the deck empty
    and reshuffles the discard pile (Temple Servant alone: the Scribe is not in it yet), and only
    then does the Scribe go on top of the discard pile (line 108)."""
    under = [CHANNELER, MARAUDER]
    rest = _all_but("dunes", [SCRIBE, SERVANT, *under])
    sc = _build(
        "dunes", hands={0: [SCRIBE], 1: rest}, deck_top=under, discard=[SERVANT], coins=(0, 4)
    )
    assert sc.deck_size() == 2
    sc.script_build(SCRIBE, SHRINE)
    sc.offering()
    assert sc.under_cards(0) == under
    assert sc.hand(0) == [SERVANT] and sc.discard_pile() == [SCRIBE] and sc.deck_size() == 0
    done(sc)


def test_labor_under_the_structure_reshuffles_without_the_revealed_unit() -> None:
    """heir-to-the-dunes.txt, lines 149 and 200: Embalmed Architect (strength 3; LABOR: place the
    top card of the deck under the structure you are building) with exactly 3 cards in the deck:
    the LABOR's card comes from the reshuffled discard pile (Temple Servant), never the Architect
    itself, which goes on top of the discard pile last."""
    under = [CHANNELER, MARAUDER, SEER_D]
    rest = _all_but("dunes", [ARCHITECT, SERVANT, *under])
    sc = _build(
        "dunes", hands={0: [ARCHITECT], 1: rest}, deck_top=under, discard=[SERVANT], coins=(0, 4)
    )
    sc.script_build(ARCHITECT, SHRINE)
    sc.offering()
    assert sc.under_cards(0) == [*under, SERVANT]
    assert sc.discard_pile() == [ARCHITECT] and sc.deck_size() == 0 and sc.hand(0) == []
    done(sc)


# --- Combining sets: Reign's steps join the turn ------------------------------------


@pytest.mark.parametrize("mix", ["aegean+reign", "dunes+reign"])
def test_reign_steps_join_a_combined_turn(mix: str) -> None:
    """edge-of-the-aegean.txt, line 161 and heir-to-the-dunes.txt, line 239: "if using Oracle
    units and the Feat cards from Omen: A Reign of War ... players would need to add the Portent
    Step and Feat Step into the structure of a turn." With the Aegean or Dunes base the turn has
    Reign's six steps (reign-of-war.en.md, lines 68-69), and an Oracle resolves in its owner's
    Portent step (edge-of-the-aegean.txt, lines 55-60)."""
    base = mix.split("+")[0]
    assert [s.name for s in Scenario(base).turn_steps()] == ["wealth", "surge", "war", "offering"]
    steps = [s.name for s in Scenario(mix).turn_steps()]
    assert steps == ["wealth", "surge", "portent", "feat", "war", "offering"]
    sc = _build(mix, cities={0: {0: [AUGUR]}}, coins=(0, 4))
    sc.portent()
    assert sc.coins(0) == 1
    done(sc)
