"""Omen: Heir to the Dunes, rule by rule: one scenario per rule of the rulebook.

Every test cites the rulebook (``heir-to-the-dunes.txt``),
the Edge of the Aegean rulebook's "Combining Omen Sets" for the mixes, or the
documented reading it checks, builds a position with the Scenario API and
asserts exact cards and numbers.

Positions are built ``strict``: no bot answers for either seat, so every
decision with more than one legal option is scripted here and a test never
depends on a bot's taste. A scripted choice the rules do not allow raises
:class:`ScenarioError`, which is how "not offered" rules are checked.

Card values are those shipped in ``configs/sets/dunes.toml`` (mostly
reconstructed; the comments below give cost/offering/strength).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import done

from sim.data.cards import load_pool
from sim.kernel import decisions as D
from sim.run.scenario import Scenario, ScenarioError

# --- card names (configs/sets/dunes.toml) ------------------------------------------
# Embalmed: devoted to both gods, TREASURED, LABOR
LABORER = "Linen-Wrapped Laborer"  # 1/2/2 x2  LABOR: gain 2 coins
SCRIBE = "Mummified Scribe"  # 2/2/2 x2  LABOR: draw 1
ARCHITECT = "Embalmed Architect"  # 3/1/3 x2  LABOR: top card of the deck under the structure
PRIESTESS = "Preserved High Priestess"  # 3/2/2  LABOR: Favored: draw 2; else gain Favor
IBIS = "Sacred Ibis Mummy"  # 2/3/1  LABOR: may ENTOMB 2 cards from hand
# Followers devoted to Anubis (REINFORCE)
CHANNELER = "Moonlight Channeler"  # 2/3/2 x2  draw 1
GRAVEDIGGER = "Necropolis Gravedigger"  # 1/2/1  gain 1 coin, may ENTOMB this unit
WEIGHER = "Weigher of Hearts"  # 2/2/1  opponent discards 1
WARDEN = "Jackal Warden"  # 3/1/3  destroy enemy <=2 here
KEEPER = "Keeper of the Canopic Jars"  # 3/2/2  take cost<=3 from discard
OVERSEER = "Overseer of the Necropolis"  # 4/1/4  COLOSSAL, 1 coin per own unit here
DEVOURER = "Devourer of the Unworthy"  # 5/1/5  COLOSSAL, destroy enemy <=3 here
# Followers devoted to Horus (REINFORCE)
BEARER = "Bearer of the Sun Disc"  # 2/3/2 x2  take up to 1 coin from the opponent
STONEMASON = "Stonemason of Edfu"  # 1/2/1  ENTOMB 1 card from hand, draw 1
HERALD = "Herald of the Double Crown"  # 2/2/1  return enemy <=2 here
ARCHER = "Falcon-Eyed Archer"  # 3/1/3  destroy enemy <=2 in another city
PRIEST = "Priest of the Rising Sun"  # 3/2/2  draw 1 (+1 with a completed structure)
USURPER = "Rabid Usurper"  # 4/1/4  COLOSSAL, destroy enemy <=2 here
AVATAR = "Avatar of the Falcon"  # 5/1/5  COLOSSAL, return enemy here
# Initiates: neutral, INVOCATION
SERVANT = "Temple Servant"  # 1/2/1 x2  gain 2 coins
MARAUDER = "Sunset Marauder"  # 2/2/1 x2  take up to 2 coins from the opponent
NOVICE = "Novice Embalmer"  # 1/2/1  draw 1, may ENTOMB this unit
MERCHANT = "Oasis Merchant"  # 2/3/1  1 coin per own unit here
ROBBER = "Tomb Robber"  # 2/2/2  take cost<=4 from discard
SEER = "Nomad Seer"  # 3/2/2  draw 2
CALLER = "Sandstorm Caller"  # 3/2/2  opponent discards 1, may move 1 from here
RAIDER = "Dune Raider"  # 3/1/3  opponent returns up to 2 coins
# Viziers: neutral, COLOSSAL, MANEUVER
GRANARIES = "Vizier of the Granaries"  # 4/2/4 x2  MANEUVER 1
SCROLLS = "Vizier of the Scrolls"  # 4/3/3  MANEUVER 2
NILE = "Vizier of the Upper Nile"  # 5/1/5 x2  MANEUVER 2
GRAND = "Grand Vizier of the Two Lands"  # 6/1/6  MANEUVER 3

# Structures (build cost / VP), each god's in file order
SHRINE = "Shrine of the Embalmers"  # 3/2  take 1 unit from the discard pile
PYRAMID = "Pyramid of the Jackal"  # 4/3  gain 3 coins
HALL = "Hall of the Two Truths"  # 7/5  destroy enemy <=3 in any city
OBELISK = "Obelisk of the Falcon"  # 3/2  draw 1, gain 1 coin
TEMPLE = "Temple of the Sun Disc"  # 4/3  Favor to Horus, gain 2 coins
PALACE = "Palace of the Double Crown"  # 7/5  opponent discards 2
STRUCTURES = {0: [SHRINE, PYRAMID, HALL], 1: [OBELISK, TEMPLE, PALACE]}

# Reward tiles
KHOPESH = "Khopesh of Sekhmet"  # destroy enemy <=4 in any city
BARQUE = "Solar Barque of Ra"  # move up to 2 of your units
SCARAB = "Scarab of Khepri"  # take 1 unit from the discard pile
FEATHER = "Feather of Ma'at"  # not Favored: gain 2 coins; turn Favor to your god
ANKH = "Ankh of Eternal Life"  # gain 2 coins; Favored: draw 2
JARS = "Canopic Jars of the Four Sons"  # top 2 cards of the deck under your structure
BOOK = "Book of Coming Forth by Day"  # draw 2 (+1 with a completed structure)
CROOK = "Crook and Flail"  # opponent discards 1 and returns up to 2 coins
WAS = "Was Scepter"  # return enemy <=3 in any city
ALL_TILES = [KHOPESH, BARQUE, SCARAB, FEATHER, ANKH, JARS, BOOK, CROOK, WAS]

# Edge of the Aegean cards used in the mixes
EUDORUS = "Eudorus, Swift Runner"  # 2/1/2  RALLY 1: gain 2 coins
KHALKO = "Khalkotauroi, Bulls of Aeetes"  # 4/2/4  TRIBUTE: may take up to 2 coins
KER_PYRE = "Ker of the Funeral Pyre"  # 2/2/1  end of Surge: draw 1; EXALT: 4+ units here
CLOTHO = "Clotho the Spinner"  # 2/2/1  TREASURED Moirai
HELM = "Helm of Hades"
THUNDER = "Thunderbolt of Zeus"
AEGEAN_TILES = [
    THUNDER, "Winged Sandals of Hermes", "Horn of Amaltheia", HELM,
    "Pithos of Pandora", "Lyre of Orpheus",
]  # fmt: skip

# A scripted choice the rules do not offer (not a missing script: strict raises differently).
NOT_ALLOWED = "matched no legal option"

GODS = ("anubis", "horus")
FOLLOWER = {0: CHANNELER, 1: BEARER}  # a cost-2 Follower devoted to each seat's god
TOP4 = [DEVOURER, AVATAR, GRAND, RAIDER]  # deck top in draw tests (named nowhere else)


def build(**kw: Any) -> Scenario:
    """A strict Dunes position; by default one (unused-by-the-test) tile per city."""
    kw.setdefault("stacks", {0: [CROOK], 1: [WAS], 2: [BARQUE]})
    return Scenario.build("dunes", strict=True, **kw)


def play(sc: Scenario, name: str, city: int, cost: int) -> None:
    """Play ``name`` into ``city``, insisting on the cost the kernel charges."""
    sc.script("surge", a=D.ACT_PLAY, c=city, d=cost, card=name)


def offer(sc: Scenario, name: str, cards: int) -> None:
    """Discard ``name`` as an offering (not a build), taking ``cards`` cards."""
    sc.script("offer", c=0, card=name)
    sc.script("split", a=cards)


def no_reinforce(sc: Scenario) -> None:
    sc.script("reinforce", a=-1)


# =============================================================================
# Set Up
# =============================================================================


@pytest.mark.parametrize(("seed", "game"), [(1, 0), (7, 3), (2024, 11)])
def test_setup_three_tiles_per_city_cards_and_coins(seed: int, game: int) -> None:
    """Dunes rulebook, Set Up 2 and 7: "Shuffle the 9 reward tiles and place 3 facedown stacks
    on each of the 3 designated areas" ... "Each player draws 4 cards from the deck and takes 4
    coins from the supply." The unit cards form the deck the hands are drawn from
    (heir-to-the-dunes.txt, line 50)."""
    # Checks heir-to-the-dunes.txt, lines 48, 53.
    sc = Scenario.from_game("dunes", seed, game, strict=True)
    assert [len(sc.stack(c)) for c in range(3)] == [3, 3, 3]
    assert sorted(t for c in range(3) for t in sc.stack(c)) == sorted(ALL_TILES)
    assert len(sc.hand(0)) == len(sc.hand(1)) == 4
    assert sc.coins(0) == sc.coins(1) == 4 and sc.supply == 20 - 8
    assert sc.deck_size() == 40 - 8 and sc.discard_pile() == []
    assert sc.vp_supply == 0  # Components: no VP tokens in this set
    assert all(sc.city(c, p) == [] for c in range(3) for p in range(2))


def test_setup_shuffles_all_unit_cards_into_one_deck() -> None:
    """Dunes rulebook, Set Up 4: "Shuffle all unit cards and place them in a facedown deck": the
    deck and the two hands hold every unit card of the set, once each, and the order differs
    from deal to deal (four deals, four different decks)."""
    # Checks heir-to-the-dunes.txt, line 50.
    every = sorted(u["name"] for u in load_pool("dunes").units for _ in range(u["copies"]))
    orders = set()
    for game in range(4):
        sc = Scenario.from_game("dunes", 1, game, strict=True)
        deck = sc.deck_top(sc.deck_size())
        assert sorted(deck + sc.hand(0) + sc.hand(1)) == every
        orders.add(tuple(deck))
    assert len(orders) == 4


def test_devotion_by_unit_type() -> None:
    """Dunes rulebook, Unit Card Anatomy: "Devotion: This icon indicates the god or gods to which
    this unit is devoted"; Unit Card Types: Embalmed are "devoted to both gods", Followers "to one
    god only", Initiates and Viziers "not devoted to either god". Every shipped unit's devotion,
    the field the kernel reads for Favor and abilities, agrees with its type."""
    # Checks heir-to-the-dunes.txt, lines 120, 149-152.
    allowed = {
        "embalmed": {"both"}, "follower": {"anubis", "horus"},
        "initiate": {"neutral"}, "vizier": {"neutral"},
    }  # fmt: skip
    units = load_pool("dunes").units
    assert {u["type"] for u in units} == set(allowed)
    for u in units:
        assert u["devotion"] in allowed[u["type"]], u["name"]
    gods = {u["devotion"] for u in units if u["type"] == "follower"}
    assert gods == {"anubis", "horus"}


@pytest.mark.parametrize("first", ["p0", "p1"])
def test_setup_gods_and_their_structures(first: str) -> None:
    """Dunes rulebook, Set Up 8-9: "Each player takes a god reference card and a set of 3
    structure cards, matching their god." ... "places their structure cards in their play area
    BUILD side up." (Seat 0 serves Anubis, seat 1 Horus, whoever goes first.)"""
    # Checks heir-to-the-dunes.txt, lines 54-55.
    sc = Scenario.from_game("dunes", 3, 1, first=first, strict=True)
    assert (sc.god(0), sc.god(1)) == ("anubis", "horus")
    for p in range(2):
        assert sc.structures(p) == [(name, 0, False) for name in STRUCTURES[p]]
        assert sc.under_cards(p) == []


@pytest.mark.parametrize(("first", "seat", "favored"), [("p0", 0, "horus"), ("p1", 1, "anubis")])
def test_setup_favor_starts_on_second_players_god(first: str, seat: int, favored: str) -> None:
    """Dunes rulebook, Set Up: "Flip the Favor card to the side matching the god of the second
    player." and Favor: "At the start of the game the second player's god will always begin
    Favored." """
    # Checks heir-to-the-dunes.txt, lines 57, 73.
    sc = Scenario.from_game("dunes", 9, 0, first=first, strict=True)
    assert sc.active == seat and sc.first == seat
    assert sc.favor == favored == sc.god(1 - seat)


# =============================================================================
# Emissary of War variant
# =============================================================================


def test_emissary_greatest_value_goes_first() -> None:
    """Dunes rulebook, Emissary of War Variant: "Each player sums the cost, offering, and strength
    values of their Emissary." (Grand Vizier 6 + 1 + 6 = 13 beats Temple Servant 1 + 2 + 1.)"""
    # Checks heir-to-the-dunes.txt, line 59.
    sc = build(hands={0: [SERVANT, CHANNELER], 1: [GRAND, BEARER]}, favor="horus")
    sc.script("emissary", card=SERVANT)
    sc.script("emissary", card=GRAND)
    assert sc.emissary(oldest=0) == 1
    assert sc.active == 1 and sc.favor == "anubis"  # the second player's god
    assert sc.discard_pile() == [GRAND] and sc.hand(1) == [BEARER]
    assert sorted(sc.hand(0)) == sorted([SERVANT, CHANNELER])
    done(sc)


