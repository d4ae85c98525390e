"""Omen: Edge of the Aegean, rule by rule: one scenario per rule of the rulebook.

Every test cites the rulebook (``edge-of-the-aegean.txt``)
or the documented reading (``sim/data/interpretations.py``) it checks, builds a
position with the Scenario API and asserts exact cards and numbers.

Positions are built ``strict``: no bot answers for either seat, so every
decision with more than one legal option is scripted here and a test never
depends on a bot's taste. A scripted choice the rules do not allow raises
:class:`ScenarioError`, which is how "not offered" rules are checked.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import done
from invariants import check_invariants

from sim.data.spec import RunSpec, SpecError
from sim.kernel import decisions as D
from sim.run.engine import Engine
from sim.run.scenario import Scenario, ScenarioError
from sim.run.view import StateView, new_state

# --- card names (configs/sets/aegean.toml) -----------------------------------------
# Myrmidons (RALLY)
EUDORUS = "Eudorus, Swift Runner"  # 2/1/2  RALLY 1: gain 2 coins
PEISANDER = "Peisander, Spear of Maimalos"  # 2/2/2  RALLY 2: draw 2
MENESTHIUS = "Menesthius, Son of the River"  # 3/1/3  RALLY 2: destroy enemy <=2 here
ALCIMEDON = "Alcimedon the Charioteer"  # 1/2/1  RALLY 1: may move 1 unit from here
PHOENIX = "Phoenix, Tutor of Achilles"  # 2/2/1  RALLY 2: 1 coin per own unit here
PATROCLUS = "Patroclus in Borrowed Armor"  # 4/1/4  RALLY 3: return enemy <=3 here
# Automatons (COLOSSAL, TRIBUTE)
TALOS = "Talos, Bronze Guardian of Crete"  # 6/2/6  may destroy enemy <=3 any city
KHALKO = "Khalkotauroi, Bulls of Aeetes"  # 4/2/4  may take up to 2 coins
KOURAI = "Kourai Khryseai, Golden Maidens"  # 5/3/5  may take cost<=3 from discard
HOUND = "Golden Hound of Crete"  # 3/3/4  may have opponent discard 1
EAGLE = "Bronze Eagle of the Caucasus"  # 5/1/5  if >=2 rewards, may gain VP token
# Keres (end of Surge, EXALT)
KER_BATTLE = "Ker of the Battlefield"  # 3/1/3  destroy enemy <=2 other city; enemy>=3 here
KER_PLAGUE = "Ker of the Plague Winds"  # 2/2/1  opponent discards 1; hand <= 1
KER_PYRE = "Ker of the Funeral Pyre"  # 2/2/1  draw 1; own units here >= 4
KER_SPOILS = "Ker of the Spoils"  # 2/2/2  take up to 1 coin; coins >= 8
KER_SHIELD = "Ker of the Shield Wall"  # 3/1/3  +2 coins if enemy here; another Keres here
KER_FALLEN = "Ker of the Fallen City"  # 4/1/1  opponent loses up to 2; city has no tiles
# Moirai (TREASURED, ongoing)
CLOTHO = "Clotho the Spinner"  # 2/2/1  plays here cost 1 less while tiles here
LACHESIS = "Lachesis the Allotter"  # 3/2/2  other own units here +1
ATROPOS = "Atropos the Unturning"  # 3/1/2  +3 while enemy >= 3 here
AISA = "Aisa the Portion"  # 2/4/1  plays cost 1 less while coins <= 3
ANANKE = "Ananke, Mother of Fates"  # 4/1/2  all own here +1 while own >= 3 here
ALL_UNITS = [
    EUDORUS, PEISANDER, MENESTHIUS, ALCIMEDON, PHOENIX, PATROCLUS,
    TALOS, KHALKO, KOURAI, HOUND, EAGLE,
    KER_BATTLE, KER_PLAGUE, KER_PYRE, KER_SPOILS, KER_SHIELD, KER_FALLEN,
    CLOTHO, LACHESIS, ATROPOS, AISA, ANANKE,
]  # fmt: skip

# Reward tiles
THUNDER = "Thunderbolt of Zeus"  # destroy enemy <=4 any city
SANDALS = "Winged Sandals of Hermes"  # move up to 2 of your units
HORN = "Horn of Amaltheia"  # gain 3 coins; if hand <= 2 draw 2
HELM = "Helm of Hades"  # return an enemy unit to its owner's hand
PITHOS = "Pithos of Pandora"  # opponent discards 1 and loses up to 2 coins
LYRE = "Lyre of Orpheus"  # take 1 unit from the discard pile
ALL_TILES = [THUNDER, SANDALS, HORN, HELM, PITHOS, LYRE]

# Three filler units with no cost effect, no RALLY and no end-of-Surge ability.
FILLER = [LACHESIS, ATROPOS, ANANKE]


# A scripted choice the rules do not offer (not a missing script: strict raises differently).
NOT_ALLOWED = "matched no legal option"


def build(mix: str = "aegean", **kw: Any) -> Scenario:
    """A strict Aegean position (or one of ``mix``); by default one (unused-by-the-test) tile
    per city."""
    kw.setdefault("stacks", {0: [PITHOS], 1: [LYRE], 2: [SANDALS]})
    return Scenario.build(mix, strict=True, **kw)


# =============================================================================
# Setup
# =============================================================================


@pytest.mark.parametrize(("seed", "game"), [(1, 0), (7, 3), (2024, 11)])
def test_setup_deals_tiles_cards_and_coins(seed: int, game: int) -> None:
    """Aegean rulebook, Setup 2, 4, 5, 7: "place 2 facedown on each of the three designated
    spaces" ... "Each player draws 4 cards from the deck and takes 4 coins from the supply".
    The unit cards form the deck the hands are drawn from (edge-of-the-aegean.txt, line 37)."""
    # Checks edge-of-the-aegean.txt, lines 35, 40.
    sc = Scenario.from_game("aegean", seed, game, strict=True)
    assert [len(sc.stack(c)) for c in range(3)] == [2, 2, 2]
    assert sorted(t for c in range(3) for t in sc.stack(c)) == sorted(ALL_TILES)
    assert len(sc.hand(0)) == len(sc.hand(1)) == 4
    assert len(set(sc.hand(0) + sc.hand(1))) == 8
    assert sc.coins(0) == sc.coins(1) == 4
    assert sc.supply == 20 - 8
    assert sc.deck_size() == 22 - 8
    assert sc.discard_pile() == []
    assert all(sc.city(c, p) == [] for c in range(3) for p in range(2))
    assert sc.rewards(0) == sc.rewards(1) == []
    assert sc.vp_tokens(0) == sc.vp_tokens(1) == 0
    assert sc.vp_supply == 6
    assert sc.turns_done == 0
    assert not sc.over


@pytest.mark.parametrize(
    ("first", "game", "seat"),
    [("p0", 0, 0), ("p0", 1, 0), ("p1", 0, 1), ("alternate", 4, 0), ("alternate", 5, 1)],
)
def test_setup_oldest_player_takes_first_turn(first: str, game: int, seat: int) -> None:
    """Aegean rulebook, Setup: "The game begins with the oldest player taking the first turn."
    Reading ``oldest_player``: the oldest player is the seat named by --first."""
    # Checks edge-of-the-aegean.txt, line 43.
    sc = Scenario.from_game("aegean", 3, game, first=first, strict=True)
    assert sc.active == seat
    assert sc.first == seat


# =============================================================================
# Emissary of War variant
# =============================================================================


def test_emissary_greatest_value_goes_first_and_is_discarded() -> None:
    """Aegean rulebook, Emissary of War Variant: "The player whose Emissary has the greatest
    combined value is the First Player ... The First Player moves their Emissary card to the
    discard pile. The other player returns his Emissary to their hand." """
    # Checks edge-of-the-aegean.txt, lines 47, 49.
    sc = build(hands={0: [EUDORUS, CLOTHO], 1: [ALCIMEDON, TALOS]})
    sc.script("emissary", card=EUDORUS)  # 2 + 1 + 2 = 5
    sc.script("emissary", card=TALOS)  # 6 + 2 + 6 = 14
    assert sc.emissary(oldest=0) == 1
    assert sc.active == 1 and sc.first == 1
    assert sc.discard_pile() == [TALOS]
    assert sc.hand(1) == [ALCIMEDON]
    assert sorted(sc.hand(0)) == sorted([EUDORUS, CLOTHO])
    done(sc)


@pytest.mark.parametrize("oldest", [0, 1])
def test_emissary_value_tie_goes_to_highest_strength(oldest: int) -> None:
    """Aegean rulebook, Emissary of War Variant: "In the event of a tie, the Emissary with the
    highest Strength value breaks the tie." """
    # Checks edge-of-the-aegean.txt, line 47.
    # Phoenix 2 + 2 + 1 = 5 (Strength 1); Eudorus 2 + 1 + 2 = 5 (Strength 2).
    sc = build(hands={0: [PHOENIX], 1: [EUDORUS]})
    assert sc.emissary(oldest=oldest) == 1
    assert sc.discard_pile() == [EUDORUS]
    assert sc.hand(0) == [PHOENIX]
    assert sc.hand(1) == []


@pytest.mark.parametrize("oldest", [0, 1])
def test_emissary_full_tie_goes_to_oldest_player(oldest: int) -> None:
    """Aegean rulebook, Emissary of War Variant: "If a tie still exists, the oldest player is
    the First Player." """
    # Checks edge-of-the-aegean.txt, line 47.
    # Khalkotauroi 4 + 2 + 4 = 10 (Strength 4); Golden Hound 3 + 3 + 4 = 10 (Strength 4).
    sc = build(hands={0: [KHALKO], 1: [HOUND]})
    assert sc.emissary(oldest=oldest) == oldest
    assert sc.discard_pile() == [[KHALKO, HOUND][oldest]]
    assert sc.hand(1 - oldest) == [[KHALKO, HOUND][1 - oldest]]


# =============================================================================
# Wealth Step
# =============================================================================

TOP4 = [KER_BATTLE, KER_FALLEN, EAGLE, PATROCLUS]  # deck top in draw tests


def test_wealth_all_cards_draws_four() -> None:
    """Aegean rulebook, Wealth Step: "If the active player uses all of their Wealth actions to
    draw cards, they draw 1 additional card." The rulebook's worked example: "the active player
    elects to use all 3 of their Wealth actions to draw cards. The player would draw an
    additional card (4 cards total) as a result of the Wealth Action Bonus." """
    # Checks edge-of-the-aegean.txt, lines 74, 78.
    sc = build(hands={0: [EUDORUS]}, coins=(2, 4), deck_top=TOP4)
    sc.script_wealth(3)
    sc.wealth()
    assert sorted(sc.hand(0)) == sorted([EUDORUS, *TOP4])
    assert sc.coins(0) == 2 and sc.supply == 14
    done(sc)


@pytest.mark.parametrize("second", [0, 3])
def test_wealth_actions_are_all_chosen_before_any_is_taken(second: int) -> None:
    """Aegean rulebook, Wealth Step NOTE: "A player must decide how all of their Wealth actions
    will be spent prior to taking any coins or cards." The step asks one question, how many of
    the 3 actions draw, and then takes everything: a second choice after seeing the first card
    is never asked (the second scripted answer is left unused), and the bonus follows the one
    decision (1 card and 2 coins: no bonus)."""
    # Checks edge-of-the-aegean.txt, line 76.
    sc = build(coins=(0, 4), deck_top=TOP4)
    sc.script_wealth(1)
    sc.script_wealth(second)
    sc.wealth()
    assert sc.script_left() == 1
    assert sc.hand(0) == TOP4[:1] and sc.coins(0) == 2


def test_wealth_all_coins_gains_four() -> None:
    """Aegean rulebook, Wealth Step: "If the active player uses all of their Wealth actions to
    gain coins, they gain 1 additional coin." """
    # Checks edge-of-the-aegean.txt, line 74.
    sc = build(hands={0: [EUDORUS]}, coins=(2, 4), deck_top=TOP4)
    sc.script_wealth(0)
    sc.wealth()
    assert sc.hand(0) == [EUDORUS]
    assert sc.coins(0) == 6 and sc.supply == 10
    assert sc.deck_top(4) == TOP4


