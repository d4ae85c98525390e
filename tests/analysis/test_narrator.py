"""`sim.analysis.narrator`: one wording of every event, for the story and for ``--positions``."""

from __future__ import annotations

import numpy as np

from sim.analysis import narrator as N
from sim.analysis.replay import replay
from sim.base import events as E
from sim.data.spec import RunSpec
from sim.run.scenario import Scenario
from sim.run.view import with_trace

AUGUR = "Temple Augur"  # a Reign Oracle
HOPLITE = "Hoplite Recruit"  # a Reign Soldier
LACHESIS, ATROPOS, ANANKE = (
    "Lachesis the Allotter",
    "Atropos the Unturning",
    "Ananke, Mother of Fates",
)
EUDORUS, PEISANDER = "Eudorus, Swift Runner", "Peisander, Spear of Maimalos"


def traced(mix: str, **kw) -> Scenario:
    """A position of ``mix`` (strict unless told) that records its events."""
    kw.setdefault("strict", True)
    sc = Scenario.build(mix, **kw)
    sc.st = with_trace(sc.st, 2_000)
    return sc


def told(sc: Scenario, step: str, reign: bool) -> list[dict]:
    """Run ``step`` and tell it as the replay does, with what the trace has no row for."""
    teller, before, seen = N.Teller(sc, reign), N.sides(sc), sc.trace_count
    getattr(sc, step)()
    said = N.events(teller, sc.trace_events()[seen:], step, sc.active)
    return N.untraced(teller, said, before, N.sides(sc), step, sc.active)


def test_the_story_and_the_positions_word_each_event_alike() -> None:
    """Both texts come from one narrator: the account of the positions is the story without
    the bots' decisions, the running score and why the game was won."""
    r = replay(RunSpec(games=10, mix="reign", seed=1), 0)
    story, positions = r.story().splitlines(), r.text().splitlines()
    events = [x for x in story if x.startswith("    ") and not x.startswith("    [P")]
    assert [x for x in positions if x.startswith("    ") and x != "    nothing happens"] == events
    assert any(x.startswith("    [P") for x in story)
    assert positions[-1] == story[-1] == "Matches the dataset row (every column)."


def test_enraged_units_turn_back_in_their_owners_supply_step() -> None:
    """Reign, Enrage: "All of the active player's enraged units are flipped back during that
    player's Supply step": the account names the active seat's enraged unit, not the other's."""
    # Checks reign-of-war.en.md, lines 150-151.
    stacks = {0: ["Spear of Ares"], 1: ["Chariot of the Dioskouroi"], 2: ["Tripod of the Pythia"]}
    cities = {0: {0: [AUGUR, HOPLITE], 1: [HOPLITE]}}
    sc = traced("reign", stacks=stacks, cities=cities, enraged={0: {0: [1], 1: [0]}})
    sc.script_offer(None)
    said = told(sc, "offering", reign=True)
    calm = [e for e in said if e["event"] == "calm"]
    assert [(e["seat"], e["cards"], e["text"]) for e in calm] == [
        (0, [HOPLITE], f"P0's enraged {HOPLITE} turns back")
    ]
    assert sc.enraged(0, 0) == [False, False] and sc.enraged(0, 1) == [True]


def test_a_war_says_what_each_seat_discarded_and_kept() -> None:
    """Every rulebook, War Step: the victor takes the top reward tile and the seats destroy down;
    each discarded unit is an event, then the units that seat kept in the city are named."""
    # Checks edge-of-the-aegean.txt, lines 118-132.
    cities = {0: {0: [LACHESIS, ATROPOS, ANANKE], 1: [EUDORUS, PEISANDER]}}
    sc = traced("aegean", cities=cities, stacks={0: ["Lyre of Orpheus"]}, strict=False)
    sides = {p: sc.city(0, p) for p in range(2)}
    said = told(sc, "war", reign=False)
    assert said[0]["text"].startswith("city 1 is war-torn: strength P0 ")
    assert said[1]["text"] == "P0 takes the reward tile Lyre of Orpheus from city 1"
    for p in range(2):
        gone = [e["cards"][0] for e in said if e["event"] == "destroy" and e["seat"] == p]
        kept = [e["cards"] for e in said if e["event"] == "keep" and e["seat"] == p]
        assert kept == ([sc.city(0, p)] if gone else [])  # a seat that lost nothing kept all
        assert sorted(gone + sc.city(0, p)) == sorted(sides[p])
    assert [e["event"] for e in said][-3:] == ["destroy", "destroy", "keep"]  # the victor's
    assert all(e["event"] != "destroy" or e["text"].endswith("after the war") for e in said)


def test_an_offer_names_its_printed_offering_value() -> None:
    """Aegean, Offering Step: discard a card for its offering value; the event says the value
    the card carries in the pool it was played with."""
    sc = traced("aegean", hands={0: [ATROPOS]}, stacks={})
    sc.script_offer(ATROPOS, cards=0)
    (offer,) = [e for e in told(sc, "offering", reign=False) if e["event"] == "offer"]
    value = next(u["offering"] for u in sc.pool.units if u["name"] == ATROPOS)
    assert offer["text"] == f"P0 offers {ATROPOS} (offering {value})"


def test_a_tied_conflict_says_the_tie_break_decided_it() -> None:
    """Aegean, War Step: "In the event of a tie, the player with the highest total unit cost
    in that city is the victor. If players are tied for total unit cost, neither player is the
    victor": a conflict at equal strength is said to be won on the tie-break, or a tie."""
    # Checks edge-of-the-aegean.txt, line 130.
    row = np.zeros(E.EV_W, np.int64)
    row[[E.F_KIND, E.F_SEAT, E.F_TARGET, E.F_X0, E.F_X1]] = [E.EV_CONFLICT, 1, 2, 5, 5]
    teller = N.Teller(Scenario.build("aegean"), reign=False)
    won = teller.sentence(row, "war", 1)
    assert won == "city 3 is war-torn: strength P0 5, P1 5; P1 is the victor" + (
        " (strength tied: won on the tie-break)"
    )
    row[E.F_SEAT] = -1
    assert teller.sentence(row, "war", 1).endswith("; no victor (a tie)")