@pytest.mark.parametrize("oldest", [0, 1])
def test_emissary_sum_counts_the_offering(oldest: int) -> None:
    """Dunes rulebook, Emissary of War Variant: "sums the cost, offering, and strength values".
    Vizier of the Scrolls 4 + 3 + 3 = 10 beats Overseer of the Necropolis 4 + 1 + 4 = 9 only
    through its offering (cost and strength alone: 7 against 8), whoever is the oldest."""
    # Checks heir-to-the-dunes.txt, line 59.
    sc = build(hands={0: [SCROLLS], 1: [OVERSEER]})
    assert sc.emissary(oldest=oldest) == 0
    assert sc.discard_pile() == [SCROLLS] and sc.hand(1) == [OVERSEER]


@pytest.mark.parametrize("oldest", [0, 1])
def test_emissary_tie_strength_then_oldest(oldest: int) -> None:
    """Dunes rulebook, Emissary of War Variant: "In the event of a tie, the Emissary with the
    highest strength value breaks the tie. If a tie still exists, the oldest player is the First
    Player." """
    # Checks heir-to-the-dunes.txt, line 59.
    # Oasis Merchant 2 + 3 + 1 = 6 (strength 1); Mummified Scribe 2 + 2 + 2 = 6 (strength 2).
    sc = build(hands={0: [MERCHANT], 1: [SCRIBE]})
    assert sc.emissary(oldest=oldest) == 1
    assert sc.discard_pile() == [SCRIBE]
    # Moonlight Channeler and Bearer of the Sun Disc: 2 + 3 + 2 = 7, strength 2 both.
    sc = build(hands={0: [CHANNELER], 1: [BEARER]})
    assert sc.emissary(oldest=oldest) == oldest
    assert sc.discard_pile() == [[CHANNELER, BEARER][oldest]]


# =============================================================================
# Devotion and Favor
# =============================================================================


@pytest.mark.parametrize("kind", ["own", "other", "both", "neutral"])
@pytest.mark.parametrize("favor", GODS)
@pytest.mark.parametrize("p", [0, 1])
def test_favor_flips_by_devotion(p: int, favor: str, kind: str) -> None:
    """Dunes rulebook, Devotion: "any time a unit devoted to the god not currently Favored is
    played, the Favor card is flipped to the opposing god's side." Devotion and Favor: "If the
    unit is devoted to the god not currently Favored, flip the Favor card to its other side.
    Thus, a player will always flip the Favor card when they play a unit devoted to both gods".
    Units are devoted to one god, neither (neutral) or both (heir-to-the-dunes.txt, line 67):
    each of the four kinds is played here.

    The Favor section's "Each time a unit is played that is not devoted to the god that is
    currently Favored, flip" would, read literally, flip on neutral units too; omensim follows
    the two sentences above (README, Rules: "neutral units never do; 'both' always do")."""
    # Checks heir-to-the-dunes.txt, lines 69, 75, 133.
    card = {"own": FOLLOWER[p], "other": FOLLOWER[1 - p], "both": LABORER, "neutral": SERVANT}[kind]
    sc = build(hands={p: [card]}, coins=(3, 3), favor=favor, active=p)
    sc.script_play(card, city=1)
    if kind == "own":
        no_reinforce(sc)
    sc.script_pass()
    sc.surge()
    flipped = GODS[1 - GODS.index(favor)]
    expected = {"own": GODS[p], "other": GODS[1 - p], "both": flipped, "neutral": favor}[kind]
    assert sc.favor == expected
    assert sc.city(1, p) == [card] and sc.hand(p) == []
    done(sc)


def test_opposing_gods_unit_enters_at_full_cost_without_abilities() -> None:
    """Dunes rulebook, Devotion: "While players can play units devoted to the opposing god, they
    cannot resolve the abilities of those units." (Seat 0 serves Anubis; Bearer of the Sun Disc,
    devoted to Horus, costs its full 2 - no devoted-unit discount - enters the city, flips the
    Favor card, and neither its REINFORCE nor that of the Anubis unit beside it resolves.)"""
    # Checks heir-to-the-dunes.txt, line 69; the cost paid into the supply (lines 121, 127).
    sc = build(
        hands={0: [BEARER]},
        coins=(2, 3),
        favor="anubis",
        cities={1: {0: [CHANNELER]}},
        deck_top=TOP4,
    )
    supply = sc.supply
    play(sc, BEARER, city=1, cost=2)
    sc.script_pass()
    sc.surge()  # strict: a REINFORCE choice would have raised
    assert sc.city(1, 0) == [CHANNELER, BEARER]
    assert sc.coins(0) == 0 and sc.coins(1) == 3 and sc.hand(0) == []
    assert sc.supply == supply + 2
    assert sc.favor == "horus"
    assert sc.deck_top(4) == TOP4
    done(sc)
    sc = build(hands={0: [BEARER]}, coins=(1, 3), favor="anubis")
    sc.script_play(BEARER, city=1)  # 1 coin: not enough
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


def test_opposing_gods_unit_in_city_cannot_be_reinforced() -> None:
    """Dunes rulebook, Devotion: players "cannot resolve the abilities of those units" and
    Followers: REINFORCE is "of a single unit devoted to their god in that city": the Horus unit
    seat 0 played earlier is not a REINFORCE choice, its own Anubis units are."""
    # Checks heir-to-the-dunes.txt, lines 69, 150.
    cities = {0: {0: [BEARER, CHANNELER]}}
    sc = build(hands={0: [GRAVEDIGGER]}, coins=(0, 3), favor="anubis", cities=cities)
    play(sc, GRAVEDIGGER, city=0, cost=0)
    sc.script("reinforce", card=BEARER)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    sc = build(hands={0: [GRAVEDIGGER]}, coins=(0, 3), favor="anubis", cities=cities, deck_top=TOP4)
    play(sc, GRAVEDIGGER, city=0, cost=0)
    sc.script("reinforce", card=CHANNELER)
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == TOP4[:1] and sc.coins(1) == 3
    done(sc)


def test_first_devoted_unit_each_turn_costs_one_less_only_the_first() -> None:
    """Dunes rulebook, Devotion and Favor NOTE: "The first time during a player's turn that they
    play a unit devoted to their god, the cost of that unit is reduced by 1" - only the first."""
    # Checks heir-to-the-dunes.txt, line 135.
    sc = build(hands={0: [CHANNELER, CHANNELER]}, coins=(3, 3), favor="anubis")
    play(sc, CHANNELER, city=0, cost=1)
    no_reinforce(sc)
    play(sc, CHANNELER, city=1, cost=2)
    no_reinforce(sc)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [CHANNELER] and sc.city(1, 0) == [CHANNELER]
    assert sc.coins(0) == 0 and sc.supply == 14 + 3
    done(sc)
    sc = build(hands={0: [CHANNELER, CHANNELER]}, coins=(3, 3), favor="anubis")
    play(sc, CHANNELER, city=0, cost=1)
    no_reinforce(sc)
    play(sc, CHANNELER, city=1, cost=1)  # the second is not discounted
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


def test_devoted_discount_minimum_zero() -> None:
    """Dunes rulebook, Devotion and Favor NOTE: "reduced by 1 to a minimum of zero" (Necropolis
    Gravedigger, cost 1, is free)."""
    # Checks heir-to-the-dunes.txt, line 135.
    sc = build(hands={0: [GRAVEDIGGER]}, coins=(0, 3), favor="anubis")
    play(sc, GRAVEDIGGER, city=2, cost=0)
    no_reinforce(sc)
    sc.script_pass()
    sc.surge()
    assert sc.city(2, 0) == [GRAVEDIGGER] and sc.coins(0) == 0
    done(sc)


def test_devoted_discount_resets_next_turn() -> None:
    """Dunes rulebook, Surge Step summary: "The cost of the first devoted unit played on each
    turn is reduced by 1." (Each of seat 0's turns has its own first devoted unit.)"""
    # Checks heir-to-the-dunes.txt, line 88.
    sc = build(hands={0: [CHANNELER, CHANNELER]}, coins=(2, 3), favor="anubis")
    play(sc, CHANNELER, city=0, cost=1)
    no_reinforce(sc)
    sc.script_pass()
    sc.surge()
    sc.end_turn()
    sc.surge()  # seat 1: nothing to do (a forced pass)
    sc.end_turn()
    assert sc.active == 0
    play(sc, CHANNELER, city=1, cost=1)
    no_reinforce(sc)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 0 and sc.city(1, 0) == [CHANNELER]
    done(sc)


def test_devoted_discount_for_units_devoted_to_both() -> None:
    """Dunes rulebook, Devotion and Favor NOTE: "the first time ... that they play a unit devoted
    to their god": an Embalmed (devoted to both gods) is devoted to theirs, gets the discount and
    uses it up (Horus: Linen-Wrapped Laborer 1 -> 0, then Bearer of the Sun Disc at its full 2)."""
    # Checks heir-to-the-dunes.txt, line 135.
    sc = build(hands={1: [LABORER, BEARER]}, coins=(3, 2), favor="anubis", active=1)
    play(sc, LABORER, city=0, cost=0)
    play(sc, BEARER, city=1, cost=2)
    no_reinforce(sc)
    sc.script_pass()
    sc.surge()
    assert sc.coins(1) == 0 and sc.city(0, 1) == [LABORER] and sc.city(1, 1) == [BEARER]
    done(sc)


def test_no_discount_for_neutral_units() -> None:
    """Dunes rulebook, Devotion and Favor NOTE: only "a unit devoted to their god" is cheaper;
    Temple Servant (neutral, cost 1) costs 1."""
    sc = build(hands={0: [SERVANT]}, coins=(1, 3), favor="horus")
    play(sc, SERVANT, city=0, cost=0)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    sc = build(hands={0: [SERVANT]}, coins=(1, 3), favor="horus")
    play(sc, SERVANT, city=0, cost=1)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 0
    done(sc)


# =============================================================================
# Wealth Step: the reveal
# =============================================================================


@pytest.mark.parametrize(
    ("p", "card", "to_hand"),
    [
        (0, CHANNELER, True),
        (0, LABORER, True),
        (0, BEARER, False),
        (0, SERVANT, False),
        (1, BEARER, True),
        (1, SCRIBE, True),
        (1, CHANNELER, False),
        (1, GRANARIES, False),
    ],
)
def test_wealth_reveal_devoted_card_to_hand_else_discard(p: int, card: str, to_hand: bool) -> None:
    """Dunes rulebook, Wealth Step: "At the start of the active player's Wealth Step, they reveal
    the top card of the deck. If the unit is devoted to their god, they add it to their hand. If
    not, the unit is placed in the discard pile." (Then the usual Wealth actions.)"""
    # Checks heir-to-the-dunes.txt, line 100.
    sc = build(active=p, coins=(0, 0), deck_top=[card, *TOP4])
    sc.script_wealth(0)
    sc.wealth()
    assert sc.hand(p) == ([card] if to_hand else [])
    assert sc.discard_pile() == ([] if to_hand else [card])
    assert sc.coins(p) == 4 and sc.deck_top(4) == TOP4
    done(sc)


def test_wealth_reveal_discard_neutral_to_repeat_once() -> None:
    """Dunes rulebook, Wealth Step: "The player may discard a neutral unit from their hand to
    repeat this process once." (Bearer is revealed and discarded; Sunset Marauder is discarded
    to reveal Linen-Wrapped Laborer, which is kept; Temple Servant cannot buy a second repeat.)"""
    # Checks heir-to-the-dunes.txt, line 100.
    sc = build(hands={0: [MARAUDER, SERVANT, CHANNELER]}, coins=(0, 0), deck_top=[BEARER, LABORER])
    sc.script("reveal", card=MARAUDER)
    sc.script_wealth(0)  # strict: a second reveal choice would have raised here
    sc.wealth()
    assert sorted(sc.hand(0)) == sorted([SERVANT, CHANNELER, LABORER])
    assert sc.discard_pile() == [BEARER, MARAUDER]
    assert sc.coins(0) == 4
    done(sc)


def test_wealth_reveal_repeat_is_optional() -> None:
    """Dunes rulebook, Wealth Step: "The player may discard a neutral unit" - or not."""
    # Checks heir-to-the-dunes.txt, line 100.
    sc = build(hands={0: [MARAUDER]}, coins=(0, 0), deck_top=[BEARER, LABORER])
    sc.script("reveal", a=-1)
    sc.script_wealth(0)
    sc.wealth()
    assert sc.hand(0) == [MARAUDER] and sc.discard_pile() == [BEARER]
    assert sc.deck_top(1) == [LABORER]
    done(sc)


def test_wealth_reveal_repeat_only_by_discarding_a_neutral_unit() -> None:
    """Dunes rulebook, Wealth Step: "discard a neutral unit from their hand": a devoted unit is
    no price (and with no neutral unit in hand, nothing is asked)."""
    # Checks heir-to-the-dunes.txt, line 100.
    sc = build(hands={0: [MARAUDER, CHANNELER, LABORER]}, deck_top=[BEARER, SCRIBE])
    sc.script("reveal", card=CHANNELER)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.wealth()
    sc = build(hands={0: [CHANNELER, LABORER]}, coins=(0, 0), deck_top=[BEARER, SCRIBE])
    sc.script_wealth(0)
    sc.wealth()
    assert sorted(sc.hand(0)) == sorted([CHANNELER, LABORER]) and sc.discard_pile() == [BEARER]
    done(sc)