@pytest.mark.parametrize(("cards", "coins"), [(2, 1), (1, 2)])
def test_wealth_mixed_actions_no_bonus(cards: int, coins: int) -> None:
    """Aegean rulebook, Wealth Step: "the active player may use 2 of their Wealth actions to
    draw 2 cards and spend 1 of their Wealth actions to gain 1 coin" (no Wealth Action Bonus
    unless all actions are the same), and "all Wealth actions must be chosen prior to taking any
    Coins or cards"."""
    # Checks edge-of-the-aegean.txt, lines 70, 72.
    sc = build(hands={0: [EUDORUS]}, coins=(2, 4), deck_top=TOP4)
    sc.script_wealth(cards)  # one decision for all three actions (strict: no other asked)
    sc.wealth()
    assert sorted(sc.hand(0)) == sorted([EUDORUS, *TOP4[:cards]])
    assert sc.coins(0) == 2 + coins and sc.supply == 14 - coins
    assert sc.deck_top(4 - cards) == TOP4[cards:]
    done(sc)


def test_wealth_only_three_actions() -> None:
    """Aegean rulebook, Wealth Step: "The active player has 3 Wealth actions to spend during
    their Wealth Step." """
    # Checks edge-of-the-aegean.txt, line 70.
    sc = build(deck_top=TOP4)
    sc.script_wealth(4)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.wealth()


@pytest.mark.parametrize(("cards", "d_hand", "d_coins"), [(2, 3, 0), (0, 0, 3), (1, 1, 1)])
def test_wealth_first_player_first_turn_two_actions_with_bonus(
    cards: int, d_hand: int, d_coins: int
) -> None:
    """Aegean rulebook, Wealth Step NOTE: "On the first turn of the game, the First Player
    receives 2 Wealth actions instead of 3. The player still receives a Wealth Action Bonus if
    all Wealth actions are used for the same action." """
    # Checks edge-of-the-aegean.txt, line 84.
    sc = build(coins=(4, 4), deck_top=TOP4, turn=0)
    sc.script_wealth(cards)
    sc.wealth()
    assert sorted(sc.hand(0)) == sorted(TOP4[:d_hand])
    assert sc.coins(0) == 4 + d_coins


def test_wealth_first_turn_has_no_third_action() -> None:
    """Aegean rulebook, Wealth Step NOTE: "the First Player receives 2 Wealth actions instead
    of 3"."""
    # Checks edge-of-the-aegean.txt, line 84.
    sc = build(deck_top=TOP4, turn=0)
    sc.script_wealth(3)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.wealth()


def test_wealth_second_player_first_turn_has_three_actions() -> None:
    """Aegean rulebook, Wealth Step NOTE: only "the First Player" has 2 Wealth actions on the
    first turn of the game; the second player's first turn (turn counter 1) has 3."""
    sc = build(active=1, turn=1, hands={1: [EUDORUS]}, deck_top=TOP4)
    sc.script_wealth(3)
    sc.wealth()
    assert sorted(sc.hand(1)) == sorted([EUDORUS, *TOP4])


def test_wealth_coins_capped_by_supply() -> None:
    """Aegean rulebook, Wealth Step: "No player can gain more coins than are available in the
    supply." """
    # Checks edge-of-the-aegean.txt, line 82.
    sc = build(coins=(5, 4), supply=2)
    sc.script_wealth(0)
    sc.wealth()
    assert sc.coins(0) == 7 and sc.supply == 0


# =============================================================================
# Deck and discard pile
# =============================================================================


def _exhausted_deck(discard: list[str], deck: list[str]) -> Scenario:
    """A position whose deck holds only ``deck``: every other card is named somewhere."""
    rest = [u for u in ALL_UNITS if u not in discard and u not in deck]
    return build(hands={0: [], 1: rest}, discard=discard)


def test_draw_reshuffles_discard_when_deck_runs_out() -> None:
    """Aegean rulebook, Wealth Step: "If a player would draw a card but the deck has no cards,
    shuffle the discard pile and place it facedown ... and draw from the newly shuffled deck." """
    # Checks edge-of-the-aegean.txt, line 80.
    discard = [PEISANDER, PHOENIX, CLOTHO]
    sc = _exhausted_deck(discard, deck=[KER_SPOILS])
    assert sc.deck_size() == 1 and sc.deck_top(1) == [KER_SPOILS]
    sc.script_wealth(3)
    sc.wealth()
    assert sorted(sc.hand(0)) == sorted([KER_SPOILS, *discard])
    assert sc.deck_size() == 0 and sc.discard_pile() == []


def test_draw_reshuffle_leaves_rest_in_new_deck() -> None:
    """Aegean rulebook, Wealth Step: the shuffled discard pile becomes the deck ("place it
    facedown in the designated space"), so what is not drawn stays in the deck."""
    # Checks edge-of-the-aegean.txt, line 80.
    discard = [PEISANDER, PHOENIX, CLOTHO, KER_SPOILS, AISA, EUDORUS]
    sc = _exhausted_deck(discard, deck=[])
    assert sc.deck_size() == 0
    sc.script_wealth(3)
    sc.wealth()
    assert len(sc.hand(0)) == 4 and set(sc.hand(0)) <= set(discard)
    assert sc.deck_size() == 2 and sc.discard_pile() == []
    assert sorted(sc.hand(0) + sc.deck_top(2)) == sorted(discard)


def test_draw_from_empty_deck_and_discard_draws_nothing() -> None:
    """Reading ``ability_partial``: with an empty deck and discard pile a draw does as much as it
    can (nothing); the Wealth Step still completes."""
    sc = _exhausted_deck([], deck=[])
    sc.script_wealth(3)
    sc.wealth()
    assert sc.hand(0) == [] and sc.coins(0) == 4


# =============================================================================
# Surge Step: playing units
# =============================================================================


def test_surge_play_pays_cost_to_supply() -> None:
    """Aegean rulebook, Surge Step: "The active player pays the needed coins, returning the
    spent coins to the supply, and adds the unit to their side of the play area"."""
    # Checks edge-of-the-aegean.txt, line 94.
    sc = build(hands={0: [LACHESIS]}, coins=(5, 4))
    assert sc.supply == 11
    sc.script_play(LACHESIS, city=1)
    sc.script_pass()
    sc.surge()
    assert sc.city(1, 0) == [LACHESIS] and sc.hand(0) == []
    assert sc.coins(0) == 2 and sc.supply == 14
    done(sc)


@pytest.mark.parametrize("city", [0, 1, 2])
def test_surge_play_into_any_city(city: int) -> None:
    """Aegean rulebook, Surge Step: "into any city of their choice"; War Step NOTE: "A player
    may choose to play units into a city with no Reward tiles"."""
    # Checks edge-of-the-aegean.txt, lines 96, 124.
    sc = build(hands={0: [LACHESIS]}, coins=(3, 4), stacks={0: [HELM], 1: [THUNDER], 2: []})
    sc.script_play(LACHESIS, city=city)
    sc.script_pass()
    sc.surge()
    assert sc.city(city, 0) == [LACHESIS]
    assert sc.coins(0) == 0


def test_surge_play_as_many_as_affordable() -> None:
    """Aegean rulebook, Surge Step: "The active player may play as many units as they wish from
    their hand ... as long as all costs can be paid." """
    # Checks edge-of-the-aegean.txt, line 96.
    sc = build(hands={0: [LACHESIS, ATROPOS, ANANKE]}, coins=(7, 4))
    sc.script_play(LACHESIS, city=0)
    sc.script_play(ATROPOS, city=1)
    sc.script_play(ANANKE, city=2)  # costs 4, 1 coin left: not offered
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    assert sc.city(0, 0) == [LACHESIS] and sc.city(1, 0) == [ATROPOS]
    assert sc.hand(0) == [ANANKE] and sc.coins(0) == 1


def test_surge_capacity_five_units() -> None:
    """Aegean rulebook, Surge Step: "a player can never have more than 5 units on their side of
    a given city." """
    # Checks edge-of-the-aegean.txt, line 96.
    five = [EUDORUS, PEISANDER, MENESTHIUS, PHOENIX, PATROCLUS]
    sc = build(hands={0: [LACHESIS]}, coins=(3, 4), cities={0: {0: five}})
    sc.script_play(LACHESIS, city=0)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    assert sc.city(0, 0) == five and sc.hand(0) == [LACHESIS] and sc.coins(0) == 3


