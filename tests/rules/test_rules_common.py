"""Rules the Edge of the Aegean and Heir to the Dunes rulebooks state alike.

One scenario test per rule, run once on each set's own cards; the docstring
quotes both rulebooks. Everything a single rulebook says is tested in
``test_rules_aegean.py`` or ``test_rules_dunes.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from conftest import done, emissary_outcome

from sim.run.scenario import Scenario

GODS = ("anubis", "horus")


@dataclass(frozen=True)
class WarOrderCards:
    """Two war-torn cities won by seat 1: three units in each, one reward tile in each."""

    city0: list[str]  # seat 1 keeps the first
    city2: list[str]
    tile0: str
    tile2: str
    build: dict[str, Any]


WAR_ORDER = {
    "aegean": WarOrderCards(
        city0=[
            "Eudorus, Swift Runner",
            "Peisander, Spear of Maimalos",
            "Menesthius, Son of the River",
        ],
        city2=[
            "Phoenix, Tutor of Achilles",
            "Alcimedon the Charioteer",
            "Patroclus in Borrowed Armor",
        ],
        tile0="Helm of Hades",
        tile2="Thunderbolt of Zeus",
        build={},
    ),
    "dunes": WarOrderCards(
        city0=["Temple Servant", "Sunset Marauder", "Novice Embalmer"],
        city2=["Nomad Seer", "Dune Raider", "Oasis Merchant"],
        tile0="Khopesh of Sekhmet",
        tile2="Crook and Flail",
        build={"favor": "horus"},
    ),
}


@pytest.mark.parametrize("first", [2, 0])
@pytest.mark.parametrize("mix", ["aegean", "dunes"])
def test_war_active_player_chooses_order(mix: str, first: int) -> None:
    """Aegean rulebook, War Step: "If there are multiple war-torn cities, the active player
    decides the order in which the war-torn cities are resolved." ... "Repeat the above steps
    until no war-torn cities remain." Dunes rulebook, Resolving Conflicts: "If there are
    multiple war-torn cities, the active player chooses the order in which the war-torn cities
    are resolved." (heir-to-the-dunes.txt, line 164.) The victor takes the reward tiles in the
    chosen order."""
    # Checks edge-of-the-aegean.txt, lines 126, 130; heir-to-the-dunes.txt, lines 168, 170.
    cards = WAR_ORDER[mix]
    sc = Scenario.build(
        mix,
        strict=True,
        cities={0: {1: cards.city0}, 2: {1: cards.city2}},
        stacks={0: [cards.tile0], 1: [], 2: [cards.tile2]},
        **cards.build,
    )
    sc.script("war_order", a=first)
    sc.script_keep(first, [0])  # the victor (seat 1) keeps one unit ...
    sc.script_keep(first, [])  # ... and seat 0 has nothing to keep
    sc.script_keep(2 - first, [0])
    sc.script_keep(2 - first, [])
    sc.war()
    order = [cards.tile2, cards.tile0] if first == 2 else [cards.tile0, cards.tile2]
    assert sc.rewards(1) == [(t, False) for t in order]
    assert sc.city(0, 1) == cards.city0[:1] and sc.city(2, 1) == cards.city2[:1]
    assert not sc.war_torn(0) and not sc.war_torn(2)
    done(sc)


@pytest.mark.parametrize(("seed", "game"), [(5, 0), (5, 1), (11, 2), (12, 7)])
@pytest.mark.parametrize("mix", ["aegean", "dunes"])
def test_emissary_after_standard_setup(mix: str, seed: int, game: int) -> None:
    """Aegean rulebook, Emissary of War Variant: "After the standard setup, each player selects
    1 Unit card from their hand ... The game then begins, with the First Player taking the
    first turn." Dunes rulebook, Emissary of War Variant (as in the Aegean): "The player whose
    Emissary has the greatest combined value is the First Player ... The First Player moves
    their Emissary card to the discard pile. The other player returns his Emissary to their
    hand." and Set Up: Favor goes to "the god of the second player" (the one who lost the
    Emissary)."""
    # Checks edge-of-the-aegean.txt, lines 47, 49; heir-to-the-dunes.txt, lines 57, 59, 61.
    hands, picks, first = emissary_outcome(
        Scenario.from_game(mix, seed, game, first="p1", strict=True)
    )

    sc = Scenario(mix, emissary=True, first="p1", strict=True)
    sc.script("emissary", a=0)
    sc.script("emissary", a=0)
    sc.setup(seed, game)
    done(sc)
    assert sc.active == first and sc.first == first
    assert sc.discard_pile() == [picks[first]]
    assert sorted(sc.hand(first)) == sorted(hands[first][1:])
    assert sorted(sc.hand(1 - first)) == sorted(hands[1 - first])
    assert sc.turns_done == 0
    assert sc.favor == (sc.god(1 - first) if mix == "dunes" else "none")