def test_wealth_reveal_reshuffles_an_empty_deck() -> None:
    """Dunes rulebook, Wealth Step: "If a player would draw a card but the deck has no cards,
    shuffle the discard pile and place it facedown ... and draw from the newly shuffled deck."
    The reveal takes the top card too: with an empty deck it comes from the reshuffled pile."""
    # Checks heir-to-the-dunes.txt, line 108.
    rest = [u["name"] for u in load_pool("dunes").units for _ in range(u["copies"])]
    rest.remove(CHANNELER)
    sc = build(hands={1: rest}, discard=[CHANNELER], coins=(0, 0))
    assert sc.deck_size() == 0
    sc.script_wealth(0)
    sc.wealth()
    assert sc.hand(0) == [CHANNELER] and sc.discard_pile() == [] and sc.coins(0) == 4
    done(sc)


def test_wealth_after_reveal_three_actions_with_bonus() -> None:
    """Dunes rulebook, Wealth Step: "The active player has 3 Wealth actions to spend" ... "If the
    active player uses all of their Wealth actions to draw cards, they draw 1 additional card."
    (After the reveal.)"""
    # Checks heir-to-the-dunes.txt, lines 102, 104.
    sc = build(coins=(0, 0), deck_top=[CHANNELER, *TOP4])
    sc.script_wealth(3)
    sc.wealth()
    assert sorted(sc.hand(0)) == sorted([CHANNELER, *TOP4])
    assert sc.coins(0) == 0
    done(sc)


@pytest.mark.parametrize(("cards", "d_hand", "d_coins"), [(0, 0, 4), (1, 1, 2), (2, 2, 1)])
def test_wealth_coin_bonus_only_when_every_action_gains_coins(
    cards: int, d_hand: int, d_coins: int
) -> None:
    """Dunes rulebook, Wealth Step: "If the active player uses all of their Wealth actions to gain
    coins, they gain 1 additional coin." Three coins give four; a split gives no bonus either
    way. (The reveal first: a Horus Follower is not Anubis's, so it is discarded.)"""
    # Checks heir-to-the-dunes.txt, lines 102, 104.
    sc = build(coins=(0, 0), deck_top=[BEARER, *TOP4])
    sc.script_wealth(cards)
    sc.wealth()
    assert sorted(sc.hand(0)) == sorted(TOP4[:d_hand])
    assert sc.coins(0) == d_coins and sc.discard_pile() == [BEARER]
    done(sc)


@pytest.mark.parametrize(("cards", "d_hand", "d_coins"), [(2, 3, 0), (0, 0, 3), (1, 1, 1)])
def test_wealth_first_turn_two_actions(cards: int, d_hand: int, d_coins: int) -> None:
    """Dunes rulebook, Wealth Step NOTE: "On the first turn of the game, the First Player receives
    2 Wealth actions instead of 3. The player still receives a Wealth Action Bonus if all Wealth
    actions are used for the same action." (The reveal happens first, as on every turn.)"""
    # Checks heir-to-the-dunes.txt, line 110.
    sc = build(coins=(4, 4), deck_top=[BEARER, *TOP4], turn=0)
    sc.script_wealth(cards)
    sc.wealth()
    assert sorted(sc.hand(0)) == sorted(TOP4[:d_hand])
    assert sc.discard_pile() == [BEARER] and sc.coins(0) == 4 + d_coins
    done(sc)
    sc = build(deck_top=TOP4, turn=0)
    sc.script_wealth(3)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.wealth()


# =============================================================================
# Surge Step: structures complete at its start
# =============================================================================


@pytest.mark.parametrize(("under", "complete"), [(3, False), (4, True), (6, True)])
def test_structure_completes_at_surge_start(under: int, complete: bool) -> None:
    """Dunes rulebook, Surge Step: "At the beginning of the Surge Step, the active player checks to
    see if any of their structures have cards equal to or greater than the indicated build cost
    tucked underneath. If so, the player flips the structure to its completed side and resolves
    its ability." (Pyramid of the Jackal: build cost 4; completed: gain 3 coins.)"""
    # Checks heir-to-the-dunes.txt, line 125.
    sc = build(coins=(0, 4), under={0: {PYRAMID: under}})
    sc.surge()  # nothing in hand: a forced pass
    assert sc.structures(0) == [(SHRINE, 0, False), (PYRAMID, under, complete), (HALL, 0, False)]
    assert sc.coins(0) == (3 if complete else 0)


def test_structure_completion_ability_resolves_once() -> None:
    """Dunes rulebook, Surge Step: the structure is flipped "to its completed side" and its
    ability resolves then; a completed structure does not resolve again in later Surges."""
    sc = build(coins=(0, 4), under={0: {PYRAMID: 4}}, built={0: [PYRAMID]})
    sc.surge()
    assert sc.coins(0) == 0 and sc.structures(0)[1] == (PYRAMID, 4, True)


def test_structure_shrine_takes_from_discard_on_completion() -> None:
    """Dunes rulebook, Surge Step: "flips the structure to its completed side and resolves its
    ability" (Shrine of the Embalmers: take 1 unit from the discard pile into your hand)."""
    # Checks heir-to-the-dunes.txt, line 125.
    sc = build(coins=(0, 4), under={0: {SHRINE: 3}}, discard=[SEER, DEVOURER])
    sc.script_target("take", DEVOURER)
    sc.surge()
    assert sc.hand(0) == [DEVOURER] and sc.discard_pile() == [SEER]
    assert sc.structures(0)[0] == (SHRINE, 3, True)
    done(sc)


def test_only_the_active_players_structures_complete() -> None:
    """Dunes rulebook, Surge Step: "the active player checks to see if any of their structures"
    are complete: the opponent's Obelisk waits for its owner's Surge (then: draw 1, gain 1)."""
    # Checks heir-to-the-dunes.txt, line 125.
    sc = build(coins=(0, 0), under={1: {OBELISK: 3}}, deck_top=TOP4)
    sc.surge()
    assert sc.structures(1)[0] == (OBELISK, 3, False) and sc.hand(1) == []
    sc.end_turn()
    sc.surge()
    assert sc.structures(1)[0] == (OBELISK, 3, True)
    assert sc.hand(1) == TOP4[:1] and sc.coins(1) == 1


def test_structure_temple_turns_favor_to_horus() -> None:
    """Dunes rulebook, Surge Step: completed structures resolve their ability (Temple of the Sun
    Disc: turn the Favor card to Horus and gain 2 coins)."""
    sc = build(coins=(0, 0), under={1: {TEMPLE: 4}}, favor="anubis", active=1)
    sc.surge()
    assert sc.favor == "horus" and sc.coins(1) == 2
    assert sc.structures(1)[1] == (TEMPLE, 4, True)


# =============================================================================
# Surge Step: REINFORCE (Followers)
# =============================================================================


def test_reinforce_one_unit_devoted_to_your_god_in_that_city() -> None:
    """Dunes rulebook, Unit Card Types, Follower: "After a player plays a unit devoted to their
    god into a city, that player can resolve the REINFORCE ability of a single unit devoted to
    their god in that city, including the unit just played." (Channeler: draw 1 - only it.)"""
    # Checks heir-to-the-dunes.txt, line 150.
    cities = {0: {0: [CHANNELER]}, 1: {0: [KEEPER]}}
    sc = build(hands={0: [GRAVEDIGGER]}, coins=(0, 4), cities=cities, deck_top=TOP4)
    play(sc, GRAVEDIGGER, city=0, cost=0)
    sc.script("reinforce", card=CHANNELER)
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == TOP4[:1] and sc.coins(0) == 0  # Gravedigger's REINFORCE did not run
    assert sc.city(0, 0) == [CHANNELER, GRAVEDIGGER]
    done(sc)


def test_reinforce_the_unit_just_played() -> None:
    """Dunes rulebook, Follower: "... including the unit just played." (Necropolis Gravedigger:
    gain 1 coin; you may ENTOMB this unit - declined.)"""
    # Checks heir-to-the-dunes.txt, line 150.
    sc = build(hands={0: [GRAVEDIGGER]}, coins=(0, 4), cities={0: {0: [CHANNELER]}}, deck_top=TOP4)
    play(sc, GRAVEDIGGER, city=0, cost=0)
    sc.script("reinforce", card=GRAVEDIGGER)
    sc.script_may(False)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 1 and sc.hand(0) == []
    assert sc.city(0, 0) == [CHANNELER, GRAVEDIGGER]
    done(sc)


def test_reinforce_not_from_another_city() -> None:
    """Dunes rulebook, Follower: "a single unit devoted to their god in that city": Keeper of the
    Canopic Jars in another city is not a choice."""
    # Checks heir-to-the-dunes.txt, line 150.
    cities = {0: {0: [CHANNELER]}, 1: {0: [KEEPER]}}
    sc = build(hands={0: [GRAVEDIGGER]}, coins=(0, 4), cities=cities, discard=[SEER])
    play(sc, GRAVEDIGGER, city=0, cost=0)
    sc.script("reinforce", card=KEEPER)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


def test_reinforce_is_optional() -> None:
    """Dunes rulebook, Follower: "that player can resolve the REINFORCE ability" - may decline."""
    # Checks heir-to-the-dunes.txt, line 150.
    sc = build(hands={0: [CHANNELER]}, coins=(1, 4), deck_top=TOP4)
    play(sc, CHANNELER, city=0, cost=1)
    no_reinforce(sc)
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == [] and sc.deck_top(4) == TOP4
    done(sc)


def test_no_reinforce_after_a_neutral_or_opposing_unit() -> None:
    """Dunes rulebook, Follower: REINFORCE follows only when "a player plays a unit devoted to
    their god": a neutral Temple Servant and a Horus Bearer played beside an Anubis Channeler
    open no REINFORCE (strict: none is asked)."""
    # Checks heir-to-the-dunes.txt, line 150.
    sc = build(
        hands={0: [SERVANT, BEARER]}, coins=(3, 4), favor="horus", cities={0: {0: [CHANNELER]}},
        deck_top=TOP4,
    )  # fmt: skip
    play(sc, SERVANT, city=0, cost=1)
    play(sc, BEARER, city=0, cost=2)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [CHANNELER, SERVANT, BEARER]
    assert sc.hand(0) == [] and sc.coins(0) == 0 and sc.deck_top(4) == TOP4
    done(sc)


def test_reinforce_after_a_unit_devoted_to_both() -> None:
    """Dunes rulebook, Follower: "After a player plays a unit devoted to their god" - an Embalmed
    is devoted to both gods, their god included (Linen-Wrapped Laborer opens Channeler's)."""
    # Checks heir-to-the-dunes.txt, line 150.
    sc = build(hands={0: [LABORER]}, coins=(0, 4), cities={2: {0: [CHANNELER]}}, deck_top=TOP4)
    play(sc, LABORER, city=2, cost=0)
    sc.script("reinforce", card=CHANNELER)
    sc.script_pass()
    sc.surge()
    assert sc.hand(0) == TOP4[:1] and sc.city(2, 0) == [CHANNELER, LABORER]
    done(sc)


@pytest.mark.parametrize(("reading", "units"), [("by_book", 3), ("capacity", 4)])
def test_reinforce_colossal_overseer_coin_per_unit(reading: str, units: int) -> None:
    """Dunes rulebook, COLOSSAL Units: "A COLOSSAL unit counts as 2 units instead of 1 when
    determining if a city is war-torn or not" (and for the capacity and the keep). Overseer of
    the Necropolis, REINFORCE: gain 1 coin per unit of yours here. Reading
    ``units_in_card_texts``: by the book its 3 cards are 3 units; under ``"capacity"`` the
    Overseer is 2 of 4."""
    # Checks heir-to-the-dunes.txt, lines 129, 178.
    rules = {"RU_TEXT_UNITS_CAPACITY": 1} if reading == "capacity" else None
    sc = build(
        hands={0: [OVERSEER]}, coins=(3, 4), cities={1: {0: [SERVANT, MARAUDER]}}, rules=rules
    )
    play(sc, OVERSEER, city=1, cost=3)
    sc.script("reinforce", card=OVERSEER)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == units
    done(sc)
    # ... and at 4 unit-slots a COLOSSAL unit no longer fits (capacity 5).
    sc = build(hands={0: [OVERSEER]}, coins=(3, 4), cities={1: {0: [SERVANT, MARAUDER, GRANARIES]}})
    sc.script_play(OVERSEER, city=1)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


# =============================================================================
# Surge Step: INVOCATION (Initiates)
# =============================================================================


@pytest.mark.parametrize(
    ("p", "favor", "gain"), [(0, "anubis", 2), (0, "horus", 0), (1, "horus", 2)]
)
def test_invocation_resolves_only_if_your_god_is_favored(p: int, favor: str, gain: int) -> None:
    """Dunes rulebook, Initiate: "after a unit with an INVOCATION ability is played to a city, the
    player resolves its ability if their god is currently Favored." (Temple Servant: gain 2.)"""
    # Checks heir-to-the-dunes.txt, line 151.
    sc = build(hands={p: [SERVANT]}, coins=(1, 1), favor=favor, active=p)
    play(sc, SERVANT, city=0, cost=1)
    sc.script_pass()
    sc.surge()
    assert sc.coins(p) == gain and sc.favor == favor
    done(sc)


def test_invocation_sees_favor_after_earlier_plays() -> None:
    """Dunes rulebook, Devotion and Favor: "check the unit's devotion prior to resolving any
    abilities": Favor flipped by an earlier play decides a later INVOCATION (Gravedigger turns it
    to Anubis, so Temple Servant's resolves; a Laborer, devoted to both, turns it away)."""
    # Checks heir-to-the-dunes.txt, line 133.
    sc = build(hands={0: [GRAVEDIGGER, SERVANT]}, coins=(1, 4), favor="horus")
    play(sc, GRAVEDIGGER, city=0, cost=0)
    no_reinforce(sc)
    play(sc, SERVANT, city=0, cost=1)
    sc.script_pass()
    sc.surge()
    assert sc.favor == "anubis" and sc.coins(0) == 2
    done(sc)
    sc = build(hands={0: [LABORER, SERVANT]}, coins=(1, 4), favor="anubis")
    play(sc, LABORER, city=0, cost=0)
    play(sc, SERVANT, city=0, cost=1)
    sc.script_pass()
    sc.surge()
    assert sc.favor == "horus" and sc.coins(0) == 0
    done(sc)