def test_surge_capacity_colossal_counts_two() -> None:
    """Aegean rulebook, Surge Step: "COLOSSAL units (Automatons) count as 2 units" for city
    capacity: Talos + 2 units fill 4 of 5, so a second Automaton does not fit."""
    # Checks edge-of-the-aegean.txt, line 96.
    sc = build(hands={0: [KHALKO]}, coins=(4, 4), cities={0: {0: [TALOS, LACHESIS, ATROPOS]}})
    sc.script_play(KHALKO, city=0)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    assert sc.city(0, 0) == [TALOS, LACHESIS, ATROPOS]
    # ... but it fits next to 3 single units (3 + 2 = 5).
    sc = build(hands={0: [KHALKO]}, coins=(4, 4), cities={0: {0: FILLER}})
    sc.script_play(KHALKO, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [*FILLER, KHALKO]
    done(sc)


def test_surge_capacity_single_unit_fills_last_slot_beside_colossal() -> None:
    """Aegean rulebook, Surge Step: "Keres, Moirai, and Myrmidons count as 1 unit each":
    Talos + 2 units = 4, so one more single unit fits (5) and then nothing does."""
    # Checks edge-of-the-aegean.txt, line 96.
    sc = build(
        hands={0: [ANANKE, CLOTHO]}, coins=(8, 4), cities={0: {0: [TALOS, LACHESIS, ATROPOS]}}
    )
    sc.script_play(ANANKE, city=0)
    sc.script_play(CLOTHO, city=0)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    assert sc.city(0, 0) == [TALOS, LACHESIS, ATROPOS, ANANKE]
    assert sc.hand(0) == [CLOTHO]


def test_surge_cannot_play_unaffordable_unit() -> None:
    """Aegean rulebook, Surge Step: "Unit Cost: Amount of coins required to play the unit to a
    city." """
    # Checks edge-of-the-aegean.txt, line 90.
    sc = build(hands={0: [LACHESIS]}, coins=(2, 4))
    sc.script_play(LACHESIS, city=0)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    assert sc.hand(0) == [LACHESIS] and sc.coins(0) == 2


def test_surge_only_cards_in_hand() -> None:
    """Aegean rulebook, Surge Step: "the active player spends coins to play Unit cards from
    their hand"."""
    # Checks edge-of-the-aegean.txt, line 88.
    sc = build(hands={0: [LACHESIS]}, coins=(9, 4))
    sc.script_play(ANANKE, city=0)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


# =============================================================================
# Surge Step: Reward tiles
# =============================================================================


def test_reward_tile_use_flips_it_and_resolves() -> None:
    """Aegean rulebook, Surge Step: "they flip the Reward tile in their play area faceup and
    resolve the ability ... using their abilities reduces the VP value of the tile from 2VP to
    1VP." (Horn of Amaltheia: gain 3 coins; with 2 or fewer cards in hand, draw 2.)"""
    # Checks edge-of-the-aegean.txt, line 98.
    sc = build(hands={0: [EUDORUS]}, coins=(1, 4), rewards={0: [(HORN, False)]}, deck_top=TOP4)
    assert sc.result()["score_p0"] == 2
    sc.script_use_reward(HORN)
    sc.script_pass()
    sc.surge()
    assert sc.rewards(0) == [(HORN, True)]
    assert sc.coins(0) == 4
    assert sorted(sc.hand(0)) == sorted([EUDORUS, *TOP4[:2]])
    assert sc.result()["score_p0"] == 1
    done(sc)


def test_reward_tile_once_per_surge() -> None:
    """Aegean rulebook, Surge Step: "once per Surge Step, the active player may use 1 of the
    Reward tiles they have earned." """
    # Checks edge-of-the-aegean.txt, line 98.
    sc = build(coins=(1, 4), rewards={0: [(HORN, False), (PITHOS, False)]}, stacks={})
    sc.script_use_reward(HORN)
    sc.script_use_reward(PITHOS)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    assert sc.rewards(0) == [(HORN, True), (PITHOS, False)]


def test_reward_tile_used_cannot_be_used_again() -> None:
    """Aegean rulebook, Surge Step: "Once a tile has been used it cannot be used again." """
    # Checks edge-of-the-aegean.txt, line 102.
    sc = build(coins=(1, 4), rewards={0: [(HORN, True)]}, stacks={})
    sc.script_use_reward(HORN)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    assert sc.coins(0) == 1


def test_reward_tile_usable_again_next_surge_once_per_step() -> None:
    """Aegean rulebook, Surge Step: "once per Surge Step": the limit resets each Surge Step."""
    sc = build(coins=(1, 4), rewards={0: [(HORN, True), (PITHOS, False)]}, stacks={})
    sc.rewards_used_turn = 1  # a tile was used in an earlier Surge Step
    sc.script_use_reward(PITHOS)
    sc.script_pass()
    sc.surge()
    assert sc.rewards(0) == [(HORN, True), (PITHOS, True)]


# =============================================================================
# Unit Card Types: Myrmidons (RALLY)
# =============================================================================


def test_rally_on_the_played_unit() -> None:
    """Aegean rulebook, Unit Card Types, Myrmidons: "After the active player adds a unit with
    RALLY to a city, they may pay the indicated cost and resolve its RALLY ability."
    (Eudorus, RALLY 1: gain 2 coins.)"""
    # Checks edge-of-the-aegean.txt, line 114.
    sc = build(hands={0: [EUDORUS]}, coins=(3, 4))
    sc.script_play(EUDORUS, city=0)
    sc.script("rally", card=EUDORUS)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [EUDORUS]
    assert sc.coins(0) == 3 - 2 - 1 + 2 and sc.supply == 13 + 2 + 1 - 2
    done(sc)


def test_rally_is_optional() -> None:
    """Aegean rulebook, Unit Card Types, Myrmidons: "they may pay the indicated cost"."""
    # Checks edge-of-the-aegean.txt, line 114.
    sc = build(hands={0: [EUDORUS]}, coins=(3, 4))
    sc.script_play(EUDORUS, city=0)
    sc.script("rally", a=-1)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 1
    done(sc)


def test_rally_on_units_already_in_the_city() -> None:
    """Aegean rulebook, Unit Card Types, Myrmidons: "after the active player adds any unit to a
    city, that player may pay the indicated costs and resolve the RALLY abilities on any of
    their units with RALLY in that city." (Peisander, RALLY 2: draw 2 cards.)"""
    # Checks edge-of-the-aegean.txt, line 114.
    sc = build(hands={0: [LACHESIS]}, coins=(5, 4), cities={0: {0: [PEISANDER]}}, deck_top=TOP4)
    sc.script_play(LACHESIS, city=0)
    sc.script("rally", card=PEISANDER)
    sc.script_pass()
    sc.surge()
    assert sorted(sc.hand(0)) == sorted(TOP4[:2])
    assert sc.coins(0) == 0
    done(sc)


def test_rally_not_for_units_in_other_cities() -> None:
    """Aegean rulebook, Unit Card Types, Myrmidons: "... any of their units with RALLY in that
    city": a unit added elsewhere opens no RALLY for them (strict: no rally decision)."""
    # Checks edge-of-the-aegean.txt, line 114.
    sc = build(hands={0: [LACHESIS]}, coins=(5, 4), cities={1: {0: [EUDORUS]}, 0: {1: [PEISANDER]}})
    sc.script_play(LACHESIS, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 2
    done(sc)


def test_rally_each_unit_once_per_unit_added() -> None:
    """Reading ``rally_window``: RALLY may be paid after a unit is played from hand into a city,
    each RALLY unit there once per unit added."""
    sc = build(hands={0: [LACHESIS, ATROPOS]}, coins=(6, 4), cities={0: {0: [EUDORUS]}})
    sc.script_play(LACHESIS, city=0)  # 6 -> 3
    sc.script("rally", card=EUDORUS)  # 3 -> 2 -> 4; Eudorus is then spent for this addition
    sc.script_play(ATROPOS, city=0)  # 4 -> 1
    sc.script("rally", card=EUDORUS)  # 1 -> 0 -> 2
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 2
    done(sc)


def test_rally_gain_capped_by_the_supply() -> None:
    """Aegean rulebook, Wealth Step: "No player can gain more coins than are available in the
    supply." Phoenix's RALLY 2 (gain 1 coin for each of your units here) with 5 units here
    would gain 5; the supply holds the 4 coins just paid for Phoenix and its RALLY."""
    # Checks edge-of-the-aegean.txt, lines 82, 114.
    here = [LACHESIS, ANANKE, ATROPOS, AISA]
    sc = build(hands={0: [PHOENIX]}, coins=(4, 4), supply=0, cities={0: {0: here}})
    sc.script_play(PHOENIX, city=0)  # 4 -> 2 coins, supply 0 -> 2
    sc.script("rally", card=PHOENIX)  # 2 -> 0, supply 2 -> 4; 5 coins due, 4 there
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 4 and sc.supply == 0
    done(sc)


def test_rally_needs_coins_for_its_cost() -> None:
    """Aegean rulebook, Unit Card Types, Myrmidons: "they may pay the indicated cost": with no
    coin left, RALLY 1 is not offered (strict: no rally decision)."""
    # Checks edge-of-the-aegean.txt, line 114.
    sc = build(hands={0: [EUDORUS]}, coins=(2, 4))
    sc.script_play(EUDORUS, city=0)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 0 and sc.city(0, 0) == [EUDORUS]
    done(sc)


def test_rally_not_opened_by_moving_a_unit() -> None:
    """Reading ``rally_window``: "moving a unit by an ability opens no RALLY window"."""
    sc = build(
        coins=(4, 4),
        rewards={0: [(SANDALS, False)]},
        cities={0: {0: [LACHESIS]}, 1: {0: [EUDORUS]}},
        stacks={},
    )
    sc.script_use_reward(SANDALS)
    sc.script("move", a=0, c=1, card=LACHESIS)
    sc.script("move", a=-1)
    sc.script_pass()
    sc.surge()
    assert sc.city(1, 0) == [EUDORUS, LACHESIS] and sc.city(0, 0) == []
    assert sc.coins(0) == 4
    done(sc)


# =============================================================================
# Unit Card Types: Keres (end of Surge, EXALT)
# =============================================================================


def test_keres_ability_then_exalt_into_vp_token() -> None:
    """Aegean rulebook, Unit Card Types, Keres: "Units with an ability that is resolved at the
    end of the Surge Step ... If so, EXALT a Keres, it is removed from its city, turned
    facedown, and a VP token is placed on it." (Funeral Pyre: draw 1; EXALT: 4+ units here.)"""
    # Checks edge-of-the-aegean.txt, line 110.
    sc = build(cities={0: {0: [KER_PYRE, *FILLER]}}, deck_top=TOP4)
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == [TOP4[0]]
    assert sc.city(0, 0) == FILLER
    assert sc.out_of_play(0) == [KER_PYRE]
    assert sc.vp_tokens(0) == 1 and sc.vp_supply == 5
    assert sc.result()["score_p0"] == 2
    done(sc)


def test_keres_stays_when_exalt_condition_fails() -> None:
    """Aegean rulebook, Unit Card Types, Keres: "the active player checks if the condition to
    EXALT has been met" (3 units here: not 4, so no EXALT; the ability still resolves)."""
    # Checks edge-of-the-aegean.txt, line 110.
    sc = build(cities={0: {0: [KER_PYRE, LACHESIS, ATROPOS]}}, deck_top=TOP4)
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == [TOP4[0]]
    assert sc.city(0, 0) == [KER_PYRE, LACHESIS, ATROPOS]
    assert sc.vp_tokens(0) == 0 and sc.out_of_play(0) == []


def test_keres_played_this_surge_resolves_at_its_end() -> None:
    """Aegean rulebook, Unit Card Types, Keres: "an ability that is resolved at the end of the
    Surge Step" (Ker of the Spoils: take up to 1 coin from your opponent)."""
    # Checks edge-of-the-aegean.txt, line 110.
    sc = build(hands={0: [KER_SPOILS]}, coins=(2, 3))
    sc.script_play(KER_SPOILS, city=2)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 1 and sc.coins(1) == 2
    assert sc.city(2, 0) == [KER_SPOILS]


def test_opponents_keres_do_not_resolve_in_my_surge() -> None:
    """Aegean rulebook, Unit Card Types, Keres (card text "At the end of your Surge"): only the
    active player's Keres resolve."""
    sc = build(cities={0: {1: [KER_PYRE, *FILLER]}}, deck_top=TOP4)
    sc.script_pass()
    sc.surge()
    assert sc.hand(1) == [] and sc.city(0, 1) == [KER_PYRE, *FILLER]
    assert sc.vp_tokens(1) == 0


def test_exalt_needs_a_vp_token_in_supply() -> None:
    """Reading ``exalt_needs_token``: "A Keres cannot EXALT when no VP token is left in the
    supply." (Components: "6 VP tokens".)"""
    sc = build(cities={0: {0: [KER_PYRE, *FILLER]}}, deck_top=TOP4, vp_tokens=(3, 3))
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == [TOP4[0]]
    assert sc.city(0, 0) == [KER_PYRE, *FILLER]
    assert sc.vp_tokens(0) == 3


@pytest.mark.parametrize(("spoils", "shield", "exalted"), [(0, 1, False), (2, 0, True)])
def test_keres_resolve_city_by_city_left_to_right(spoils: int, shield: int, exalted: bool) -> None:
    """Reading ``keres_order``: "End-of-Surge (Keres) abilities resolve city by city, left to
    right, each followed by its own EXALT check." Ker of the Spoils (steal 1; EXALT at 8+ coins)
    EXALTs only if Ker of the Shield Wall (+2 coins) resolved before it."""
    cities = {spoils: {0: [KER_SPOILS]}, shield: {0: [KER_SHIELD], 1: [LACHESIS]}}
    sc = build(coins=(6, 3), cities=cities)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 9 and sc.coins(1) == 2
    assert sc.vp_tokens(0) == int(exalted)
    assert sc.city(spoils, 0) == ([] if exalted else [KER_SPOILS])
    assert sc.city(shield, 0) == [KER_SHIELD]


def test_keres_mandatory_opponent_discards_then_exalt() -> None:
    """Aegean rulebook, Unit Card Types NOTE: "All unit abilities are considered to be mandatory
    unless their text explanation contains the word may." (Plague Winds: your opponent discards
    1 card, of their choice; EXALT: you have 1 or fewer cards in hand.)"""
    # Checks edge-of-the-aegean.txt, line 116.
    sc = build(hands={0: [AISA], 1: [EUDORUS, CLOTHO]}, cities={1: {0: [KER_PLAGUE]}})
    sc.script_pass()
    sc.script_target("discard", CLOTHO)  # the opponent chooses which
    sc.surge()
    assert sc.hand(1) == [EUDORUS] and sc.discard_pile() == [CLOTHO]
    assert sc.out_of_play(0) == [KER_PLAGUE] and sc.vp_tokens(0) == 1
    done(sc)


def test_keres_shield_wall_exalts_beside_another_keres() -> None:
    """Aegean rulebook, Unit Card Types, Keres: "After resolving a Keres ability, the active
    player checks if the condition to EXALT has been met." (Shield Wall: +2 coins only if an
    enemy unit is here; EXALT: you have another Keres here.)"""
    # Checks edge-of-the-aegean.txt, line 110.
    sc = build(coins=(0, 4), cities={0: {0: [KER_SHIELD, KER_PYRE]}}, deck_top=TOP4)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 0  # no enemy here: no coins
    assert sc.out_of_play(0) == [KER_SHIELD] and sc.vp_tokens(0) == 1
    assert sc.city(0, 0) == [KER_PYRE] and sc.hand(0) == [TOP4[0]]


def test_keres_fallen_city_exalts_where_no_tiles_left() -> None:
    """Aegean rulebook, Unit Card Types, Keres (Fallen City: your opponent returns up to 2 coins
    to the supply; EXALT: this city has no Reward tiles left)."""
    sc = build(coins=(0, 1), cities={2: {0: [KER_FALLEN]}}, stacks={0: [HELM], 1: [], 2: []})
    sc.script_pass()
    sc.surge()
    assert sc.coins(1) == 0 and sc.supply == 20
    assert sc.out_of_play(0) == [KER_FALLEN] and sc.vp_tokens(0) == 1
    # ... and not while its city still has a tile.
    sc = build(coins=(0, 3), cities={0: {0: [KER_FALLEN]}}, stacks={0: [HELM], 1: [], 2: []})
    sc.script_pass()
    sc.surge()
    assert sc.coins(1) == 1 and sc.city(0, 0) == [KER_FALLEN] and sc.vp_tokens(0) == 0


def test_keres_battlefield_destroys_in_another_city_within_strength() -> None:
    """Aegean rulebook, Unit Card Types NOTE (mandatory) with the card's "destroy 1 enemy unit
    with 2 or less Strength in another city": the only legal target is destroyed, unasked."""
    cities = {0: {0: [KER_BATTLE], 1: [ALCIMEDON]}, 1: {1: [EUDORUS]}, 2: {1: [MENESTHIUS]}}
    sc = build(cities=cities)
    sc.script_pass()
    sc.surge()
    assert sc.discard_pile() == [EUDORUS]
    assert sc.city(0, 1) == [ALCIMEDON] and sc.city(1, 1) == [] and sc.city(2, 1) == [MENESTHIUS]


# =============================================================================
# Unit Card Types: Moirai (ongoing) and TREASURED
# =============================================================================


def test_moirai_lachesis_other_units_plus_one() -> None:
    """Aegean rulebook, Unit Card Types, Moirai: "a powerful ability that is resolved while the
    unit is in a city" (Lachesis: your other units here have +1 Strength)."""
    # Checks edge-of-the-aegean.txt, line 112.
    sc = build(cities={0: {0: [LACHESIS, EUDORUS, MENESTHIUS], 1: [PEISANDER]}, 1: {0: [PHOENIX]}})
    assert sc.strength(0, 0) == 2 + 3 + 4
    assert sc.strength(0, 1) == 2  # not the enemy's
    assert sc.strength(1, 0) == 1  # not in another city


@pytest.mark.parametrize(
    ("enemy", "reading", "expected"),
    [
        ([EUDORUS, PEISANDER], "by_book", 2),
        ([EUDORUS, PEISANDER, PHOENIX], "by_book", 5),
        ([TALOS, EUDORUS], "by_book", 2),
        ([TALOS, EUDORUS], "capacity", 5),
    ],
)
def test_moirai_atropos_while_enemy_has_three(
    enemy: list[str], reading: str, expected: int
) -> None:
    """Aegean rulebook, Unit Card Types, Moirai (Atropos: while your opponent has 3 or more
    units here, +3 Strength). "For the purpose of city capacity ... COLOSSAL units
    (Automatons) count as 2 units", and for the war-torn test: reading
    ``units_in_card_texts``, by the book Talos and Eudorus are 2 units; under ``"capacity"``
    Talos counts 2."""
    # Checks edge-of-the-aegean.txt, lines 96, 112, 122.
    rules = {"RU_TEXT_UNITS_CAPACITY": 1} if reading == "capacity" else None
    sc = build(cities={0: {0: [ATROPOS], 1: enemy}}, rules=rules)
    assert sc.strength(0, 0) == expected


@pytest.mark.parametrize(
    ("own", "reading", "expected"),
    [
        ([ANANKE, EUDORUS], "by_book", 2 + 2),
        ([ANANKE, EUDORUS, PEISANDER], "by_book", 3 + 3 + 3),
        ([ANANKE, TALOS], "by_book", 2 + 6),
        ([ANANKE, TALOS], "capacity", 3 + 7),
    ],
)
def test_moirai_ananke_while_three_units(own: list[str], reading: str, expected: int) -> None:
    """Aegean rulebook, Unit Card Types, Moirai (Ananke: while you have 3 or more units here,
    all your units here have +1 Strength). Reading ``units_in_card_texts``: by the book a
    COLOSSAL unit is 1 unit here (its 2 is the capacity's and the war-torn test's); under
    ``"capacity"`` it counts 2."""
    # Checks edge-of-the-aegean.txt, lines 96, 122.
    rules = {"RU_TEXT_UNITS_CAPACITY": 1} if reading == "capacity" else None
    sc = build(cities={1: {0: own}}, rules=rules)
    assert sc.strength(1, 0) == expected


def test_moirai_clotho_cheaper_here_while_tiles() -> None:
    """Aegean rulebook, Unit Card Types, Moirai (Clotho: while this city has Reward tiles, units
    you play here cost 1 less)."""
    stacks = {0: [HELM], 1: [THUNDER], 2: []}
    sc = build(hands={0: [LACHESIS]}, coins=(2, 4), cities={0: {0: [CLOTHO]}}, stacks=stacks)
    sc.script("surge", a=D.ACT_PLAY, c=0, d=2, card=LACHESIS)  # offered at cost 2
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [CLOTHO, LACHESIS] and sc.coins(0) == 0
    done(sc)
    # Not in another city ...
    sc = build(hands={0: [LACHESIS]}, coins=(2, 4), cities={0: {0: [CLOTHO]}}, stacks=stacks)
    sc.script_play(LACHESIS, city=1)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    # ... nor once its city has no tiles.
    sc = build(hands={0: [LACHESIS]}, coins=(2, 4), cities={2: {0: [CLOTHO]}}, stacks=stacks)
    sc.script_play(LACHESIS, city=2)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


@pytest.mark.parametrize(("coins", "cost"), [(3, 2), (4, 3)])
def test_moirai_aisa_cheaper_while_three_coins_or_fewer(coins: int, cost: int) -> None:
    """Aegean rulebook, Unit Card Types, Moirai (Aisa: while you have 3 or fewer coins, units you
    play cost 1 less), anywhere."""
    sc = build(hands={0: [LACHESIS]}, coins=(coins, 4), cities={1: {0: [AISA]}})
    sc.script("surge", a=D.ACT_PLAY, c=0, d=cost, card=LACHESIS)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == coins - cost
    done(sc)


def test_moirai_cost_effects_stack_but_never_below_zero() -> None:
    """Aegean rulebook, Unit Card Types, Moirai: ongoing abilities apply together (Clotho and Aisa,
    -2), and no unit costs less than 0 coins."""
    sc = build(hands={0: [ALCIMEDON]}, coins=(1, 4), cities={0: {0: [CLOTHO]}, 1: {0: [AISA]}})
    sc.script("surge", a=D.ACT_PLAY, c=0, d=0, card=ALCIMEDON)
    sc.script("rally", a=-1)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 1 and sc.city(0, 0) == [CLOTHO, ALCIMEDON]
    done(sc)


def test_moirai_effect_ends_when_unit_leaves() -> None:
    """Aegean rulebook, Unit Card Types, Moirai: the ability applies "while the unit is in a city";
    destroying Lachesis (Thunderbolt of Zeus: destroy 1 enemy unit with 4 or less Strength)
    removes its +1."""
    # Checks edge-of-the-aegean.txt, line 112.
    cities = {0: {1: [LACHESIS, EUDORUS, PATROCLUS]}}
    sc = build(cities=cities, rewards={0: [(THUNDER, False)]}, stacks={})
    assert sc.strength(0, 1) == 2 + 3 + 5
    sc.script_use_reward(THUNDER)
    sc.script_target("destroy", LACHESIS)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 1) == [EUDORUS, PATROCLUS] and sc.discard_pile() == [LACHESIS]
    assert sc.strength(0, 1) == 2 + 4
    done(sc)


# =============================================================================
# "may" abilities and mandatory ones
# =============================================================================


def test_may_declined_leaves_state_unchanged() -> None:
    """Aegean rulebook, Unit Card Types NOTE: abilities are mandatory "unless their text
    explanation contains the word may" (Alcimedon, RALLY 1: you may move 1 of your units from
    this city to another city): declined, nothing moves (the RALLY cost stays paid)."""
    # Checks edge-of-the-aegean.txt, line 116.
    sc = build(hands={0: [ALCIMEDON]}, coins=(2, 4), cities={0: {0: [LACHESIS]}})
    sc.script_play(ALCIMEDON, city=0)
    sc.script("rally", card=ALCIMEDON)
    sc.script_may(False)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [LACHESIS, ALCIMEDON]
    assert sc.city(1, 0) == sc.city(2, 0) == []
    assert sc.coins(0) == 0
    done(sc)


def test_may_accepted_moves_a_unit_from_this_city() -> None:
    """Aegean rulebook, Unit Card Types, Myrmidons (Alcimedon: you may move 1 of your units from
    this city to another city): accepted, only units of this city may move."""
    sc = build(hands={0: [ALCIMEDON]}, coins=(2, 4), cities={0: {0: [LACHESIS]}, 1: {0: [ATROPOS]}})
    sc.script_play(ALCIMEDON, city=0)
    sc.script("rally", card=ALCIMEDON)
    sc.script_may(True)
    sc.script("move", a=0, c=2, card=LACHESIS)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [ALCIMEDON] and sc.city(2, 0) == [LACHESIS]
    assert sc.city(1, 0) == [ATROPOS]
    done(sc)
    sc = build(hands={0: [ALCIMEDON]}, coins=(2, 4), cities={0: {0: [LACHESIS]}, 1: {0: [ATROPOS]}})
    sc.script_play(ALCIMEDON, city=0)
    sc.script("rally", card=ALCIMEDON)
    sc.script_may(True)
    sc.script("move", a=1, c=2, card=ATROPOS)  # not "from this city"
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


def offer_khalkotauroi(coins: tuple[int, int], cards: int, use: bool) -> Scenario:
    """Seat 0 offers its one card, Khalkotauroi (offering 2: ``cards`` cards, the rest coins),
    and answers its TRIBUTE "may" (take up to 2 coins from the opponent) with ``use``."""
    sc = build(hands={0: [KHALKO]}, coins=coins)
    sc.script_offer(KHALKO, cards=cards)
    sc.script_may(use)
    sc.offering()
    return sc


def test_tribute_may_declined_leaves_state_unchanged() -> None:
    """Aegean rulebook, Unit Card Types, Automatons: "that player may use its TRIBUTE ability"
    (Khalkotauroi: you may take up to 2 coins from your opponent): declined, no coins move."""
    # Checks edge-of-the-aegean.txt, line 108.
    sc = offer_khalkotauroi(coins=(2, 5), cards=0, use=False)
    assert sc.coins(0) == 4 and sc.coins(1) == 5
    done(sc)


def test_mandatory_reward_ability_asks_nothing() -> None:
    """Aegean rulebook, Unit Card Types NOTE: "All unit abilities are considered to be mandatory
    unless their text explanation contains the word may." (Pithos of Pandora: your opponent
    discards 1 card and returns up to 2 coins to the supply.)"""
    # Checks edge-of-the-aegean.txt, line 116.
    sc = build(hands={1: [EUDORUS]}, coins=(0, 5), rewards={0: [(PITHOS, False)]}, stacks={})
    sc.script_use_reward(PITHOS)
    sc.script_pass()
    sc.surge()
    assert sc.hand(1) == [] and sc.discard_pile() == [EUDORUS]
    assert sc.coins(1) == 3 and sc.supply == 17
    done(sc)


# =============================================================================
# War Step
# =============================================================================

A3 = [EUDORUS, PEISANDER, PHOENIX]  # three single units


@pytest.mark.parametrize(
    ("mine", "theirs", "torn"),
    [
        ([], A3, True),  # the opponent has 3 units
        ([], A3[:2], False),
        ([LACHESIS, ATROPOS, ANANKE], A3[:2], True),  # 5 in all
        ([LACHESIS, ATROPOS], A3[:2], False),  # 4 in all
        ([LACHESIS, ATROPOS, ANANKE, CLOTHO], [], False),  # 4 of mine only
        ([LACHESIS, ATROPOS, ANANKE, CLOTHO], [EUDORUS], True),  # 5 in all
        ([LACHESIS, ATROPOS, ANANKE, CLOTHO, AISA], [], True),  # 5 in all, all mine
        ([LACHESIS, ATROPOS, ANANKE], [EUDORUS], False),  # my 3 do not count as "opponent"
        ([], [TALOS, EUDORUS], True),  # COLOSSAL counts 2: opponent has 3
        ([], [TALOS], False),
        ([KHALKO], [TALOS], False),  # 4 in all
        ([KHALKO, LACHESIS], [TALOS], True),  # 5 in all
    ],
)
def test_war_torn_test(mine: list[str], theirs: list[str], torn: bool) -> None:
    """Aegean rulebook, War Step: "A city is war-torn if an opponent has at least 3 units in the
    city and/or the sum of both players units total of 5 or more." and "A COLOSSAL unit counts
    as 2 units instead of 1 for the purpose of determining if a city is war-torn"."""
    # Checks edge-of-the-aegean.txt, lines 120, 122.
    sc = build(cities={1: {0: mine, 1: theirs}}, stacks={1: [HELM]})
    assert sc.war_torn(1) is torn


def test_war_city_without_tiles_never_war_torn() -> None:
    """Aegean rulebook, War Step NOTE: "A player may choose to play units into a city with no
    Reward tiles, but such a city will never be considered war-torn again." """
    # Checks edge-of-the-aegean.txt, line 124.
    cities = {0: {0: [KHALKO, MENESTHIUS], 1: [TALOS, EUDORUS, PEISANDER]}}
    sc = build(cities=cities, stacks={0: [], 1: [HELM], 2: []})
    assert not sc.war_torn(0)
    sc.war()
    assert sc.city(0, 0) == [KHALKO, MENESTHIUS]
    assert sc.city(0, 1) == [TALOS, EUDORUS, PEISANDER]
    assert sc.discard_pile() == [] and sc.rewards(0) == sc.rewards(1) == []


def test_war_victor_takes_top_tile_keeps_one_loser_keeps_two() -> None:
    """Aegean rulebook, War Step: "The player with the highest combined Strength is the victor,
    taking the top Reward tile from that city and placing it in their play area with the 2VP
    side faceup. The victor then destroys all but 1 of their units in that city, placing them in
    the discard pile. The loser of the conflict destroys all but 2 of their units"."""
    # Checks edge-of-the-aegean.txt, line 128.
    cities = {0: {0: [PATROCLUS, MENESTHIUS, EUDORUS], 1: [PEISANDER, PHOENIX, ALCIMEDON]}}
    sc = build(cities=cities, stacks={0: [HELM, THUNDER], 1: [], 2: []})
    assert sc.war_torn(0)
    assert (sc.strength(0, 0), sc.strength(0, 1)) == (9, 4)
    sc.script_keep(0, [1])  # the victor keeps Menesthius
    sc.script_keep(0, [0, 2])  # the loser keeps Peisander and Alcimedon
    sc.war()
    assert sc.rewards(0) == [(THUNDER, False)] and sc.rewards(1) == []
    assert sc.stack(0) == [HELM]
    assert sc.city(0, 0) == [MENESTHIUS]
    assert sc.city(0, 1) == [PEISANDER, ALCIMEDON]
    assert sorted(sc.discard_pile()) == sorted([PATROCLUS, EUDORUS, PHOENIX])
    assert not sc.war_torn(0)
    assert not sc.war_torn_token(0)  # "flip the War-torn token to its peaceful side"
    done(sc)


def test_war_defender_can_win() -> None:
    """Aegean rulebook, War Step: "each player adds the Strength values of all their units in that
    city. The player with the highest combined Strength is the victor" (whoever is active)."""
    # Checks edge-of-the-aegean.txt, line 128.
    cities = {2: {0: [ALCIMEDON, PHOENIX], 1: [PATROCLUS, MENESTHIUS, EUDORUS]}}
    sc = build(cities=cities, stacks={0: [], 1: [], 2: [HORN]})
    sc.script_keep(2, [0])  # the victor (seat 1) keeps Patroclus; the loser keeps both
    sc.war()
    assert sc.rewards(1) == [(HORN, False)] and sc.rewards(0) == []
    assert sc.city(2, 1) == [PATROCLUS] and sc.city(2, 0) == [ALCIMEDON, PHOENIX]
    assert sc.stack(2) == []
    done(sc)


def test_war_strength_includes_ongoing_abilities() -> None:
    """Aegean rulebook, War Step: "each player adds the Strength values of all their units" with
    Moirai abilities "resolved while the unit is in a city": Lachesis turns 6 printed Strength
    into 8, beating 7."""
    # Checks edge-of-the-aegean.txt, lines 112, 128.
    cities = {0: {0: [LACHESIS, EUDORUS, PEISANDER], 1: [PATROCLUS, MENESTHIUS]}}
    sc = build(cities=cities, stacks={0: [HELM], 1: [], 2: []})
    sc.script_keep(0, [0])
    sc.war()
    assert sc.rewards(0) == [(HELM, False)]
    assert sc.city(0, 0) == [LACHESIS] and sc.city(0, 1) == [PATROCLUS, MENESTHIUS]
    done(sc)


@pytest.mark.parametrize("rich", [0, 1])
def test_war_strength_tie_goes_to_higher_total_cost(rich: int) -> None:
    """Aegean rulebook, War Step: "In the event of a tie, the player with the highest total unit
    cost in that city is the victor." """
    # Checks edge-of-the-aegean.txt, line 130.
    cheap = [MENESTHIUS, ALCIMEDON]  # Strength 3 + 1 = 4, cost 3 + 1 = 4
    costly = [EUDORUS, PHOENIX, KER_PLAGUE]  # Strength 2 + 1 + 1 = 4, cost 2 + 2 + 2 = 6
    sides = {rich: costly, 1 - rich: cheap}
    sc = build(cities={0: sides}, stacks={0: [HELM], 1: [], 2: []})
    assert sc.strength(0, 0) == sc.strength(0, 1) == 4
    sc.script_keep(0, [0])  # the victor keeps Eudorus
    sc.war()
    assert sc.rewards(rich) == [(HELM, False)] and sc.rewards(1 - rich) == []
    assert sc.city(0, rich) == [EUDORUS] and sc.city(0, 1 - rich) == cheap
    done(sc)


def test_war_full_tie_nobody_takes_a_tile() -> None:
    """Aegean rulebook, War Step: "If players are tied for total unit cost, neither player is the
    victor, and both players must destroy all but 2 of their units in that city". Reading
    ``war_keep_order``: the active player chooses its keeps first."""
    # Checks edge-of-the-aegean.txt, line 130.
    mine = [EUDORUS, PHOENIX, KER_PYRE]  # Strength 4, cost 6
    theirs = [PEISANDER, CLOTHO, AISA]  # Strength 4, cost 6
    sc = build(cities={0: {0: mine, 1: theirs}}, stacks={0: [HELM], 1: [], 2: []})
    sc.script_keep(0, [0, 1])  # the active player first
    sc.script_keep(0, [0, 2])
    sc.war()
    assert sc.rewards(0) == sc.rewards(1) == [] and sc.stack(0) == [HELM]
    assert sc.city(0, 0) == [EUDORUS, PHOENIX] and sc.city(0, 1) == [PEISANDER, AISA]
    assert sorted(sc.discard_pile()) == sorted([KER_PYRE, CLOTHO])
    assert not sc.war_torn(0)
    done(sc)


def test_war_victor_cannot_keep_colossal() -> None:
    """Aegean rulebook, War Step, COLOSSAL UNITS: "the victor in a conflict can only keep 1 unit,
    which cannot be a COLOSSAL unit as they are considered to be 2 units." """
    # Checks edge-of-the-aegean.txt, line 132.
    cities = {0: {0: [TALOS, EUDORUS], 1: [ALCIMEDON, PHOENIX]}}
    sc = build(cities=cities, stacks={0: [HELM], 1: [], 2: []})
    sc.script_keep(0, [0])  # Talos
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.war()
    sc = build(cities=cities, stacks={0: [HELM], 1: [], 2: []})
    sc.script_keep(0, [1])
    sc.war()
    assert sc.city(0, 0) == [EUDORUS] and sc.discard_pile() == [TALOS]
    assert sc.city(0, 1) == [ALCIMEDON, PHOENIX]
    done(sc)


def test_war_victor_with_only_colossal_units_keeps_none() -> None:
    """Aegean rulebook, War Step, COLOSSAL UNITS: the victor keeps 1 unit, "which cannot be a
    COLOSSAL unit" - with only Automatons, it keeps none."""
    # Checks edge-of-the-aegean.txt, line 132.
    cities = {0: {0: [TALOS, KHALKO], 1: [ALCIMEDON]}}
    sc = build(cities=cities, stacks={0: [HELM], 1: [], 2: []})
    sc.war()
    assert sc.rewards(0) == [(HELM, False)]
    assert sc.city(0, 0) == [] and sorted(sc.discard_pile()) == sorted([TALOS, KHALKO])
    assert sc.city(0, 1) == [ALCIMEDON]


def test_war_loser_may_keep_one_colossal() -> None:
    """Aegean rulebook, War Step, COLOSSAL UNITS: "If the player chose to keep a COLOSSAL unit, it
    would be the only one they could keep in that city given that it counts as 2 units." """
    # Checks edge-of-the-aegean.txt, line 132.
    cities = {0: {0: [TALOS, EUDORUS], 1: [KHALKO, ALCIMEDON, PHOENIX]}}
    sc = build(cities=cities, stacks={0: [HELM], 1: [], 2: []})
    sc.script_keep(0, [1])
    sc.script_keep(0, [0])  # the loser keeps Khalkotauroi alone
    sc.war()
    assert sc.city(0, 1) == [KHALKO]
    assert sorted(sc.discard_pile()) == sorted([TALOS, ALCIMEDON, PHOENIX])
    done(sc)
    sc = build(cities=cities, stacks={0: [HELM], 1: [], 2: []})
    sc.script_keep(0, [1])
    sc.script_keep(0, [0, 1])  # Khalkotauroi + Alcimedon = 3 unit-slots
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.war()


def test_war_keep_is_maximal() -> None:
    """Reading ``war_keep_maximal``: "each side keeps a maximal set of units within its allowance
    ... never fewer than it may." (The loser keeps 2 of its 3 units, not 1.)"""
    cities = {0: {0: [PATROCLUS, MENESTHIUS, EUDORUS], 1: [PEISANDER, PHOENIX, ALCIMEDON]}}
    sc = build(cities=cities, stacks={0: [HELM], 1: [], 2: []})
    sc.script_keep(0, [0])
    sc.script_keep(0, [0])
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.war()


def test_war_order_only_war_torn_cities() -> None:
    """Aegean rulebook, War Step: "the active player resolves conflicts in any war-torn cities"
    (a peaceful city is not a choice)."""
    # Checks edge-of-the-aegean.txt, line 120.
    cities = {0: {1: [EUDORUS, PEISANDER, MENESTHIUS]}, 1: {1: [LACHESIS]}}
    cities[2] = {1: [PHOENIX, ALCIMEDON, PATROCLUS]}
    stacks = {0: [HELM], 1: [HORN], 2: [THUNDER]}
    sc = build(cities=cities, stacks=stacks)
    sc.script("war_order", a=2)  # the war-torn cities are 0 and 2: city 2 first, then city 0
    sc.script_keep(2, [0])
    sc.script("war_order", a=0)
    sc.script_keep(0, [0])
    sc.war()
    assert sc.rewards(1) == [(THUNDER, False), (HELM, False)]
    assert sc.city(0, 1) == [EUDORUS] and sc.city(2, 1) == [PHOENIX]
    assert sc.city(1, 1) == [LACHESIS] and sc.stack(1) == [HORN]  # never fought
    done(sc)
    sc = build(cities=cities, stacks=stacks)
    sc.script("war_order", a=1)
    sc.script_keep(1, [0])
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.war()


# =============================================================================
# Offering Step
# =============================================================================


@pytest.mark.parametrize("cards", [0, 1, 2])
def test_offering_splits_value_between_cards_and_coins(cards: int) -> None:
    """Aegean rulebook, Offering Step: "the active player selects a Unit card from their hand and
    discards it. They then draw a number of cards and/or gain a number of coins equal to that
    card's Offering value." (Peisander: Offering 2.)"""
    # Checks edge-of-the-aegean.txt, line 138.
    sc = build(hands={0: [PEISANDER, LACHESIS]}, coins=(3, 4), deck_top=TOP4)
    sc.script_offer(PEISANDER, cards=cards)
    sc.offering()
    assert sorted(sc.hand(0)) == sorted([LACHESIS, *TOP4[:cards]])
    assert sc.coins(0) == 3 + 2 - cards
    assert sc.discard_pile() == [PEISANDER]
    done(sc)


def test_offering_split_cannot_exceed_value() -> None:
    """Aegean rulebook, Offering Step: "... equal to that card's Offering value." """
    # Checks edge-of-the-aegean.txt, line 138.
    sc = build(hands={0: [PEISANDER]}, deck_top=TOP4)
    sc.script_offer(PEISANDER, cards=3)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.offering()


def test_offering_is_optional() -> None:
    """Aegean rulebook, Offering Step: "a player may offer one of the cards from their hand"."""
    # Checks edge-of-the-aegean.txt, line 136.
    sc = build(hands={0: [PEISANDER]}, coins=(3, 4))
    sc.script_offer(None)
    sc.offering()
    assert sc.hand(0) == [PEISANDER] and sc.coins(0) == 3 and sc.discard_pile() == []
    done(sc)


def test_offering_only_from_hand() -> None:
    """Aegean rulebook, Offering Step: "the active player selects a Unit card from their hand"."""
    # Checks edge-of-the-aegean.txt, line 138.
    sc = build(hands={0: [PEISANDER]}, cities={0: {0: [AISA]}})
    sc.script_offer(AISA, cards=0)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.offering()


def test_offering_coins_capped_by_supply() -> None:
    """Reading ``offering_split_supply``: "An Offering's coins, like every gain, are capped by the
    supply; the rest is lost." (Aisa: Offering 4.)"""
    sc = build(hands={0: [AISA]}, coins=(3, 4), supply=1)
    sc.script_offer(AISA, cards=0)
    sc.offering()
    assert sc.coins(0) == 4 and sc.supply == 0


def test_offering_hand_limit_five() -> None:
    """Aegean rulebook, Offering Step: "At the end of this step, the active player discards cards
    from their hand until they have a maximum of 5 cards in hand." (The player chooses.)"""
    # Checks edge-of-the-aegean.txt, line 140.
    hand = [EUDORUS, PEISANDER, MENESTHIUS, ALCIMEDON, PHOENIX, PATROCLUS, CLOTHO]
    sc = build(hands={0: hand})
    sc.script_offer(None)
    sc.script("discard", c=1, card=PATROCLUS)  # reason 1: the hand limit
    sc.script("discard", c=1, card=CLOTHO)
    sc.offering()
    assert sorted(sc.hand(0)) == sorted(hand[:5])
    assert sc.discard_pile() == [PATROCLUS, CLOTHO]
    done(sc)


def test_offering_coin_limit_ten() -> None:
    """Aegean rulebook, Offering Step: "They then return coins to the supply until they have a
    maximum of 10 coins." (9 coins + Aisa's 4 = 13, back to 10.)"""
    # Checks edge-of-the-aegean.txt, line 140.
    sc = build(hands={0: [AISA]}, coins=(9, 4))
    sc.script_offer(AISA, cards=0)
    sc.offering()
    assert sc.coins(0) == 10 and sc.supply == 20 - 10 - 4
    assert sc.hand(0) == []


def test_offering_limits_apply_without_offering() -> None:
    """Aegean rulebook, Offering Step: the hand and coin limits apply "At the end of this step",
    offering or not; the opponent is not affected."""
    # Checks edge-of-the-aegean.txt, line 140.
    sc = build(hands={0: [EUDORUS]}, coins=(12, 8), supply=0)
    sc.script_offer(None)
    sc.offering()
    assert sc.coins(0) == 10 and sc.supply == 2 and sc.coins(1) == 8


def test_tribute_steal_coins_up_to_two() -> None:
    """Aegean rulebook, Unit Card Types, Automatons: "After an Automaton is discarded as an
    Offering, that player may use its TRIBUTE ability." (Khalkotauroi: take up to 2 coins.)"""
    # Checks edge-of-the-aegean.txt, line 108.
    sc = offer_khalkotauroi(coins=(2, 5), cards=0, use=True)
    assert sc.coins(0) == 2 + 2 + 2 and sc.coins(1) == 3
    assert sc.discard_pile() == [KHALKO]
    # "up to": an opponent with 1 coin loses just that one.
    sc = offer_khalkotauroi(coins=(2, 1), cards=2, use=True)
    assert sc.coins(0) == 3 and sc.coins(1) == 0
    done(sc)


def test_tribute_destroy_with_strength_limit_any_city() -> None:
    """Aegean rulebook, Unit Card Types, Automatons: TRIBUTE (Talos: you may destroy 1 enemy unit
    with 3 or less Strength in any city)."""
    cities = {0: {1: [MENESTHIUS]}, 1: {1: [PATROCLUS]}, 2: {1: [EUDORUS]}}
    sc = build(hands={0: [TALOS]}, cities=cities)
    sc.script_offer(TALOS, cards=0)
    sc.script_may(True)
    sc.script_target("destroy", MENESTHIUS)
    sc.offering()
    assert sc.city(0, 1) == [] and sc.discard_pile() == [TALOS, MENESTHIUS]
    done(sc)
    sc = build(hands={0: [TALOS]}, cities=cities)
    sc.script_offer(TALOS, cards=0)
    sc.script_may(True)
    sc.script_target("destroy", PATROCLUS)  # Strength 4
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.offering()


def test_tribute_take_from_discard_with_cost_limit() -> None:
    """Aegean rulebook, Unit Card Types, Automatons: TRIBUTE (Kourai Khryseai: you may take 1 unit
    with cost 3 or less from the discard pile into your hand)."""
    discard = [PATROCLUS, PHOENIX, MENESTHIUS]
    sc = build(hands={0: [KOURAI]}, discard=discard)
    sc.script_offer(KOURAI, cards=0)
    sc.script_may(True)
    sc.script_target("take", MENESTHIUS)  # cost 3: allowed
    sc.offering()
    assert sc.hand(0) == [MENESTHIUS]
    assert sc.discard_pile() == [PATROCLUS, PHOENIX, KOURAI]
    done(sc)
    for name in (PATROCLUS, KOURAI):  # cost 4, and the offered Automaton itself (cost 5)
        sc = build(hands={0: [KOURAI]}, discard=discard)
        sc.script_offer(KOURAI, cards=0)
        sc.script_may(True)
        sc.script_target("take", name)
        with pytest.raises(ScenarioError, match=NOT_ALLOWED):
            sc.offering()


def test_tribute_opponent_discards_their_choice() -> None:
    """Aegean rulebook, Unit Card Types, Automatons: TRIBUTE (Golden Hound: you may have your
    opponent discard 1 card)."""
    sc = build(hands={0: [HOUND], 1: [EUDORUS, AISA]}, deck_top=TOP4)
    sc.script_offer(HOUND, cards=3)
    sc.script_may(True)
    sc.script_target("discard", AISA)
    sc.offering()
    assert sc.hand(1) == [EUDORUS]
    assert sc.discard_pile() == [HOUND, AISA]
    assert sorted(sc.hand(0)) == sorted(TOP4[:3])
    done(sc)


def test_tribute_gain_vp_token_when_two_rewards() -> None:
    """Aegean rulebook, Unit Card Types, Automatons: TRIBUTE (Bronze Eagle: if you have earned 2 or
    more Reward tiles, you may gain 1 VP token)."""
    won = {0: [(HELM, True), (HORN, False)]}
    sc = build(hands={0: [EAGLE]}, rewards=won, stacks={})
    sc.script_offer(EAGLE, cards=0)
    sc.script_may(True)
    sc.offering()
    assert sc.vp_tokens(0) == 1 and sc.vp_supply == 5
    done(sc)
    # One tile only: the condition fails, nothing is offered (strict: no "may" asked).
    sc = build(hands={0: [EAGLE]}, rewards={0: [(HELM, False)]}, stacks={})
    sc.script_offer(EAGLE, cards=1)
    sc.offering()
    assert sc.vp_tokens(0) == 0
    done(sc)


def test_tribute_vp_token_when_none_is_left() -> None:
    """Components: "6 VP tokens". Bronze Eagle's TRIBUTE (you may gain 1 VP token) with all 6
    already taken gains nothing (reading ``ability_partial``), and the tokens stay conserved."""
    # Checks edge-of-the-aegean.txt, lines 28, 108.
    won = {0: [(HELM, True), (HORN, False)]}
    sc = build(hands={0: [EAGLE]}, rewards=won, vp_tokens=(2, 4), stacks={})
    sc.script_offer(EAGLE, cards=0)
    sc.script_may(True)
    sc.offering()
    assert sc.vp_tokens(0) == 2 and sc.vp_tokens(1) == 4 and sc.vp_supply == 0
    assert sc.coins(0) == 4 + 1
    done(sc)


def test_tribute_only_after_an_offering() -> None:
    """Aegean rulebook, Unit Card Types, Automatons: "After an Automaton is discarded as an
    Offering" - discarding it to the hand limit triggers no TRIBUTE."""
    # Checks edge-of-the-aegean.txt, line 108.
    hand = [TALOS, EUDORUS, PEISANDER, ALCIMEDON, PHOENIX, PATROCLUS]
    sc = build(hands={0: hand}, cities={0: {1: [MENESTHIUS]}})
    sc.script_offer(None)
    sc.script("discard", c=1, card=TALOS)
    sc.offering()
    assert sc.discard_pile() == [TALOS] and sc.city(0, 1) == [MENESTHIUS]
    done(sc)


def test_tribute_then_hand_limit() -> None:
    """Aegean rulebook, Offering Step: the hand limit is checked "At the end of this step", after
    the Offering and its TRIBUTE (Kourai Khryseai takes a card back: 6 cards, discard 1)."""
    # Checks edge-of-the-aegean.txt, line 140.
    hand = [KOURAI, EUDORUS, PEISANDER, ALCIMEDON, PHOENIX]
    sc = build(hands={0: hand}, discard=[MENESTHIUS], deck_top=TOP4)
    sc.script_offer(KOURAI, cards=1)
    sc.script_may(True)
    sc.script("discard", c=1, card=EUDORUS)
    sc.offering()
    assert sorted(sc.hand(0)) == sorted([PEISANDER, ALCIMEDON, PHOENIX, TOP4[0], MENESTHIUS])
    assert sc.discard_pile() == [KOURAI, EUDORUS]
    done(sc)


# =============================================================================
# Individual card abilities (the effect interpreter)
# =============================================================================


def test_menesthius_rally_destroys_weak_enemy_here_only() -> None:
    """Card ability (Menesthius, RALLY 2: destroy 1 enemy unit here with 2 or less Strength):
    "here" is the RALLY city. Reading ``ability_strength``: Strength counts the ongoing
    abilities in force (Lachesis lifts Eudorus to 3, so only Lachesis herself, Strength 2, is a
    target)."""
    cities = {0: {1: [EUDORUS, LACHESIS, PATROCLUS]}, 1: {1: [ALCIMEDON]}}
    sc = build(hands={0: [MENESTHIUS]}, coins=(5, 4), cities=cities)
    sc.script_play(MENESTHIUS, city=0)
    sc.script("rally", card=MENESTHIUS)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 1) == [EUDORUS, PATROCLUS] and sc.discard_pile() == [LACHESIS]
    assert sc.city(1, 1) == [ALCIMEDON] and sc.coins(0) == 0
    done(sc)
    sc = build(hands={0: [MENESTHIUS]}, coins=(5, 4), cities=cities)
    sc.script_play(MENESTHIUS, city=0)
    sc.script("rally", card=MENESTHIUS)
    sc.script_target("destroy", EUDORUS)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


