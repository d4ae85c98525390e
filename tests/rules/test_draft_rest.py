"""A draft stopped at any pick and finished from there is the game's own draft.

The look-ahead bot plans a draft pick by trying each option and finishing the draft
and the set-up with the kernel's continuation (``sim.kernel.draft.draft_rest``, then
``sim.kernel.game.setup_rest``; ``strategies.lookahead.continue_from``). These tests
stop a game's set-up after ``t`` picks (the draft keeps where it stands in the
state), let the seat's bot answer pick ``t`` as the game would, and finish with the
continuation: the decks, hands, tiles and every counter must be the game's. The
drafts are Reign's simple and pile drafts ("deal 10 to each player; each player keeps
1 and passes the rest", "the players alternate until each has taken 10 piles",
reign-of-war.en.md, lines 204-227) and the Aegean's two variants
(edge-of-the-aegean.txt, lines 171-173), one with the Emissary of War too.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.data.spec import RunSpec
from sim.kernel import decisions as D
from sim.kernel.draft import draft_begin, draft_options, draft_picks, draft_run
from sim.kernel.game import setup_start
from sim.run.scenario import Scenario
from sim.run.view import StateView
from strategies.lookahead import continue_from

SEED = 31
CASES = [
    ("reign", ("simple-draft",)),
    ("reign", ("pile-draft",)),
    ("reign+aegean", ("draft1",)),
    ("dunes+aegean", ("draft2",)),
    ("reign+aegean", ("draft2", "emissary")),
]


def _public(st: np.ndarray) -> dict:
    """Everything set-up leaves: every card zone, the reward stacks and the header."""
    view = StateView(st)
    return {
        "zones": view.card_zones(),
        "stacks": view.stack_slots.tolist(),
        "header": view.header.tolist(),
    }


def _stopped(spec: RunSpec, game: int, picks: int) -> Scenario:
    """Game ``game``'s set-up stopped after ``picks`` draft picks."""
    sc = Scenario.from_spec(spec)
    setup_start(sc.st, sc.tab, SEED, game)
    draft_begin(sc.st, sc.tab)
    assert draft_run(sc.st, sc.tab, sc.fp, sc.ask, -1, picks) == 0
    return sc


@pytest.mark.parametrize(("mix", "variants"), CASES, ids=["+".join(v) for _, v in CASES])
def test_continuation_finishes_the_draft_as_the_game_does(mix: str, variants: tuple) -> None:
    spec = RunSpec(games=8, mix=mix, seed=SEED, variants=variants)
    total = int(draft_picks(Scenario.from_spec(spec).tab))
    assert total > 0
    for game, picks in enumerate((0, 1, total // 2, total - 1)):
        whole = Scenario.from_spec(spec, game=game)
        sc = _stopped(spec, game, picks)
        view = StateView(sc.st)
        p, n = view.draft_seat, int(draft_options(sc.st, sc.tab))
        # The seat's bot answers pick ``picks`` as in the game (its random draws included).
        k = int(sc.ask(sc.st, sc.tab, sc.fp, p, D.D_DRAFT, n))
        ro = sc.st.copy()
        continue_from(ro, sc.tab, sc.fp, p, D.D_DRAFT, k, 0, 0)
        assert StateView(ro).drafting == 0
        assert _public(ro) == _public(whole.st), f"{variants} pick {picks} of game {game}"


def test_another_option_makes_another_draft() -> None:
    """The continuation takes the option it is given (the control of the test above): at
    the first round's pick 16 seat 0's packet holds two cards; whichever it keeps, the
    other seat gets the other one with its last pick, so the drafted cards differ."""
    spec = RunSpec(games=2, mix="reign", seed=SEED, variants=("simple-draft",))
    sc = _stopped(spec, 0, 16)
    p, n = StateView(sc.st).draft_seat, int(draft_options(sc.st, sc.tab))
    assert (p, n) == (0, 2)
    decks = []
    for k in (0, n - 1):
        ro = sc.st.copy()
        continue_from(ro, sc.tab, sc.fp, p, D.D_DRAFT, k, 0, 0)
        zones = StateView(ro).card_zones()
        decks.append(sorted(zones[("deck", p)] + zones[("hand", p)]))
    assert decks[0] != decks[1]