def test_invocation_marauder_takes_coins_for_favored_horus() -> None:
    """Dunes rulebook, Initiate (Sunset Marauder, INVOCATION: take up to 2 coins from your
    opponent), for the Horus player while Horus is Favored: only 1 coin is there to take."""
    sc = build(hands={1: [MARAUDER]}, coins=(1, 2), favor="horus", active=1)
    play(sc, MARAUDER, city=2, cost=2)
    sc.script_pass()
    sc.surge()
    assert sc.coins(1) == 1 and sc.coins(0) == 0
    done(sc)


@pytest.mark.parametrize(("favor", "anubis_s", "horus_s"), [("anubis", 6, 3), ("horus", 4, 5)])
def test_invocation_plus_one_strength_while_favored(
    favor: str, anubis_s: int, horus_s: int
) -> None:
    """Dunes rulebook, Initiate: "Next, all of a player's units with INVOCATION are +1 strength
    if their god is Favored." (Anubis: Temple Servant 1 + Sunset Marauder 1 + Channeler 2, plus
    1 for each Initiate while Anubis is Favored; Horus: Temple Servant 1 + Tomb Robber 2, plus 1
    for each while Horus is Favored.)"""
    # Checks heir-to-the-dunes.txt, line 151.
    cities = {0: {0: [SERVANT, MARAUDER, CHANNELER], 1: [SERVANT, ROBBER]}}
    sc = build(cities=cities, favor=favor)
    assert sc.strength(0, 0) == anubis_s
    assert sc.strength(0, 1) == horus_s


# =============================================================================
# Surge Step: MANEUVER (Viziers)
# =============================================================================


def _maneuver_position(**kw: Any) -> Scenario:
    cities = {0: {0: [SERVANT, CHANNELER]}, 1: {0: [MARAUDER]}, 2: {0: [GRANARIES]}}
    return build(hands={0: [SCROLLS]}, coins=(4, 4), cities=kw.pop("cities", cities), **kw)


def maneuver_with_scrolls(sc: Scenario, *moves: tuple[int, int, str]) -> None:
    """Seat 0 plays Vizier of the Scrolls (MANEUVER 2) into city 1, makes ``moves`` (from
    city, to city, unit) with it and ends the Surge."""
    play(sc, SCROLLS, city=1, cost=4)
    sc.script_may(True)
    for a, c, card in moves:
        sc.script("move", a=a, c=c, card=card)
    sc.script_pass()
    sc.surge()


def refused_maneuver(sc: Scenario, move: tuple[int, int, str]) -> None:
    """Seat 0 plays Vizier of the Scrolls into city 1; ``move`` (from city, to city, unit)
    with its MANEUVER matches no legal option."""
    play(sc, SCROLLS, city=1, cost=4)
    sc.script_may(True)
    a, c, card = move
    sc.script("move", a=a, c=c, card=card)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


def test_maneuver_moves_units_into_and_out_of_its_city() -> None:
    """Dunes rulebook, Vizier: "After a unit with MANEUVER is played into a city, the player may
    move units equal to the indicated number without MANEUVER into or out of the city into which
    it was played." (Vizier of the Scrolls, MANEUVER 2, into city 1: Temple Servant comes in from
    city 0, Sunset Marauder leaves for city 2; no third move is asked, though Channeler could.)"""
    # Checks heir-to-the-dunes.txt, line 152.
    sc = _maneuver_position()
    maneuver_with_scrolls(sc, (0, 1, SERVANT), (1, 2, MARAUDER))
    assert sc.city(0, 0) == [CHANNELER]
    assert sc.city(1, 0) == [SCROLLS, SERVANT]
    assert sc.city(2, 0) == [GRANARIES, MARAUDER]
    done(sc)


def test_maneuver_is_optional_and_up_to_n() -> None:
    """Dunes rulebook, Vizier: "the player may move units equal to the indicated number": none
    (declined), or fewer than the number."""
    # Checks heir-to-the-dunes.txt, line 152.
    sc = _maneuver_position()
    play(sc, SCROLLS, city=1, cost=4)
    sc.script_may(False)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [SERVANT, CHANNELER] and sc.city(1, 0) == [MARAUDER, SCROLLS]
    done(sc)
    sc = _maneuver_position()
    play(sc, SCROLLS, city=1, cost=4)
    sc.script_may(True)
    sc.script("move", a=0, c=1, card=CHANNELER)
    sc.script("move", a=-1)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [SERVANT] and sc.city(1, 0) == [MARAUDER, SCROLLS, CHANNELER]
    done(sc)


@pytest.mark.parametrize(
    ("a", "c", "card"),
    [
        (0, 2, SERVANT),  # neither into nor out of city 1
        (2, 1, GRANARIES),  # has MANEUVER
        (2, 0, GRANARIES),
        (1, 0, SCROLLS),  # the Vizier itself has MANEUVER
    ],
)
def test_maneuver_only_units_without_maneuver_into_or_out_of_its_city(
    a: int, c: int, card: str
) -> None:
    """Dunes rulebook, Vizier: "move ... units ... without MANEUVER into or out of the city into
    which it was played." """
    # Checks heir-to-the-dunes.txt, line 152.
    sc = _maneuver_position()
    refused_maneuver(sc, (a, c, card))


@pytest.mark.parametrize("exact", [False, True])
def test_maneuver_moves_each_unit_once(exact: bool) -> None:
    """Dunes rulebook, Vizier: "the player may move units equal to the indicated number ... into
    or out of the city into which it was played": N units, each moved once. Temple Servant moved
    from city 0 into city 1 cannot then leave city 1 for city 2 (a transfer between two cities
    neither of which is the Vizier's), under either ``maneuver_count`` reading."""
    # Checks heir-to-the-dunes.txt, line 152.
    rules = {"RU_MANEUVER_EXACT": 1} if exact else None
    sc = _maneuver_position(rules=rules)
    play(sc, SCROLLS, city=1, cost=4)
    sc.script_may(True)
    sc.script("move", a=0, c=1, card=SERVANT)
    sc.script("move", a=1, c=2, card=SERVANT)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()


def test_maneuver_exactly_n_ends_when_no_other_unit_can_move() -> None:
    """Dunes rulebook, Vizier, read as ``maneuver_count = "exactly"``: N units, or as many as
    can move. With one unit able to move, MANEUVER 2 moves it once and ends: the unit that came
    in is not offered again, so no second move (in or out) is asked of the player (strict: an
    unscripted decision would fail the test)."""
    # Checks heir-to-the-dunes.txt, line 152.
    sc = _maneuver_position(cities={0: {0: [SERVANT]}}, rules={"RU_MANEUVER_EXACT": 1})
    play(sc, SCROLLS, city=1, cost=4)
    sc.script_may(True)
    sc.script("move", a=0, c=1, card=SERVANT)
    sc.script_pass()
    sc.surge()
    assert sc.city(0, 0) == [] and sc.city(1, 0) == [SCROLLS, SERVANT]
    done(sc)


@pytest.mark.parametrize("twice", [True, False])
def test_move_up_to_n_moves_each_unit_once(twice: bool) -> None:
    """Solar Barque of Ra ("move up to 2 of your units"): two units, each once. Moving Temple
    Servant on a second time is not offered; moving a second unit is."""
    # Checks heir-to-the-dunes.txt, line 152.
    sc = build(
        cities={0: {0: [SERVANT, MARAUDER]}}, rewards={0: [(BARQUE, False)]},
        stacks={0: [CROOK], 1: [WAS], 2: []},
    )  # fmt: skip
    sc.script_use_reward(BARQUE)
    sc.script("move", a=0, c=1, card=SERVANT)
    if twice:
        sc.script("move", a=1, c=2, card=SERVANT)
        with pytest.raises(ScenarioError, match=NOT_ALLOWED):
            sc.surge()
        return
    sc.script("move", a=0, c=2, card=MARAUDER)
    sc.script_pass()
    sc.surge()
    assert sc.city(1, 0) == [SERVANT] and sc.city(2, 0) == [MARAUDER]
    done(sc)


def test_maneuver_respects_city_capacity() -> None:
    """Dunes rulebook, Surge Step: "A player cannot play, move, or use any ability that would add
    a unit to their side of a city that is at city capacity." (Scrolls, COLOSSAL, fills city 1 to
    5 unit-slots: nothing may come in; a unit may still go out.)"""
    # Checks heir-to-the-dunes.txt, line 129.
    cities = {0: {0: [SERVANT]}, 1: {0: [MARAUDER, ROBBER, SEER]}}
    sc = _maneuver_position(cities=cities)
    refused_maneuver(sc, (0, 1, SERVANT))
    sc = _maneuver_position(cities=cities)
    maneuver_with_scrolls(sc, (1, 0, SEER), (0, 1, SERVANT))  # room again after Seer left
    assert sc.city(0, 0) == [SEER] and sc.city(1, 0) == [MARAUDER, ROBBER, SCROLLS, SERVANT]
    done(sc)


def test_maneuver_moves_only_your_own_units() -> None:
    """Dunes rulebook, Vizier: "the player may move units" - their own: the opponent's Temple
    Servant is not a choice."""
    # Checks heir-to-the-dunes.txt, line 152.
    cities = {0: {0: [CHANNELER], 1: [SERVANT]}}
    sc = _maneuver_position(cities=cities)
    refused_maneuver(sc, (0, 1, SERVANT))


# =============================================================================
# Surge Step: reward tiles
# =============================================================================


def test_one_reward_tile_per_surge() -> None:
    """Dunes rulebook, Reward Tiles: "once per Surge Step, the active player may use 1 of their
    reward tiles ... using their abilities reduces the value of the tile from 2VP to 1VP."
    (Feather of Ma'at, not Favored: gain 2 coins and turn the Favor card to your god.)"""
    # Checks heir-to-the-dunes.txt, line 139.
    rewards = {0: [(FEATHER, False), (ANKH, False)]}
    sc = build(coins=(0, 4), rewards=rewards, favor="horus")
    sc.script_use_reward(FEATHER)
    sc.script_use_reward(ANKH)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    assert sc.rewards(0) == [(FEATHER, True), (ANKH, False)]
    assert sc.coins(0) == 2 and sc.favor == "anubis"
    assert sc.result()["score_p0"] == 1 + 2


def test_reward_ankh_draws_only_when_favored() -> None:
    """Dunes rulebook, Reward Tiles: "The effect described on the tile is resolved at the time the
    tile is flipped." (Ankh of Eternal Life: gain 2 coins; if your god is Favored, draw 2.)"""
    # Checks heir-to-the-dunes.txt, line 143.
    for favor, draws in (("anubis", 2), ("horus", 0)):
        sc = build(coins=(0, 4), rewards={0: [(ANKH, False)]}, favor=favor, deck_top=TOP4)
        sc.script_use_reward(ANKH)
        sc.script_pass()
        sc.surge()
        assert sc.coins(0) == 2 and sc.hand(0) == TOP4[:draws]
        done(sc)


@pytest.mark.parametrize(("favor", "strength"), [("anubis", 3), ("horus", 4)])
def test_strength_limit_counts_the_favored_invocation_bonus(favor: str, strength: int) -> None:
    """Dunes rulebook, Initiate: "all of a player's units with INVOCATION are +1 strength if their
    god is Favored." Reading ``ability_strength``: Was Scepter ("Return 1 enemy unit with 3 or
    less Strength in any city") reads that strength. The Horus player's Dune Raider (INVOCATION,
    printed 3) is within reach while Anubis is Favored and out of it, at 4, while Horus is; using
    the tile turns no Favor card."""
    # Checks heir-to-the-dunes.txt, lines 143, 151.
    stacks = {0: [CROOK], 1: [KHOPESH], 2: [BARQUE]}
    sc = build(rewards={0: [(WAS, False)]}, cities={1: {1: [RAIDER]}}, favor=favor, stacks=stacks)
    assert sc.strength(1, 1) == strength
    sc.script_use_reward(WAS)
    sc.script_pass()
    sc.surge()
    returned = strength <= 3
    assert sc.city(1, 1) == ([] if returned else [RAIDER])
    assert sc.hand(1) == ([RAIDER] if returned else [])
    assert sc.rewards(0) == [(WAS, True)] and sc.favor == favor
    done(sc)


# =============================================================================
# War Step
# =============================================================================


@pytest.mark.parametrize(
    ("mine", "theirs", "torn"),
    [
        ([], [SERVANT, MARAUDER, NOVICE], True),  # the opponent has 3 units
        ([], [SERVANT, MARAUDER], False),
        ([], [USURPER, HERALD], True),  # COLOSSAL counts 2: the opponent has 3
        ([CHANNELER, WARDEN, KEEPER], [SERVANT, MARAUDER], True),  # 5 in all
        ([CHANNELER, WARDEN, KEEPER], [SERVANT], False),  # 4 in all; mine are no "opponent"
        ([DEVOURER, CHANNELER], [USURPER], True),  # 2 + 1 + 2 = 5
        ([DEVOURER], [USURPER], False),
    ],
)
def test_war_torn_test(mine: list[str], theirs: list[str], torn: bool) -> None:
    """Dunes rulebook, War Step: "A city is war-torn if an opponent has at least 3 units in the
    city and/or the sum of both players units total 5 or more." and Colossal Units: "A COLOSSAL
    unit counts as 2 units instead of 1 when determining if a city is war-torn or not." """
    # Checks heir-to-the-dunes.txt, lines 158, 178.
    sc = build(cities={1: {0: mine, 1: theirs}}, favor="horus")
    assert sc.war_torn(1) is torn