def test_menesthius_rally_without_target_does_nothing() -> None:
    """Reading ``ability_partial``: "A mandatory ability does as much as it can: with no legal
    target ... the rest of it is skipped." (The RALLY cost is still paid.)"""
    sc = build(
        hands={0: [MENESTHIUS]}, coins=(5, 4), cities={0: {1: [PATROCLUS]}, 1: {1: [EUDORUS]}}
    )
    sc.script_play(MENESTHIUS, city=0)
    sc.script("rally", card=MENESTHIUS)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 1) == [PATROCLUS] and sc.city(1, 1) == [EUDORUS]
    assert sc.coins(0) == 0 and sc.discard_pile() == []
    done(sc)


def test_patroclus_rally_returns_enemy_to_owners_hand() -> None:
    """Card ability (Patroclus, RALLY 3: return 1 enemy unit here with 3 or less Strength to its
    owner's hand)."""
    cities = {1: {1: [MENESTHIUS, KHALKO]}}
    sc = build(hands={0: [PATROCLUS], 1: [AISA]}, coins=(7, 4), cities=cities)
    sc.script_play(PATROCLUS, city=1)
    sc.script("rally", card=PATROCLUS)
    sc.script_pass()
    sc.surge()
    assert sc.city(1, 1) == [KHALKO] and sorted(sc.hand(1)) == sorted([AISA, MENESTHIUS])
    assert sc.coins(0) == 0
    done(sc)


@pytest.mark.parametrize(("reading", "units"), [("by_book", 3), ("capacity", 4)])
def test_phoenix_rally_coin_per_unit_here(reading: str, units: int) -> None:
    """Card ability (Phoenix, RALLY 2: gain 1 coin for each of your units here). "For the purpose
    of city capacity ... COLOSSAL units (Automatons) count as 2 units", and "for the purpose of
    determining if a city is war-torn": nowhere else. Reading ``units_in_card_texts``: by the
    book Talos, Lachesis and Phoenix are 3 units; under ``"capacity"`` Talos is 2 of 4."""
    # Checks edge-of-the-aegean.txt, lines 96, 122.
    rules = {"RU_TEXT_UNITS_CAPACITY": 1} if reading == "capacity" else None
    sc = build(hands={0: [PHOENIX]}, coins=(4, 4), cities={0: {0: [TALOS, LACHESIS]}}, rules=rules)
    sc.script_play(PHOENIX, city=0)
    sc.script("rally", card=PHOENIX)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 4 - 2 - 2 + units
    done(sc)


def test_helm_returns_any_enemy_unit() -> None:
    """Reward tile ability (Helm of Hades: return 1 enemy unit in any city to its owner's hand)."""
    sc = build(rewards={0: [(HELM, False)]}, cities={2: {1: [TALOS]}}, stacks={})
    sc.script_use_reward(HELM)
    sc.script_pass()
    sc.surge()
    assert sc.city(2, 1) == [] and sc.hand(1) == [TALOS]
    done(sc)