def test_war_city_without_tiles_never_war_torn() -> None:
    """Dunes rulebook, War Step NOTE: "A player may play units into a city with no reward tiles,
    but such a city will never become war-torn again." """
    # Checks heir-to-the-dunes.txt, line 174.
    cities = {2: {0: [DEVOURER, WARDEN], 1: [USURPER, HERALD]}}
    sc = build(cities=cities, stacks={0: [CROOK], 1: [WAS], 2: []})
    assert not sc.war_torn(2)
    sc.war()
    assert sc.city(2, 0) == [DEVOURER, WARDEN] and sc.city(2, 1) == [USURPER, HERALD]


def test_war_torn_in_surge_resolved_only_in_war() -> None:
    """Dunes rulebook, War Step NOTE: "A city can become or cease to be war-torn in any step, but
    conflicts are only ever resolved during the War Step." (heir-to-the-dunes.txt, line 160.)
    A Temple Servant played in the Surge makes 5 units in city 0: war-torn at once, resolved
    only when the War Step comes."""
    cities = {0: {0: [WARDEN, KEEPER], 1: [MARAUDER, NOVICE]}}
    sc = build(hands={0: [SERVANT]}, coins=(1, 4), cities=cities, favor="horus")
    assert not sc.war_torn(0)
    play(sc, SERVANT, city=0, cost=1)
    sc.script_pass()
    sc.surge()
    assert sc.war_torn(0)
    assert sc.city(0, 0) == [WARDEN, KEEPER, SERVANT] and sc.city(0, 1) == [MARAUDER, NOVICE]
    assert sc.rewards(0) == sc.rewards(1) == []
    sc.script_keep(0, [0])
    sc.war()
    assert not sc.war_torn(0)
    assert len(sc.rewards(0)) == 1 and sc.city(0, 0) == [WARDEN]
    done(sc)


def test_war_torn_token_turns_in_the_war_step() -> None:
    """Dunes rulebook, War Step: "When a city becomes war-torn, flip the war-torn token to its
    war-torn side" ... "Lastly, flip the war-torn token to its peaceful side." Reading
    ``war_torn_token``: the Temple Servant played in the Surge makes city 0 war-torn at once
    (5 units), but its token turns only when the War Step checks the cities, and is peaceful
    again once the conflict is resolved."""
    # Checks heir-to-the-dunes.txt, lines 158-160, 172.
    cities = {0: {0: [WARDEN, KEEPER], 1: [MARAUDER, NOVICE]}}
    sc = build(hands={0: [SERVANT]}, coins=(1, 4), cities=cities, favor="horus")
    play(sc, SERVANT, city=0, cost=1)
    sc.script_pass()
    sc.surge()
    assert sc.war_torn(0) and not sc.war_torn_token(0)
    sc.script_keep(0, [0])
    sc.war()
    assert not sc.war_torn(0) and not sc.war_torn_token(0)
    assert sc.rewards(0) == [(CROOK, False)]
    done(sc)


def test_war_loser_may_keep_a_colossal_unit() -> None:
    """Dunes rulebook, Colossal Units: "the loser of the conflict could choose to keep a COLOSSAL
    unit or 2 other units without COLOSSAL." (Anubis, active, wins 8 to 5; Horus keeps its
    Usurper alone.)"""
    # Checks heir-to-the-dunes.txt, line 180.
    cities = {0: {0: [DEVOURER, WARDEN], 1: [USURPER, HERALD]}}
    sc = build(cities=cities, favor="anubis", stacks={0: [KHOPESH], 1: [WAS], 2: [CROOK]})
    assert (sc.strength(0, 0), sc.strength(0, 1)) == (8, 5)
    sc.script_keep(0, [1])
    sc.script_keep(0, [0])
    sc.war()
    assert sc.rewards(0) == [(KHOPESH, False)]
    assert sc.city(0, 0) == [WARDEN] and sc.city(0, 1) == [USURPER]
    assert sorted(sc.discard_pile()) == sorted([DEVOURER, HERALD])
    done(sc)


def _war_example(usurper: str = USURPER, favor: str = "anubis") -> Scenario:
    """The Colossal Units example: the active Horus player (seat 1) has Rabid Usurper and Sunset
    Marauder in the leftmost city; the Favored Anubis player has Temple Servant and Moonlight
    Channeler (the "other unit": 1 + 2 = 3 printed strength)."""
    cities = {0: {1: [usurper, MARAUDER], 0: [SERVANT, CHANNELER]}}
    stacks = {0: [WAS, KHOPESH], 1: [CROOK], 2: [BARQUE]}
    return build(cities=cities, stacks=stacks, favor=favor, active=1)


def test_war_rulebook_colossal_example() -> None:
    """Dunes rulebook, Colossal Units EXAMPLE: "the leftmost city is war-torn because there are 5
    units in the city. While there are only 4 actual unit cards present in the city, the Rabid
    Usurper has the keyword ability COLOSSAL, which means it counts as 2 units." ... "The
    opposing player's units have a total of 3 strength, but the Temple Servant has the keyword
    ability INVOCATION and their god Anubis is Favored. This increases the strength by 1 for a
    total of 4. The active player's units have a total strength of 5." ... "the active player
    takes the top reward tile in the city and must discard units until they only have 1
    remaining. The active player can only choose to keep the Sunset Marauder" ... "the opposing
    player only has 2 units neither of which are COLOSSAL, so keeps both units."

    The rulebook prints no strength values; the shipped (reconstructed) Rabid Usurper 4, Sunset
    Marauder 1, Temple Servant 1 and Moonlight Channeler 2 reproduce its totals exactly."""
    # Checks heir-to-the-dunes.txt, lines 166, 172, 182-192.
    sc = _war_example()
    assert sc.war_torn(0)
    assert (sc.strength(0, 1), sc.strength(0, 0)) == (5, 4)
    sc.script_keep(0, [1])  # the victor: Sunset Marauder (its only choice)
    sc.script_keep(0, [0, 1])  # the loser keeps both
    sc.war()
    assert sc.rewards(1) == [(KHOPESH, False)] and sc.rewards(0) == []
    assert sc.stack(0) == [WAS]
    assert sc.city(0, 1) == [MARAUDER]
    assert sc.city(0, 0) == [SERVANT, CHANNELER]
    assert sc.discard_pile() == [USURPER]
    assert not sc.war_torn(0) and not sc.war_torn_token(0)
    done(sc)


def test_war_victor_cannot_keep_the_colossal_usurper() -> None:
    """Dunes rulebook, Colossal Units: "the victor can never keep a COLOSSAL unit" ("The active
    player can only choose to keep the Sunset Marauder, as the Rabid Usurper is a COLOSSAL
    unit")."""
    # Checks heir-to-the-dunes.txt, lines 180, 188.
    sc = _war_example()
    sc.script_keep(0, [0])
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.war()


def test_war_colossal_counts_two_for_war_torn() -> None:
    """Dunes rulebook, Colossal Units: "A COLOSSAL unit counts as 2 units instead of 1 when
    determining if a city is war-torn or not." With Falcon-Eyed Archer (not COLOSSAL) instead of
    the Usurper there are only 4 units: no conflict."""
    # Checks heir-to-the-dunes.txt, line 178.
    sc = _war_example(usurper=ARCHER)
    assert not sc.war_torn(0)
    sc.war()
    assert sc.rewards(0) == sc.rewards(1) == [] and sc.stack(0) == [WAS, KHOPESH]
    assert sc.city(0, 1) == [ARCHER, MARAUDER]


def test_war_invocation_bonus_only_for_the_favored_player() -> None:
    """Dunes rulebook, Colossal Units EXAMPLE: "the Sunset Marauder has the keyword ability
    INVOCATION, it does not provide any additional strength because their god Horus is not
    Favored." With Horus Favored instead, the +1 goes to the Horus side (4 + 1 + 1 = 6) and not
    to the Anubis side (1 + 2 = 3)."""
    # Checks heir-to-the-dunes.txt, line 186.
    sc = _war_example(favor="horus")
    assert (sc.strength(0, 1), sc.strength(0, 0)) == (6, 3)


def test_war_strength_tie_goes_to_higher_total_cost() -> None:
    """Dunes rulebook, Resolving Conflicts: "In the event of a tie, the player with the highest
    total unit cost in that city is the victor." (Horus, active: Falcon-Eyed Archer 3/3 + Herald
    1/2 = strength 4, cost 5; Anubis: Channeler 2/2 + Gravedigger 1/1 + Novice Embalmer 1/1 =
    strength 4, cost 4; Horus is Favored and holds no INVOCATION unit.)"""
    # Checks heir-to-the-dunes.txt, line 168.
    cities = {1: {1: [ARCHER, HERALD], 0: [CHANNELER, GRAVEDIGGER, NOVICE]}}
    sc = build(cities=cities, active=1, favor="horus")
    assert sc.strength(1, 1) == sc.strength(1, 0) == 4
    sc.script_keep(1, [0])  # the victor keeps the Archer
    sc.script_keep(1, [0, 1])
    sc.war()
    assert sc.rewards(1) == [(WAS, False)] and sc.rewards(0) == []
    assert sc.city(1, 1) == [ARCHER] and sc.city(1, 0) == [CHANNELER, GRAVEDIGGER]
    assert sorted(sc.discard_pile()) == sorted([HERALD, NOVICE])
    done(sc)


def test_war_full_tie_neither_wins() -> None:
    """Dunes rulebook, Resolving Conflicts: "If players are still tied, neither player is the
    victor, and both players must destroy all but 2 of their units in that city." (Strength 4
    and cost 5 on both sides: Archer + Herald against Channeler + Gravedigger + Weigher.)
    Reading ``war_keep_order``: the active player chooses its keep first, then the other."""
    # Checks heir-to-the-dunes.txt, line 168.
    cities = {1: {1: [ARCHER, HERALD], 0: [CHANNELER, GRAVEDIGGER, WEIGHER]}}
    sc = build(cities=cities, active=1, favor="horus")
    assert sc.strength(1, 1) == sc.strength(1, 0) == 4
    sc.script_keep(1, [0, 1])  # the active player first (both of its units)
    sc.script_keep(1, [0, 2])
    sc.war()
    assert sc.rewards(0) == sc.rewards(1) == [] and sc.stack(1) == [WAS]
    assert sc.city(1, 1) == [ARCHER, HERALD] and sc.city(1, 0) == [CHANNELER, WEIGHER]
    assert sc.discard_pile() == [GRAVEDIGGER]
    done(sc)


# =============================================================================
# Offering Step
# =============================================================================


@pytest.mark.parametrize(("cards", "coins"), [(3, 0), (0, 3), (2, 1), (1, 2)])
def test_offering_channeler_example_draw_and_gain(cards: int, coins: int) -> None:
    """Dunes rulebook, Offering Step: "Moonlight Channeler has an offering value of 3 and a
    strength value of 2. If a player were to discard Moonlight Channeler they could: Draw 3 cards;
    Gain 3 coins; Draw 2 cards and gain 1 coin; Draw 1 card and gain 2 coins" """
    # Checks heir-to-the-dunes.txt, lines 198, 209-214.
    sc = build(hands={0: [CHANNELER]}, coins=(0, 4), deck_top=TOP4)
    offer(sc, CHANNELER, cards)
    sc.offering()
    assert sc.hand(0) == TOP4[:cards] and sc.coins(0) == coins
    assert sc.discard_pile() == [CHANNELER]
    assert sc.structures(0) == [(s, 0, False) for s in STRUCTURES[0]]
    done(sc)


@pytest.mark.parametrize("structure", [SHRINE, PYRAMID, HALL])
def test_offering_channeler_example_build_for_two(structure: str) -> None:
    """Dunes rulebook, Offering Step: "... or Build for 2": "The unit is revealed and cards equal
    to the unit's strength are placed under the structure the player wishes to build. The player
    then resolves any LABOR ability on the revealed unit and places it on top of the discard
    pile." Reading ``build_from``: those cards come from the top of the deck."""
    # Checks heir-to-the-dunes.txt, line 200.
    sc = build(hands={0: [CHANNELER, SEER]}, coins=(0, 4), deck_top=TOP4, discard=[ROBBER])
    sc.script_build(CHANNELER, structure)
    sc.offering()
    assert sc.under_cards(0) == TOP4[:2]
    assert sc.structures(0) == [(s, 2 if s == structure else 0, False) for s in STRUCTURES[0]]
    assert sc.deck_top(2) == TOP4[2:]
    assert sc.discard_pile() == [ROBBER, CHANNELER]  # on top
    assert sc.hand(0) == [SEER] and sc.coins(0) == 0
    done(sc)


def test_offering_is_optional() -> None:
    """Dunes rulebook, Offering Step: "a player may offer 1 of the unit cards from their hand"."""
    # Checks heir-to-the-dunes.txt, line 196.
    sc = build(hands={0: [CHANNELER]}, coins=(0, 4), deck_top=TOP4)
    sc.script("offer", a=-1)
    sc.offering()
    assert sc.hand(0) == [CHANNELER] and sc.discard_pile() == [] and sc.under_cards(0) == []
    done(sc)