def test_thunderbolt_strength_limit() -> None:
    """Reward tile ability (Thunderbolt of Zeus: destroy 1 enemy unit with 4 or less Strength in
    any city)."""
    cities = {0: {1: [TALOS]}, 1: {1: [PATROCLUS]}}
    sc = build(rewards={0: [(THUNDER, False)]}, cities=cities, stacks={})
    sc.script_use_reward(THUNDER)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 1) == [TALOS] and sc.city(1, 1) == [] and sc.discard_pile() == [PATROCLUS]
    done(sc)


def test_sandals_move_respects_capacity() -> None:
    """Reward tile ability (Winged Sandals: move up to 2 of your units to other cities) and Surge
    Step: "A player cannot play, move, or use any ability that would add a unit to their side of a
    city that is at city capacity." """
    # Checks edge-of-the-aegean.txt, line 96.
    full = [EUDORUS, PEISANDER, MENESTHIUS, PHOENIX, PATROCLUS]
    cities = {0: {0: [LACHESIS, ATROPOS]}, 1: {0: full}}
    sc = build(rewards={0: [(SANDALS, False)]}, cities=cities, stacks={})
    sc.script_use_reward(SANDALS)
    sc.script("move", a=0, c=2, card=LACHESIS)
    sc.script("move", a=0, c=2, card=ATROPOS)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [] and sc.city(2, 0) == [LACHESIS, ATROPOS]
    done(sc)
    sc = build(rewards={0: [(SANDALS, False)]}, cities=cities, stacks={})
    sc.script_use_reward(SANDALS)
    sc.script("move", a=0, c=1, card=LACHESIS)  # city 1 is full
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


def test_lyre_takes_any_unit_from_discard() -> None:
    """Reward tile ability (Lyre of Orpheus: take 1 unit from the discard pile into your hand): no
    cost limit."""
    sc = build(rewards={0: [(LYRE, False)]}, discard=[TALOS, EUDORUS], stacks={})
    sc.script_use_reward(LYRE)
    sc.script_target("take", TALOS)
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == [TALOS] and sc.discard_pile() == [EUDORUS]
    done(sc)


@pytest.mark.parametrize(("hand", "draws"), [([EUDORUS, AISA], 2), ([EUDORUS, AISA, CLOTHO], 0)])
def test_horn_condition_when_hand_at_most_two(hand: list[str], draws: int) -> None:
    """Reward tile ability (Horn of Amaltheia: gain 3 coins. If you have 2 or fewer cards in hand,
    draw 2 cards): an op-level condition."""
    sc = build(
        hands={0: hand}, coins=(0, 4), rewards={0: [(HORN, False)]}, deck_top=TOP4, stacks={}
    )
    sc.script_use_reward(HORN)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 3
    assert sorted(sc.hand(0)) == sorted(hand + TOP4[:draws])


def test_shield_wall_condition_enemy_present() -> None:
    """Card ability (Ker of the Shield Wall: if your opponent has a unit here, gain 2 coins)."""
    sc = build(coins=(0, 4), cities={1: {0: [KER_SHIELD], 1: [ALCIMEDON]}})
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 2 and sc.city(1, 0) == [KER_SHIELD]


# =============================================================================
# End of Game and Scoring
# =============================================================================


def test_game_ends_at_end_of_turn_when_no_city_has_tiles() -> None:
    """Aegean rulebook, End of Game and Scoring: "The game ends at the end of the active player's
    turn if no city has any remaining Reward tiles." The last tile is won in the War Step; the
    Offering Step still happens, and the game ends with the turn."""
    # Checks edge-of-the-aegean.txt, line 144.
    cities = {0: {0: [PATROCLUS, MENESTHIUS, EUDORUS], 1: [ALCIMEDON, PHOENIX]}}
    sc = build(hands={0: [AISA]}, coins=(2, 4), cities=cities, stacks={0: [THUNDER], 1: [], 2: []})
    sc.script_wealth(0)
    sc.wealth()
    sc.script_pass()
    sc.surge()
    sc.script_keep(0, [0])
    sc.war()
    assert sc.stack(0) == [] and sc.rewards(0) == [(THUNDER, False)]
    assert not sc.over
    sc.script_offer(AISA, cards=0)
    sc.offering()
    assert sc.coins(0) == 2 + 4 + 4 and not sc.over
    sc.end_turn()
    assert sc.over
    res = sc.result()
    assert res["end_reason"] == "all_cities_empty" and res["turns"] == 2
    assert res["winner"] == 0 and res["score_p0"] == 2 and res["score_p1"] == 0
    done(sc)


def test_game_goes_on_while_a_city_has_tiles() -> None:
    """Aegean rulebook, Gameplay: "Play continues until all cities have been depleted of Reward
    tiles." """
    # Checks edge-of-the-aegean.txt, line 62.
    sc = build(stacks={0: [], 1: [], 2: [HELM]}, turn=5)
    sc.end_turn()
    assert not sc.over and sc.active == 1 and sc.turns_done == 6
    assert sc.result()["end_reason"] == "none"


def test_full_turn_through_play_turn() -> None:
    """Aegean rulebook, Gameplay: "the active player will proceed through the following steps in
    order: Wealth Step, Surge Step, War Step, Offering Step" (one ``turn()``)."""
    # Checks edge-of-the-aegean.txt, lines 55-60.
    cities = {0: {0: [PATROCLUS, MENESTHIUS], 1: [ALCIMEDON, PHOENIX]}}
    sc = build(
        hands={0: [EUDORUS]}, coins=(0, 4), cities=cities, stacks={0: [THUNDER], 1: [], 2: []}
    )
    sc.script_wealth(0)  # 4 coins
    sc.script_play(EUDORUS, city=0)  # 5 units in city 0: war-torn
    sc.script("rally", a=-1)
    sc.script_pass()
    sc.script_keep(0, [0])
    sc.turn()
    assert sc.over and sc.result()["end_reason"] == "all_cities_empty"
    assert sc.rewards(0) == [(THUNDER, False)] and sc.city(0, 0) == [PATROCLUS]
    assert sc.coins(0) == 2 and sc.active == 1
    done(sc)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_played_out_game_ends_with_every_tile_won(seed: int) -> None:
    """Aegean rulebook, End of Game and Scoring: a game that ends because "no city has any
    remaining Reward tiles" has every one of the 6 Reward tiles in a play area."""
    # Checks edge-of-the-aegean.txt, line 144.
    sc = Scenario.from_game("aegean", seed, 0, bots=("random", "random"), turn_cap=400)
    res = sc.play_out()
    assert res["end_reason"] == "all_cities_empty"
    assert all(sc.stack(c) == [] for c in range(3))
    assert len(sc.rewards(0)) + len(sc.rewards(1)) == 6
    for p in range(2):
        assert res[f"score_p{p}"] == (
            2 * res[f"rewards_unused_p{p}"]
            + res[f"rewards_used_p{p}"]
            + 2 * res[f"vp_tokens_p{p}"]
            + res[f"treasured_p{p}"]
        )


def test_scoring_components() -> None:
    """Aegean rulebook, End of Game and Scoring: "Gain 2VP for each unused (facedown) Reward tiles
    ... 1VP for each used (faceup) Reward tile ... 2VP for each VP token ... 1VP for each
    TREASURED unit in hand" (a Moirai in a city scores nothing)."""
    # Checks edge-of-the-aegean.txt, lines 150-153.
    sc = build(
        hands={0: [CLOTHO, LACHESIS, EUDORUS], 1: [AISA, TALOS]},
        cities={0: {0: [ATROPOS]}, 1: {1: [ANANKE]}},
        rewards={0: [(THUNDER, False), (HELM, True)], 1: [(HORN, True)]},
        vp_tokens=(1, 0),
        stacks={},
    )
    res = sc.result()
    assert (res["rewards_unused_p0"], res["rewards_used_p0"]) == (1, 1)
    assert (res["vp_tokens_p0"], res["treasured_p0"]) == (1, 2)
    assert res["score_p0"] == 2 + 1 + 2 + 2
    assert res["score_p1"] == 1 + 1 and res["treasured_p1"] == 1
    assert res["winner"] == 0


def _tie(p0: dict[str, Any], p1: dict[str, Any]) -> dict[str, int]:
    hands = {0: p0.get("hand", []), 1: p1.get("hand", [])}
    rewards = {0: p0.get("rewards", []), 1: p1.get("rewards", [])}
    sc = build(
        hands=hands, rewards=rewards, vp_tokens=(p0.get("vp", 0), p1.get("vp", 0)), stacks={}
    )
    return sc.result()


@pytest.mark.parametrize("swap", [False, True])
def test_tiebreak_unused_tiles_first(swap: bool) -> None:
    """Aegean rulebook, End of Game and Scoring: "In the event of a tie, the player with the most
    unused Reward tiles is the winner." (Checked before VP tokens.)"""
    # Checks edge-of-the-aegean.txt, line 155.
    a = {"rewards": [(THUNDER, False)]}  # 2 VP, 1 unused
    b = {"vp": 1}  # 2 VP from a token
    res = _tie(b, a) if swap else _tie(a, b)
    assert res["score_p0"] == res["score_p1"] == 2
    assert res["winner"] == (1 if swap else 0)


@pytest.mark.parametrize("swap", [False, True])
def test_tiebreak_vp_tokens_second(swap: bool) -> None:
    """Aegean rulebook, End of Game and Scoring: "If the players are still tied, the player with
    the most VP tokens is the winner." (Checked before TREASURED units.)"""
    # Checks edge-of-the-aegean.txt, line 155.
    a = {"vp": 1, "rewards": [(HELM, True)]}  # 3 VP
    b = {"hand": [CLOTHO, AISA], "rewards": [(HORN, True)]}  # 3 VP
    res = _tie(b, a) if swap else _tie(a, b)
    assert res["score_p0"] == res["score_p1"] == 3
    assert res["winner"] == (1 if swap else 0)


@pytest.mark.parametrize("swap", [False, True])
def test_tiebreak_treasured_third(swap: bool) -> None:
    """Aegean rulebook, End of Game and Scoring: "If the players are still tied, the player with
    the most TREASURED units in their hand is the winner." """
    # Checks edge-of-the-aegean.txt, line 155.
    a = {"hand": [CLOTHO, EUDORUS], "rewards": [(HELM, True)]}  # 2 VP
    b = {"rewards": [(HORN, True), (PITHOS, True)]}  # 2 VP
    res = _tie(b, a) if swap else _tie(a, b)
    assert res["score_p0"] == res["score_p1"] == 2
    assert res["winner"] == (1 if swap else 0)