def test_build_only_the_structure_in_progress() -> None:
    """Dunes rulebook, Offering Step: "A player can only build 1 structure at a time. A structure
    with any cards under it considered being built." and "A player can never have cards under
    more than 1 of their structures at any time." (Pyramid has a card under it: only it may be
    built.)"""
    # Checks heir-to-the-dunes.txt, lines 204-205.
    for other in (SHRINE, HALL):
        sc = build(hands={0: [CHANNELER]}, under={0: {PYRAMID: 1}}, deck_top=TOP4)
        sc.script_build(CHANNELER, other)
        with pytest.raises(ScenarioError, match=NOT_ALLOWED):
            sc.offering()
    sc = build(hands={0: [CHANNELER]}, under={0: {PYRAMID: 1}}, deck_top=TOP4)
    sc.script_build(CHANNELER, PYRAMID)
    sc.offering()
    assert sc.structures(0) == [(SHRINE, 0, False), (PYRAMID, 3, False), (HALL, 0, False)]
    assert sc.under_cards(0)[1:] == TOP4[:2]
    done(sc)


def test_build_not_a_completed_structure() -> None:
    """Dunes rulebook, Offering Step: "reveal a unit from hand to build 1 of their incomplete
    structures." """
    # Checks heir-to-the-dunes.txt, line 200.
    sc = build(hands={0: [CHANNELER]}, built={0: [SHRINE]}, deck_top=TOP4)
    sc.script_build(CHANNELER, SHRINE)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.offering()
    sc = build(hands={0: [CHANNELER]}, built={0: [SHRINE]}, deck_top=TOP4)
    sc.script_build(CHANNELER, PYRAMID)
    sc.offering()
    assert sc.structures(0) == [(SHRINE, 0, True), (PYRAMID, 2, False), (HALL, 0, False)]
    done(sc)


def test_build_more_than_needed_completes_only_at_next_surge() -> None:
    """Dunes rulebook, Offering Step: "A player can place more cards under a structure than what
    is required to build it." and "A structure is not considered complete until it has been
    flipped to its completed side at the start of the player's Surge Step." (Pyramid, cost 4,
    has 3; Embalmed Architect builds 3 and its LABOR adds the top card: 7. Not complete at the
    end of the turn, nor in the opponent's Surge; completed - gain 3 coins - in its owner's.)"""
    # Checks heir-to-the-dunes.txt, lines 206-207.
    sc = build(hands={0: [ARCHITECT]}, coins=(0, 0), under={0: {PYRAMID: 3}}, deck_top=TOP4)
    sc.script_build(ARCHITECT, PYRAMID)
    sc.offering()
    assert sc.structures(0)[1] == (PYRAMID, 7, False)
    assert sc.under_cards(0)[3:] == TOP4
    assert sc.discard_pile() == [ARCHITECT]
    sc.end_turn()
    assert not sc.over and sc.structures(0)[1] == (PYRAMID, 7, False)
    sc.surge()  # seat 1 (nothing to play)
    assert sc.structures(0)[1] == (PYRAMID, 7, False)
    sc.end_turn()
    sc.surge()
    assert sc.structures(0)[1] == (PYRAMID, 7, True) and sc.coins(0) == 3
    assert sc.result()["structures_vp_p0"] == 3
    done(sc)


@pytest.mark.parametrize(("card", "coins", "hand"), [(LABORER, 2, 0), (SCRIBE, 0, 1)])
def test_labor_resolves_when_revealed_to_build(card: str, coins: int, hand: int) -> None:
    """Dunes rulebook, Embalmed: "After a unit with the LABOR keyword ability is revealed during
    the Offering Step to build a structure, the player resolves its LABOR ability before placing
    it in the discard pile." (Linen-Wrapped Laborer: gain 2 coins; Mummified Scribe: draw 1.)"""
    # Checks heir-to-the-dunes.txt, line 149.
    sc = build(hands={0: [card]}, coins=(0, 4), deck_top=TOP4)
    sc.script_build(card, SHRINE)
    sc.offering()
    assert sc.under_cards(0) == TOP4[:2]
    assert sc.coins(0) == coins and sc.hand(0) == TOP4[2 : 2 + hand]
    assert sc.discard_pile() == [card]
    done(sc)


def test_labor_not_resolved_when_offered() -> None:
    """Dunes rulebook, Embalmed: LABOR resolves "After a unit with the LABOR keyword ability is
    revealed during the Offering Step to build a structure" - not when it is discarded as an
    offering (Linen-Wrapped Laborer: offering 2, its LABOR's 2 coins do not come)."""
    # Checks heir-to-the-dunes.txt, line 149.
    sc = build(hands={0: [LABORER]}, coins=(0, 4), deck_top=TOP4)
    offer(sc, LABORER, cards=0)
    sc.offering()
    assert sc.coins(0) == 2 and sc.under_cards(0) == []
    done(sc)


@pytest.mark.parametrize(
    ("favor", "draws", "after"), [("anubis", 2, "anubis"), ("horus", 0, "anubis")]
)
def test_labor_priestess_favor(favor: str, draws: int, after: str) -> None:
    """Dunes rulebook, Embalmed (LABOR) with the card (Preserved High Priestess: if your god is
    Favored, draw 2 cards; if not, turn the Favor card to your god): revealing a unit to build
    is not playing it, so its devotion does not flip the Favor card."""
    sc = build(hands={0: [PRIESTESS]}, coins=(0, 4), deck_top=TOP4, favor=favor)
    sc.script_build(PRIESTESS, SHRINE)
    sc.offering()
    assert sc.under_cards(0) == TOP4[:2] and sc.hand(0) == TOP4[2 : 2 + draws]
    assert sc.favor == after
    done(sc)


def test_labor_ibis_entombs_from_hand() -> None:
    """Dunes rulebook, Embalmed (LABOR) and New Concepts, Structures ("placing units under a
    structure using the new keyword ability ENTOMB"): Sacred Ibis Mummy builds 1 and may ENTOMB 2
    cards from hand under the same structure."""
    # Checks heir-to-the-dunes.txt, line 79.
    sc = build(hands={0: [IBIS, SEER, ROBBER, WARDEN]}, coins=(0, 4), deck_top=TOP4)
    sc.script_build(IBIS, PYRAMID)
    sc.script_may(True)
    sc.script("discard", c=2, card=ROBBER)
    sc.script("discard", c=2, card=SEER)
    sc.offering()
    assert sc.under_cards(0) == [TOP4[0], ROBBER, SEER]
    assert sc.structures(0)[1] == (PYRAMID, 3, False)
    assert sc.hand(0) == [WARDEN] and sc.discard_pile() == [IBIS]
    done(sc)


def test_offering_hand_and_coin_limits() -> None:
    """Dunes rulebook, Offering Step: "At the end of this step, the active player discards cards
    from their hand until they have a maximum of 5 cards in hand. They then return coins to the
    supply until they have a maximum of 10 coins." """
    # Checks heir-to-the-dunes.txt, line 217.
    hand = [SERVANT, MARAUDER, NOVICE, MERCHANT, ROBBER, SEER, CALLER]
    sc = build(hands={0: hand}, coins=(12, 0), supply=8)
    sc.script("offer", a=-1)
    sc.script("discard", c=1, card=NOVICE)
    sc.script("discard", c=1, card=CALLER)
    sc.offering()
    assert sorted(sc.hand(0)) == sorted([SERVANT, MARAUDER, MERCHANT, ROBBER, SEER])
    assert sc.discard_pile() == [NOVICE, CALLER]
    assert sc.coins(0) == 10 and sc.supply == 10
    done(sc)


# =============================================================================
# ENTOMB, gain_favor, build_from_deck
# =============================================================================


def test_entomb_self_from_the_city() -> None:
    """Dunes rulebook, New Concepts, Structures: players build "through placing units under a
    structure using the new keyword ability ENTOMB" (Necropolis Gravedigger, REINFORCE: gain 1
    coin, you may ENTOMB this unit). Reading: with no structure in progress it starts the first
    incomplete one (README, Rules)."""
    # Checks heir-to-the-dunes.txt, line 79.
    sc = build(hands={0: [GRAVEDIGGER]}, coins=(0, 4))
    play(sc, GRAVEDIGGER, city=2, cost=0)
    sc.script("reinforce", card=GRAVEDIGGER)
    sc.script_may(True)
    sc.script_pass()
    sc.surge()
    assert sc.city(2, 0) == [] and sc.coins(0) == 1
    assert sc.under_cards(0) == [GRAVEDIGGER]
    assert sc.structures(0)[0] == (SHRINE, 1, False)
    done(sc)


def play_novice_embalmer(entomb: bool) -> Scenario:
    """Seat 0 plays Novice Embalmer (INVOCATION: draw 1, you may ENTOMB this unit) into city 0,
    the Hall in progress with 2 cards under it, and answers the "may" with ``entomb``."""
    sc = build(
        hands={0: [NOVICE]}, coins=(1, 4), under={0: {HALL: 2}}, favor="anubis", deck_top=TOP4
    )
    play(sc, NOVICE, city=0, cost=1)
    sc.script_may(entomb)
    sc.script_pass()
    sc.surge()
    return sc


def test_entomb_goes_under_the_structure_in_progress() -> None:
    """Dunes rulebook, Structures: "A player can only build 1 of their structures at a time. A
    structure with any units under it is considered being built." (Novice Embalmer, INVOCATION:
    draw 1, you may ENTOMB this unit - under the Hall, already in progress.)"""
    # Checks heir-to-the-dunes.txt, line 81.
    sc = play_novice_embalmer(entomb=True)
    assert sc.hand(0) == TOP4[:1] and sc.city(0, 0) == []
    assert sc.structures(0) == [(SHRINE, 0, False), (PYRAMID, 0, False), (HALL, 3, False)]
    assert sc.under_cards(0)[-1] == NOVICE
    done(sc)


@pytest.mark.parametrize("entomb", [True, False])
def test_ability_mandatory_unless_it_says_may(entomb: bool) -> None:
    """Dunes rulebook, Unit Card Types NOTE: "All unit abilities are considered to be mandatory
    unless their text explanation contains the word 'may.'" (heir-to-the-dunes.txt, line 154.)
    Novice Embalmer, INVOCATION: "draw 1" always happens, no question asked; "you may ENTOMB
    this unit" is the one choice."""
    sc = play_novice_embalmer(entomb=entomb)
    assert sc.hand(0) == TOP4[:1]
    assert sc.city(0, 0) == ([] if entomb else [NOVICE])
    assert sc.structures(0)[2] == (HALL, 3 if entomb else 2, False)
    done(sc)


def test_entomb_from_hand() -> None:
    """Dunes rulebook, New Concepts, Structures: ENTOMB places units under a structure (Stonemason
    of Edfu, REINFORCE: ENTOMB 1 card from your hand - your choice - then draw 1)."""
    sc = build(
        hands={1: [STONEMASON, SEER, ROBBER]}, coins=(0, 0), favor="horus", active=1, deck_top=TOP4
    )
    play(sc, STONEMASON, city=1, cost=0)
    sc.script("reinforce", card=STONEMASON)
    sc.script("discard", c=2, card=ROBBER)
    sc.script_pass()
    sc.surge()
    assert sc.under_cards(1) == [ROBBER]
    assert sc.structures(1)[0] == (OBELISK, 1, False)
    assert sorted(sc.hand(1)) == sorted([SEER, TOP4[0]]) and sc.discard_pile() == []
    done(sc)


def test_entomb_with_every_structure_complete_does_nothing() -> None:
    """Dunes rulebook, Structures: "A structure must be completed before building another" - with
    all three complete there is nothing to build; the Gravedigger stays in its city."""
    # Checks heir-to-the-dunes.txt, line 81.
    sc = build(hands={0: [GRAVEDIGGER]}, coins=(0, 4), built={0: STRUCTURES[0]})
    play(sc, GRAVEDIGGER, city=2, cost=0)
    sc.script("reinforce", card=GRAVEDIGGER)
    sc.script_may(True)
    sc.script_pass()
    sc.surge()
    assert sc.city(2, 0) == [GRAVEDIGGER] and sc.under_cards(0) == []
    done(sc)


def test_entombed_cards_complete_the_structure() -> None:
    """Dunes rulebook, Surge Step: a structure with "cards equal to or greater than the indicated
    build cost tucked underneath" completes, however they got there (2 built + 1 entombed under
    the Shrine, cost 3)."""
    # Checks heir-to-the-dunes.txt, line 125.
    sc = build(hands={0: [GRAVEDIGGER]}, coins=(0, 4), under={0: {SHRINE: 2}}, discard=[SEER])
    play(sc, GRAVEDIGGER, city=2, cost=0)
    sc.script("reinforce", card=GRAVEDIGGER)
    sc.script_may(True)
    sc.script_pass()
    sc.surge()
    assert sc.structures(0)[0] == (SHRINE, 3, False)
    sc.end_turn()
    sc.surge()
    sc.end_turn()
    sc.surge()  # Shrine completes: take the only unit in the discard pile
    assert sc.structures(0)[0] == (SHRINE, 3, True) and sc.hand(0) == [SEER]


@pytest.mark.parametrize(("favor", "coins"), [("horus", 2), ("anubis", 0)])
def test_gain_favor_turns_favor_to_your_god(favor: str, coins: int) -> None:
    """Dunes rulebook, Favor: "A player is considered to be Favored when their god is faceup on
    the Favor card." (Feather of Ma'at: if your god is not Favored gain 2 coins; turn the Favor
    card to your god.)"""
    # Checks heir-to-the-dunes.txt, line 133.
    sc = build(coins=(0, 4), rewards={0: [(FEATHER, False)]}, favor=favor)
    sc.script_use_reward(FEATHER)
    sc.script_pass()
    sc.surge()
    assert sc.favor == "anubis" and sc.coins(0) == coins
    done(sc)