def test_tiebreak_shared_victory() -> None:
    """Aegean rulebook, End of Game and Scoring: "If the players are still tied, both players have
    earned the respect of the gods and share the victory." """
    # Checks edge-of-the-aegean.txt, line 155.
    res = _tie(
        {"hand": [CLOTHO], "vp": 1, "rewards": [(HELM, False), (HORN, True)]},
        {"hand": [AISA], "vp": 1, "rewards": [(THUNDER, False), (PITHOS, True)]},
    )
    assert res["score_p0"] == res["score_p1"] == 2 + 1 + 2 + 1
    assert res["winner"] == -1


def test_higher_score_wins_before_tiebreaks() -> None:
    """Aegean rulebook, End of Game and Scoring: "The player with the highest score wins" (fewer
    unused tiles does not matter when the scores differ)."""
    # Checks edge-of-the-aegean.txt, line 146.
    res = _tie(
        {"rewards": [(HELM, True), (HORN, True), (PITHOS, True)]}, {"rewards": [(THUNDER, False)]}
    )
    assert (res["score_p0"], res["score_p1"]) == (3, 2)
    assert res["winner"] == 0


# =============================================================================
# Turn cap (a simulator rule)
# =============================================================================


def test_turn_cap_stops_and_scores_game() -> None:
    """Reading ``turn_cap``: "A game still running after the turn cap is stopped, scored as it
    stands, and marked end_reason = 'turn_cap'." """
    sc = Scenario.from_game("aegean", 3, 0, bots=("random", "random"), turn_cap=2)
    res = sc.play_out()
    assert sc.over and res["end_reason"] == "turn_cap" and res["turns"] == 2
    assert any(sc.stack(c) for c in range(3))


def test_turn_cap_does_not_hide_a_real_ending() -> None:
    """Reading ``turn_cap`` with End of Game: a turn that empties the last city ends the game by
    the rulebook even on the capped turn."""
    sc = Scenario.build("aegean", strict=True, turn_cap=10, turn=9, stacks={})
    sc.end_turn()
    assert sc.over and sc.result()["end_reason"] == "all_cities_empty"
    sc = Scenario.build("aegean", strict=True, turn_cap=10, turn=9, stacks={1: [HELM]})
    sc.end_turn()
    assert sc.over and sc.result()["end_reason"] == "turn_cap"


# =============================================================================
# The Scenario API itself
# =============================================================================


def test_strict_scenario_rejects_unscripted_choices() -> None:
    """Scenario API (not a rule): a strict position never lets a bot choose, so the tests above
    cannot silently depend on one."""
    sc = build(hands={0: [LACHESIS]}, coins=(3, 4))
    with pytest.raises(ScenarioError, match="strict"):
        sc.surge()
    # A forced decision (one legal option) needs no script.
    sc = build(coins=(0, 4))
    sc.surge()
    assert sc.city(0, 0) == []


# =============================================================================
# Variants: Combining Omen Sets (the Aegean's cards under another set's rules)
# =============================================================================

# A Reign of War (configs/sets/reign.toml): type cost/offering/strength
REIGN_SOLDIER = "Hoplite Recruit"  # Soldier 1/2/1
REIGN_BEAST = "War Hound"  # Beast 2/2/4


@pytest.mark.parametrize("mix", ["aegean+reign", "reign+aegean"])
def test_moirai_strength_reaches_an_enraged_unit(mix: str) -> None:
    """Aegean rulebook, Unit Card Types, Moirai: "a powerful ability that is resolved while the
    unit is in a city" (Lachesis: your other units here have +1 Strength; Ananke: while you have
    3 or more units here, all your units here have +1 Strength), in a mix with A Reign of War
    (Combining Omen Sets: "be sure to use any additional rules governing the use of those cards
    and components"). Reign, Enrage: an enraged unit "counts as a beast of strength 4 (red 4)
    with no abilities": its own abilities are gone, not the Moirai's, so beside Lachesis it is
    as strong as a printed strength-4 Beast, 5, and that +1 wins the war."""
    # Checks edge-of-the-aegean.txt, lines 112, 128, 161; reign-of-war.en.md, line 149.
    beast = build(mix=mix, cities={0: {0: [LACHESIS, REIGN_BEAST]}})
    assert beast.strength(0, 0) == 2 + 4 + 1
    enraged = {0: {0: [1]}}
    sc = build(mix=mix, cities={0: {0: [LACHESIS, REIGN_SOLDIER]}}, enraged=enraged)
    assert sc.strength(0, 0) == 2 + 4 + 1
    sc = build(mix=mix, cities={0: {0: [ANANKE, REIGN_SOLDIER]}}, enraged=enraged)
    assert sc.strength(0, 0) == (2 + 1) + (4 + 1)  # 3 unit-slots: the enraged unit counts 2
    # Strength 7 against 6: without the +1 the strength ties and the tie-break (Aegean: the
    # higher cost, 6 against 4; Reign: more Soldiers, 0 each) never gives seat 0 the tile.
    sides = {0: [LACHESIS, REIGN_SOLDIER], 1: [PATROCLUS, EUDORUS]}
    sc = build(mix=mix, cities={0: sides}, enraged=enraged, stacks={0: [HELM], 1: [], 2: []})
    assert sc.war_torn(0) and sc.strength(0, 1) == 4 + 2
    sc.war()
    assert sc.rewards(0) == [(HELM, False)] and sc.rewards(1) == []
    assert sc.city(0, 0) == [LACHESIS] and sc.city(0, 1) == [PATROCLUS, EUDORUS]
    assert sc.discard_pile() == [REIGN_SOLDIER]
    done(sc)


GRANARIES = "Vizier of the Granaries"  # Heir to the Dunes: Vizier 4/2/4, MANEUVER 1


@pytest.mark.parametrize("moves", [True, False])
def test_rally_window_opens_after_a_maneuver(moves: bool) -> None:
    """Aegean rulebook, Myrmidons: "after the active player adds any unit to a city, that player
    may pay the indicated costs and resolve the RALLY abilities on any of their units with RALLY
    in that city", in a mix with Heir to the Dunes' MANEUVER ("After a unit with MANEUVER is
    played into a city, the player may move units ... into or out of the city"). Reading
    ``after_play_order``: the RALLY window opens once the MANEUVER is done, for the
    RALLY units then in the city: Eudorus moved out of it rallies nothing there."""
    # Checks edge-of-the-aegean.txt, lines 114, 161.
    sc = build(mix="aegean+dunes", hands={0: [GRANARIES]}, coins=(5, 4), cities={0: {0: [EUDORUS]}})
    sc.script_play(GRANARIES, city=0)  # 5 -> 1 coin
    sc.script_may(moves)
    if moves:
        sc.script("move", a=0, c=1, card=EUDORUS)
    else:
        sc.script("rally", card=EUDORUS)  # 1 -> 0, then +2
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == ([GRANARIES] if moves else [EUDORUS, GRANARIES])
    assert sc.city(1, 0) == ([EUDORUS] if moves else [])
    assert sc.coins(0) == (1 if moves else 2)
    done(sc)


# =============================================================================
# Variants: Drafting Variants
# =============================================================================


DRAFT_RULES = {"draft1": "RU_DRAFT1", "draft2": "RU_DRAFT2"}


def _draft_scenario(mix: str, variant: str) -> Scenario:
    """A strict position of ``mix`` whose set-up will run Aegean draft ``variant``."""
    return Scenario(mix, strict=True, rules={DRAFT_RULES[variant]: 1})


def _box_order(sc: Scenario, seed: int, game: int) -> list[int]:
    """The shuffled shared deck a draft deals from, top card first (set-up's own stream)."""
    from sim.kernel.draft import box_all
    from sim.kernel.rng import seed_streams

    st = new_state()
    seed_streams(st, seed, game)
    box_all(st, sc.tab)
    return StateView(st).zone_ids("box")[::-1]


def _own_cards(sc: Scenario, p: int) -> list[int]:
    """Seat ``p``'s 30 drafted cards: its own deck plus the hand it drew from it."""
    deck = sc.zone_ids("deck", p)
    hand = sc.zone_ids("hand", p)
    return sorted(int(c) for c in [*deck, *hand])


@pytest.mark.parametrize("mix", ["reign+aegean", "dunes+aegean"])
def test_draft1_draw_3_keep_2_pass_1_until_30_each(mix: str) -> None:
    """Drafting Variants, Draft Variant 1: "Each player draws 3 cards from a shared deck
    containing all the Unit cards, chooses 2, places them facedown, and then passes the
    remaining card to their opponent. This continues until each player has 30 facedown
    cards." Each seat keeps the 1st and 2nd of its three cards and passes the 3rd."""
    # Checks edge-of-the-aegean.txt, lines 167, 171.
    seed, game = 5, 2
    sc = _draft_scenario(mix, "draft1")
    for _ in range(10 * 2):  # 10 rounds, two seats, two keeps each
        sc.script("draft", a=0)
        sc.script("draft", a=1)
    sc.setup(seed, game)
    done(sc)
    top = _box_order(sc, seed, game)
    expect: list[list[int]] = [[], []]
    for r in range(10):
        drawn = [top[6 * r : 6 * r + 3], top[6 * r + 3 : 6 * r + 6]]
        for p in range(2):
            expect[p] += [drawn[p][0], drawn[p][1], drawn[1 - p][2]]
    for p in range(2):
        assert _own_cards(sc, p) == sorted(expect[p])
        assert len(sc.hand(p)) == 4  # then "the game then begins as normal"
    assert sc.own_decks
    # "Any unselected cards are returned to the box."
    assert sc.box_size() == len(top) - 60
    check_invariants(sc)


def test_draft2_twenty_face_up_alternate_picks_three_times() -> None:
    """Drafting Variants, Draft Variant 2: "20 random cards are placed faceup ... Randomly
    determine a player to select the first card. Each player selects 1 card until all cards
    have been selected. This is repeated two additional times, resulting in each player having
    a 30 card deck." Every pick here takes the first card left, so in each round of 20 one
    seat holds the even places and the other the odd ones."""
    # Checks edge-of-the-aegean.txt, line 173.
    seed, game = 11, 4
    sc = _draft_scenario("reign+aegean", "draft2")
    for _ in range(60):
        sc.script("draft")
    sc.setup(seed, game)
    done(sc)
    top = _box_order(sc, seed, game)
    mine = [set(_own_cards(sc, p)) for p in range(2)]
    for r in range(3):
        spread = top[20 * r : 20 * r + 20]
        evens, odds = set(spread[0::2]), set(spread[1::2])
        first = 0 if evens <= mine[0] else 1
        assert evens <= mine[first] and odds <= mine[1 - first]
    assert [len(m) for m in mine] == [30, 30]
    assert sc.box_size() == len(top) - 60
    check_invariants(sc)


@pytest.mark.parametrize("variant", ["draft1", "draft2"])
def test_draft_games_use_own_decks_and_conserve_cards(variant: str) -> None:
    """Drafting Variants: "each player will have their own deck and discard pile once the
    game begins ... any ability that references 'the deck' or 'the discard pile' refers to
    the player's own deck or discard pile." A whole game keeps every card in exactly one
    zone, and a seat's own cards never reach the other seat's deck or discard pile."""
    # Checks edge-of-the-aegean.txt, line 167.
    rules = {DRAFT_RULES[variant]: 1}
    sc = Scenario.from_game("dunes+aegean", 3, 1, bots=("greedy", "random"), rules=rules)
    own = [set(_own_cards(sc, p)) for p in range(2)]
    while not sc.over:
        sc.turn()
        check_invariants(sc)
        for p in range(2):
            pile = [
                *sc.zone_ids("deck", p),
                *sc.zone_ids("discard", p),
            ]
            assert {int(c) for c in pile} <= own[p]


def test_drafts_refused_without_enough_units() -> None:
    """Drafting Variants, NOTE: without A Reign of War the drafts need the units of three
    Aegean-era sets; the Aegean's 22 units alone cannot make two 30-card decks."""
    with pytest.raises(SpecError, match=r"draft1 deals 60 unit cards.*has 22"):
        Engine(RunSpec(games=10, mix="aegean", variants=("draft1",)))
    with pytest.raises(SpecError, match="each build the decks"):
        Engine(RunSpec(games=10, mix="reign+aegean", variants=("draft1", "draft2")))
    Engine(RunSpec(games=10, mix="reign+aegean", variants=("draft2",)))