def test_build_from_deck_under_structure_in_progress() -> None:
    """Dunes rulebook, Structures: "A structure with any units under it is considered being
    built." (Canopic Jars of the Four Sons: place the top 2 cards of the deck under the structure
    you are building - the Pyramid; with none in progress, the first incomplete one.)"""
    # Checks heir-to-the-dunes.txt, line 81.
    sc = build(rewards={0: [(JARS, False)]}, under={0: {PYRAMID: 1}}, deck_top=TOP4)
    sc.script_use_reward(JARS)
    sc.script_pass()
    sc.surge()
    assert sc.under_cards(0)[1:] == TOP4[:2]
    assert sc.structures(0) == [(SHRINE, 0, False), (PYRAMID, 3, False), (HALL, 0, False)]
    done(sc)
    sc = build(active=1, rewards={1: [(JARS, False)]}, built={1: [OBELISK]}, deck_top=TOP4)
    sc.script_use_reward(JARS)
    sc.script_pass()
    sc.surge()
    assert sc.under_cards(1) == TOP4[:2]
    assert sc.structures(1) == [(OBELISK, 0, True), (TEMPLE, 2, False), (PALACE, 0, False)]
    done(sc)


@pytest.mark.parametrize(("built", "draws"), [([], 2), ([OBELISK], 3)])
def test_condition_structures_completed(built: list[str], draws: int) -> None:
    """Dunes reward tile (Book of Coming Forth by Day: draw 2 cards; if you have completed 1 or
    more structures, draw 1 more card): a completed structure counts, one in progress does not."""
    sc = build(active=1, rewards={1: [(BOOK, False)]}, built={1: built}, under={1: {TEMPLE: 2}},
               coins=(0, 0), deck_top=TOP4)  # fmt: skip
    sc.script_use_reward(BOOK)
    sc.script_pass()
    sc.surge()
    assert sc.hand(1) == TOP4[:draws]
    done(sc)


# =============================================================================
# End of Game
# =============================================================================


@pytest.mark.parametrize(
    ("stacks", "over"),
    [
        ({0: [], 1: [], 2: [CROOK]}, True),
        ({0: [CROOK], 1: [], 2: []}, True),
        ({0: [], 1: [], 2: []}, True),
        ({0: [], 1: [WAS], 2: [CROOK]}, False),
        ({0: [KHOPESH], 1: [WAS], 2: [CROOK]}, False),
    ],
)
def test_game_ends_when_two_or_more_cities_are_empty(stacks: dict, over: bool) -> None:
    """Dunes rulebook, End of Game and Scoring: "The game ends at the end of the active player's
    Offering Step if 2 or more cities have no remaining reward tiles" (1 is not enough)."""
    # Checks heir-to-the-dunes.txt, lines 92, 221.
    sc = build(stacks=stacks)
    sc.end_turn()
    assert sc.over is over
    assert sc.result()["end_reason"] == ("two_cities_empty" if over else "none")


def test_game_ends_only_at_end_of_offering_step() -> None:
    """Dunes rulebook, End of Game and Scoring: "The game ends at the end of the active player's
    Offering Step": the second city is emptied in the War Step; the Offering Step still happens,
    then the game ends."""
    # Checks heir-to-the-dunes.txt, line 221.
    cities = {0: {0: [DEVOURER, WARDEN], 1: [SERVANT, MARAUDER]}}
    sc = build(
        hands={0: [LABORER]}, coins=(0, 4), cities=cities, stacks={0: [FEATHER], 1: [], 2: [ANKH]}
    )
    sc.script_keep(0, [1])  # the victor keeps the Warden (the Devourer is COLOSSAL)
    sc.script_keep(0, [0, 1])
    sc.war()
    assert sc.stack(0) == [] and sc.rewards(0) == [(FEATHER, False)] and not sc.over
    offer(sc, LABORER, cards=0)
    sc.offering()
    assert sc.coins(0) == 2 and not sc.over
    sc.end_turn()
    assert sc.over
    res = sc.result()
    assert res["end_reason"] == "two_cities_empty" and res["winner"] == 0
    assert (res["score_p0"], res["score_p1"]) == (2, 0)
    done(sc)


def test_game_ends_when_active_player_completed_all_structures() -> None:
    """Dunes rulebook, End of Game and Scoring: the game ends "if the active player has built all
    of their structures" - not when only the opponent has (then it ends at the end of the
    opponent's own turn)."""
    # Checks heir-to-the-dunes.txt, lines 92, 221.
    sc = build(built={0: STRUCTURES[0]})
    sc.end_turn()
    assert sc.over and sc.result()["end_reason"] == "all_structures_built"
    sc = build(built={1: STRUCTURES[1]})
    sc.end_turn()
    assert not sc.over and sc.active == 1
    sc.end_turn()
    assert sc.over and sc.result()["end_reason"] == "all_structures_built"
    sc = build(built={0: STRUCTURES[0][:2]})
    sc.end_turn()
    assert not sc.over


def test_third_structure_completed_at_surge_start_ends_that_turn() -> None:
    """Dunes rulebook, End of Game and Scoring: "if the active player has built all of their
    structures" - the third completes at the start of the Surge (Hall of the Two Truths, 7 under)
    and the game ends at the end of that turn; the structures score 2 + 3 + 5 (scoring D)."""
    # Checks heir-to-the-dunes.txt, line 221.
    sc = build(built={0: [SHRINE, PYRAMID]}, under={0: {HALL: 7}}, cities={1: {1: [CALLER]}})
    sc.surge()  # the Hall destroys the only enemy unit with 3 or less strength
    assert sc.structures(0)[2] == (HALL, 7, True) and sc.city(1, 1) == []
    assert not sc.over
    sc.end_turn()
    res = sc.result()
    assert sc.over and res["end_reason"] == "all_structures_built"
    assert res["structures_built_p0"] == 3 and res["structures_vp_p0"] == 10
    assert res["score_p0"] == 10 and res["winner"] == 0


def test_full_dunes_turn_in_order() -> None:
    """Dunes rulebook, Game Play: "the active player will proceed through the following steps in
    order": the Wealth Step reveals (Channeler, devoted to Anubis: to hand) and takes its actions
    (4 coins), the Surge Step first completes the Pyramid (gain 3) and then plays the revealed
    Channeler at 1 (the devoted discount); no war; nothing to offer; then the end check."""
    # Checks heir-to-the-dunes.txt, lines 85, 116.
    sc = build(coins=(0, 4), under={0: {PYRAMID: 4}}, deck_top=[CHANNELER, *TOP4], favor="horus")
    sc.script_wealth(0)
    play(sc, CHANNELER, city=0, cost=1)
    no_reinforce(sc)
    sc.script_pass()
    sc.turn()
    assert sc.city(0, 0) == [CHANNELER] and sc.coins(0) == 4 + 3 - 1
    assert sc.structures(0)[1] == (PYRAMID, 4, True) and sc.favor == "anubis"
    assert sc.active == 1 and not sc.over and sc.deck_top(4) == TOP4
    done(sc)


# =============================================================================
# Scoring and ties
# =============================================================================


def test_scoring_components() -> None:
    """Dunes rulebook, End of Game and Scoring: "A. Gain 2VP for each unused (facedown) reward
    tiles in their play area. B. Gain 1VP for each used (faceup) reward tile in their play area.
    C. Gain 1VP for each TREASURED unit in hand. D. Gain VP as indicated on each of a player's
    completed structures." (An Embalmed in a city, and a structure not flipped - even with its
    build cost underneath - score nothing.) "The player with the most VP wins"
    (heir-to-the-dunes.txt, line 223)."""
    # Checks heir-to-the-dunes.txt, line 227.
    sc = build(
        hands={0: [LABORER, SCRIBE, CHANNELER], 1: [PRIESTESS, BEARER]},
        cities={0: {0: [ARCHITECT]}},
        rewards={0: [(KHOPESH, False), (ANKH, True)], 1: [(BOOK, True)]},
        built={0: [SHRINE, PYRAMID], 1: [OBELISK]},
        under={1: {TEMPLE: 4}},
        stacks={},
    )
    res = sc.result()
    assert (res["rewards_unused_p0"], res["rewards_used_p0"], res["treasured_p0"]) == (1, 1, 2)
    assert (res["structures_built_p0"], res["structures_vp_p0"]) == (2, 5)
    assert res["score_p0"] == 2 + 1 + 2 + 5
    assert (res["structures_built_p1"], res["structures_vp_p1"]) == (1, 2)
    assert res["score_p1"] == 1 + 1 + 2
    assert res["vp_tokens_p0"] == res["vp_tokens_p1"] == 0
    assert res["winner"] == 0


def _tie(p0: dict[str, Any], p1: dict[str, Any], favor: str = "anubis") -> dict[str, int]:
    sc = build(
        hands={0: p0.get("hand", []), 1: p1.get("hand", [])},
        rewards={0: p0.get("rewards", []), 1: p1.get("rewards", [])},
        built={p: [STRUCTURES[p][i] for i in d.get("built", [])] for p, d in enumerate((p0, p1))},
        favor=favor,
        stacks={},
    )
    return sc.result()


@pytest.mark.parametrize("swap", [False, True])
def test_tiebreak_unused_tiles_first(swap: bool) -> None:
    """Dunes rulebook, Ties: "In the event of a tie, the player with the most unused reward tiles
    is the winner." (Checked before TREASURED units and Favor, both of which favour the other.)"""
    # Checks heir-to-the-dunes.txt, line 231.
    a = {"rewards": [(KHOPESH, False)]}  # 2 VP, 1 unused tile
    b = {"hand": [LABORER, SCRIBE]}  # 2 VP, 2 TREASURED
    res = _tie(b, a, favor="anubis") if swap else _tie(a, b, favor="horus")
    assert res["score_p0"] == res["score_p1"] == 2
    assert res["winner"] == (1 if swap else 0)


@pytest.mark.parametrize("swap", [False, True])
def test_tiebreak_treasured_second(swap: bool) -> None:
    """Dunes rulebook, Ties: "If the players are still tied, the player with the most TREASURED
    units in their hand is the winner." (Checked before Favor.)"""
    # Checks heir-to-the-dunes.txt, line 231.
    a = {"hand": [LABORER], "rewards": [(ANKH, True)]}  # 2 VP, 1 TREASURED
    b = {"rewards": [(BOOK, True), (FEATHER, True)]}  # 2 VP
    res = _tie(b, a, favor="anubis") if swap else _tie(a, b, favor="horus")
    assert res["score_p0"] == res["score_p1"] == 2
    assert res["winner"] == (1 if swap else 0)


@pytest.mark.parametrize(("favor", "winner"), [("anubis", 0), ("horus", 1)])
def test_tiebreak_favored_last(favor: str, winner: int) -> None:
    """Dunes rulebook, Ties: "If the players are still tied, the player whose god is Favored is
    the winner." """
    # Checks heir-to-the-dunes.txt, line 231.
    res = _tie(
        {"rewards": [(ANKH, True)], "hand": [SCRIBE]},
        {"rewards": [(BOOK, True)], "hand": [IBIS]},
        favor,
    )
    assert res["score_p0"] == res["score_p1"] == 2
    assert res["winner"] == winner


# =============================================================================
# Mix: dunes+aegean (Dunes base)
# =============================================================================


def mixed(**kw: Any) -> Scenario:
    kw.setdefault("stacks", {0: [CROOK], 1: [WAS], 2: [BARQUE]})
    return Scenario.build("dunes+aegean", strict=True, **kw)


@pytest.mark.parametrize(("seed", "game"), [(1, 0), (4, 5), (99, 2)])
def test_mix_dunes_base_setup(seed: int, game: int) -> None:
    """Dunes rulebook, Combining Omen Sets: "follow all rules for the included components"; Aegean
    rulebook, Combining Omen Sets: "First shuffle all of the Reward tiles from both sets together
    ... From this point on, follow all other rules governing both sets." Reading
    ``combine_base``: the Dunes base puts 3 tiles in each city, from the 15 shuffled together."""
    # Checks heir-to-the-dunes.txt, line 237.
    sc = Scenario.from_game("dunes+aegean", seed, game, strict=True)
    tiles = [t for c in range(3) for t in sc.stack(c)]
    assert [len(sc.stack(c)) for c in range(3)] == [3, 3, 3]
    assert len(set(tiles)) == 9 and set(tiles) <= set(ALL_TILES + AEGEAN_TILES)
    assert sc.deck_size() == 40 + 22 - 8
    # Seat 0 serves Anubis in deals 0, 1, 4, 5, ... and Horus in deals 2, 3, 6, 7, ...
    gods = ("anubis", "horus") if (game // 2) % 2 == 0 else ("horus", "anubis")
    assert (sc.god(0), sc.god(1)) == gods
    assert sc.favor == gods[1 - sc.first]  # Set Up: "the god of the second player"
    assert sc.vp_supply == 6  # the Aegean's VP tokens
    assert sc.structures(0) == [(s, 0, False) for s in STRUCTURES[GODS.index(gods[0])]]


def test_mix_dunes_base_tiles_come_from_both_sets() -> None:
    """Aegean rulebook, Combining Omen Sets: "shuffle all of the Reward tiles from both sets
    together" - over a few deals, tiles of both sets reach the cities."""
    seen: set[str] = set()
    for game in range(8):
        sc = Scenario.from_game("dunes+aegean", 3, game, strict=True)
        seen |= {t for c in range(3) for t in sc.stack(c)}
    assert seen & set(AEGEAN_TILES) and seen & set(ALL_TILES)


@pytest.mark.parametrize("favor", GODS)
@pytest.mark.parametrize("p", [0, 1])
def test_mix_aegean_unit_is_neutral_and_resolves(p: int, favor: str) -> None:
    """Reading ``combine_components``: "units from sets without gods are neutral": Eudorus never
    flips the Favor card, gets no devoted-unit discount, opens no REINFORCE for the Follower
    beside it, and its RALLY (Aegean rulebook: "they may pay the indicated cost and resolve its
    RALLY ability") resolves for either god's player (RALLY 1: gain 2 coins)."""
    sc = mixed(
        hands={p: [EUDORUS]}, coins=(3, 3), favor=favor, active=p, cities={0: {p: [FOLLOWER[p]]}}
    )
    play(sc, EUDORUS, city=0, cost=2)
    sc.script("rally", card=EUDORUS)
    sc.script_pass()
    sc.surge()
    assert sc.favor == favor
    assert sc.coins(p) == 3 - 2 - 1 + 2
    assert sc.city(0, p) == [FOLLOWER[p], EUDORUS]
    done(sc)


def test_mix_rally_opened_by_a_dunes_unit() -> None:
    """Aegean rulebook, Myrmidons: "after the active player adds any unit to a city, that player
    may pay the indicated costs and resolve the RALLY abilities on any of their units with RALLY
    in that city" - a Dunes unit added opens it too."""
    sc = mixed(hands={0: [SERVANT]}, coins=(2, 4), favor="horus", cities={1: {0: [EUDORUS]}})
    play(sc, SERVANT, city=1, cost=1)
    sc.script("rally", card=EUDORUS)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 2 and sc.city(1, 0) == [EUDORUS, SERVANT]
    done(sc)


def test_mix_reinforce_comes_before_the_rally_window() -> None:
    """Dunes rulebook, Follower: "After a player plays a unit devoted to their god into a city,
    that player can resolve the REINFORCE ability of a single unit"; Aegean rulebook, Myrmidons:
    "after the active player adds any unit to a city, that player may pay the indicated costs
    and resolve the RALLY abilities". Reading ``after_play_order``: REINFORCE first, then the
    RALLY window. Necropolis Gravedigger (free with the devoted discount) played beside Eudorus
    with no coins: its REINFORCE gains the coin that then pays Eudorus' RALLY 1 (gain 2)."""
    # Checks heir-to-the-dunes.txt, lines 135, 150; edge-of-the-aegean.txt, line 114.
    sc = mixed(hands={0: [GRAVEDIGGER]}, coins=(0, 4), favor="anubis", cities={0: {0: [EUDORUS]}})
    play(sc, GRAVEDIGGER, city=0, cost=0)
    sc.script("reinforce", card=GRAVEDIGGER)
    sc.script_may(False)  # "You may ENTOMB this unit": no
    sc.script("rally", card=EUDORUS)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 0 + 1 - 1 + 2
    assert sc.city(0, 0) == [EUDORUS, GRAVEDIGGER] and sc.under_cards(0) == []
    done(sc)


def test_mix_tribute_on_offering() -> None:
    """Aegean rulebook, Automatons: after it is discarded as an Offering "that player may use its
    TRIBUTE ability" (Khalkotauroi: you may take up to 2 coins from your opponent) - with the
    Dunes Offering Step's build option also on offer."""
    sc = mixed(hands={0: [KHALKO]}, coins=(0, 5), deck_top=TOP4)
    offer(sc, KHALKO, cards=1)
    sc.script_may(True)
    sc.offering()
    assert sc.coins(0) == 1 + 2 and sc.coins(1) == 3 and sc.hand(0) == TOP4[:1]
    assert sc.discard_pile() == [KHALKO]
    done(sc)


def test_mix_keres_exalt_earns_vp_token_worth_two() -> None:
    """Aegean rulebook, Keres: "If so, EXALT a Keres, it is removed from its city, turned facedown,
    and a VP token is placed on it." (Ker of the Funeral Pyre: draw 1; EXALT with 4+ units here -
    Dunes units count.) Reading ``combine_components``: "VP tokens of every set are in the supply
    (2 VP each)"."""
    sc = mixed(cities={0: {0: [KER_PYRE, SERVANT, CHANNELER, MARAUDER]}}, deck_top=TOP4)
    sc.surge()
    assert sc.hand(0) == TOP4[:1] and sc.out_of_play(0) == [KER_PYRE]
    assert sc.city(0, 0) == [SERVANT, CHANNELER, MARAUDER]
    assert sc.vp_tokens(0) == 1 and sc.vp_supply == 5
    res = sc.result()
    assert res["vp_tokens_p0"] == 1 and res["score_p0"] == 2


def test_mix_scoring_vp_tokens_and_treasured_of_both_sets() -> None:
    """Aegean rulebook, End of Game: "Gain 2VP for each VP token" and both rulebooks' "1VP for each
    TREASURED unit in hand" (a Moirai and an Embalmed), with the Dunes structures."""
    # Checks heir-to-the-dunes.txt, line 227.
    sc = mixed(
        hands={0: [CLOTHO, LABORER, EUDORUS]}, vp_tokens=(2, 1), built={1: [TEMPLE]}, stacks={}
    )
    res = sc.result()
    assert res["score_p0"] == 2 * 2 + 2 and res["treasured_p0"] == 2
    assert res["score_p1"] == 2 + 3
    assert res["winner"] == 0


@pytest.mark.parametrize(
    ("stacks", "built", "reason"),
    [
        ({0: [], 1: [], 2: []}, False, "all_cities_empty"),
        ({0: [], 1: [], 2: [CROOK]}, False, "two_cities_empty"),
        ({0: [HELM], 1: [], 2: [CROOK]}, False, "none"),
        ({0: [HELM], 1: [], 2: [CROOK]}, True, "all_structures_built"),
    ],
)
def test_mix_dunes_base_every_sets_end_condition(stacks: dict, built: bool, reason: str) -> None:
    """Dunes rulebook, Combining Omen Sets: "be sure to follow any alternate game end conditions
    from the content used in each game." Reading ``combine_end``: every included set's end
    conditions apply (Aegean: no city has tiles; Dunes: 2 or more cities empty, or all
    structures built)."""
    # Checks heir-to-the-dunes.txt, line 239.
    sc = mixed(stacks=stacks, built={0: STRUCTURES[0]} if built else {})
    sc.end_turn()
    assert sc.over is (reason != "none")
    assert sc.result()["end_reason"] == reason


# =============================================================================
# Mix: aegean+dunes (Aegean base)
# =============================================================================


def aegean_base(**kw: Any) -> Scenario:
    kw.setdefault("stacks", {0: [CROOK], 1: [WAS], 2: [HELM]})
    return Scenario.build("aegean+dunes", strict=True, **kw)


def test_mix_aegean_base_setup() -> None:
    """Aegean rulebook, Setup 2 ("place 2 facedown on each of the three designated spaces") as
    the base, and Combining Omen Sets: "shuffle all of the Reward tiles from both sets together".
    Reading ``combine_base``: the base set supplies set-up; the Aegean has no gods, so there is
    no Favor and no structure (``combine_structures``)."""
    for game in range(3):
        sc = Scenario.from_game("aegean+dunes", 8, game, strict=True)
        tiles = [t for c in range(3) for t in sc.stack(c)]
        assert [len(sc.stack(c)) for c in range(3)] == [2, 2, 2]
        assert len(set(tiles)) == 6 and set(tiles) <= set(ALL_TILES + AEGEAN_TILES)
        assert (sc.god(0), sc.god(1), sc.favor) == ("none", "none", "none")
        assert sc.structures(0) == sc.structures(1) == []
        assert sc.deck_size() == 62 - 8 and sc.vp_supply == 6


def test_mix_aegean_base_no_reveal_no_favor_no_discount() -> None:
    """Aegean rulebook, Wealth Step (the base's: "Draw cards and gain coins", no reveal) and
    Surge Step: a Dunes Follower costs its printed cost, flips no Favor card (there is none)."""
    # Checks heir-to-the-dunes.txt, line 87.
    sc = aegean_base(hands={0: [CHANNELER]}, coins=(0, 4), deck_top=TOP4)
    sc.script_wealth(0)
    sc.wealth()
    assert sc.hand(0) == [CHANNELER] and sc.deck_top(4) == TOP4 and sc.coins(0) == 4
    play(sc, CHANNELER, city=0, cost=1)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.surge()
    sc = aegean_base(hands={0: [CHANNELER]}, coins=(2, 4), deck_top=TOP4)
    play(sc, CHANNELER, city=0, cost=2)
    sc.script_pass()
    sc.surge()  # strict: no REINFORCE is asked (the player has no god)
    assert sc.city(0, 0) == [CHANNELER] and sc.coins(0) == 0 and sc.favor == "none"
    done(sc)


def test_mix_aegean_base_dunes_abilities_resolve() -> None:
    """Dunes rulebook, Combining Omen Sets: "follow all rules for the included components" -
    Vizier of the Scrolls' MANEUVER 2 ("may move units ... into or out of the city into which it
    was played") moves Followers of either god: without gods, devotion blocks nothing."""
    # Checks heir-to-the-dunes.txt, lines 152, 237.
    cities = {0: {0: [CHANNELER, EUDORUS]}, 2: {0: [BEARER]}}
    sc = aegean_base(hands={0: [SCROLLS]}, coins=(4, 4), cities=cities)
    maneuver_with_scrolls(sc, (0, 1, CHANNELER), (2, 1, BEARER))
    assert sc.city(1, 0) == [SCROLLS, CHANNELER, BEARER]
    assert sc.city(0, 0) == [EUDORUS] and sc.city(2, 0) == []
    done(sc)


def test_mix_aegean_base_invocation_needs_a_favored_god() -> None:
    """Dunes rulebook, Initiate: INVOCATION resolves "if their god is currently Favored" and its
    +1 strength is "if their god is Favored": with the Aegean as base nobody has a god, so
    neither applies (Temple Servant: no coins; strength 1)."""
    # Checks heir-to-the-dunes.txt, line 151.
    sc = aegean_base(hands={0: [SERVANT]}, coins=(1, 4))
    play(sc, SERVANT, city=2, cost=1)
    sc.script_pass()
    sc.surge()
    assert sc.coins(0) == 0 and sc.strength(2, 0) == 1
    done(sc)


def test_mix_aegean_base_no_build_option_and_treasured_scores() -> None:
    """Reading ``combine_structures``: "Structures are only used when their set is the base" - the
    Offering Step has no build option; a Dunes Embalmed in hand is still TREASURED (1 VP)."""
    sc = aegean_base(hands={0: [LABORER]}, deck_top=TOP4)
    sc.script("offer", c=1, card=LABORER)
    with pytest.raises(ScenarioError, match=NOT_ALLOWED):
        sc.offering()
    sc = aegean_base(hands={0: [LABORER]}, stacks={})
    res = sc.result()
    assert res["treasured_p0"] == 1 and res["score_p0"] == 1


@pytest.mark.parametrize(
    ("stacks", "reason"),
    [
        ({0: [], 1: [], 2: []}, "all_cities_empty"),
        ({0: [], 1: [], 2: [HELM]}, "two_cities_empty"),
        ({0: [], 1: [WAS], 2: [HELM]}, "none"),
    ],
)
def test_mix_aegean_base_end_conditions(stacks: dict, reason: str) -> None:
    """Aegean rulebook, Combining Omen Sets: "be sure to follow any alternate game end conditions
    that are a part of those rules." Reading ``combine_end``: the Dunes' "2 or more cities"
    applies with the Aegean base too."""
    # Checks edge-of-the-aegean.txt, line 161.
    sc = aegean_base(stacks=stacks)
    sc.end_turn()
    assert sc.over is (reason != "none")
    assert sc.result()["end_reason"] == reason


# =============================================================================
# A designer's handicaps for the first-player edge (no rulebook gives them)
# =============================================================================


@pytest.mark.parametrize("first_favored", [False, True])
def test_favor_start_switch(first_favored: bool) -> None:
    """Dunes rulebook, Set Up: "Flip the Favor card to the side matching the god of the second
    player." ``favor_start = "first_player"`` (a designer's change, to measure what the rule is
    worth) starts it on the first player's god instead."""
    # Checks heir-to-the-dunes.txt, line 57.
    from sim.base import layout as L

    rules = {"RU_FAVOR_START_FIRST": 1} if first_favored else None
    for game in range(4):
        sc = Scenario("dunes", rules=rules)
        sc.setup(5, game)
        favored = sc.first if first_favored else 1 - sc.first
        assert sc.favor == sc.god(favored)
        assert int(sc.st[L.FAVOR]) != 0


@pytest.mark.parametrize("extra", [0, 2])
def test_second_player_coins(extra: int) -> None:
    """Dunes rulebook, Set Up: "Each player draws 4 cards from the deck and takes 4 coins from
    the supply." ``second_player_coins = N`` gives the second player N more at the end of set-up
    (a designer's handicap); the supply gives them up (20 coins in all)."""
    # Checks heir-to-the-dunes.txt, line 53.
    rules = {"RU_SECOND_COINS": extra} if extra else None
    sc = Scenario("dunes", rules=rules)
    sc.setup(5, 0)
    assert sc.coins(sc.first) == 4 and sc.coins(1 - sc.first) == 4 + extra
    assert sc.supply == 20 - 8 - extra
