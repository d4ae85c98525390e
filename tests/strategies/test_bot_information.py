"""Bots see only what their seat may see: never the opponent's hand nor the deck order.

For a mid-game position and a deciding seat ``p``, the cards ``p`` cannot see
are the opponent's hand, the deck (below its top card) and, in Heir to the
Dunes, the cards under structures. Resampling them
(shuffling the opponent's hand and the deck together and dealing them back in
the same sizes) gives a position ``p`` cannot tell apart from the real one, so
every choice of ``p``'s bot must come out the same in both.

Two levels are checked:

* one decision at a time: fill the options of each decision kind exactly as
  the kernel does, then ask ``strategies.policy.choose_heuristic`` on both copies with
  the same random state;
* whole steps: run a kernel step (Wealth, Surge, War, Offering) on both copies
  with the top of the deck left in place, and compare everything public
  afterwards (when the step drew only from the untouched top and the opponent
  chose nothing from its own hand, which it legitimately sees).

A control shows the comparison has teeth: resampling the *deciding* seat's own
hand does change greedy's choices.
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as hs

from sim.base import layout as L
from sim.base import vocab as V
from sim.data.spec import RunSpec
from sim.kernel import board as B
from sim.kernel import decisions as D
from sim.kernel.abilities import enemy_targets, find_ability
from sim.kernel.draft import (
    DRAFT1_DRAW,
    DRAFT1_STRIDE,
    DRAFT_PACKET,
    PACKET_STRIDE,
    draft_begin,
    draft_options,
    draft_run,
)
from sim.kernel.game import setup_start
from sim.kernel.offering import offering_step
from sim.kernel.surge import surge_options, surge_step
from sim.kernel.war import keep_options, war_order_options, war_step
from sim.kernel.wealth import wealth_actions, wealth_step
from sim.kernel.zones import put_opt
from sim.run.scenario import Scenario
from sim.run.view import StateView
from strategies.greedy import LOOKAHEAD_KNOBS, SEARCH_KNOBS
from strategies.lookahead import (
    best_option,
    best_surge_option,
    best_wealth_split,
    play_out,
    sample_world,
)
from strategies.policy import (
    BOT_GREEDY,
    BOT_LOOKAHEAD,
    BOT_SEARCH,
    choose,
    choose_heuristic,
    heuristic_dispatcher,
)
from strategies.registry import STRATEGIES, strategy_arrays
from strategies.value import position_value
from strategies.value_features import N_FEATURES

# Every shipped bot: random, each heuristic profile and the look-ahead bot (whose
# decisions other than the Surge's are the heuristic's; its Surge is checked below).
BOT_IDS = {name: prof.bot for name, prof in STRATEGIES.items()}
ALL_BOTS = sorted(BOT_IDS)
STEPS = ("wealth", "surge", "war", "offering")
# Aegean alone, and Heir to the Dunes as the base with the Aegean units mixed in
# (gods, Favor, the Wealth reveal, REINFORCE and building structures).
MIXES = ("aegean", "dunes+aegean")
EXAMPLES = int(os.environ.get("OMENSIM_EXAMPLES", "50"))  # raise for a long bug hunt

# --- positions -------------------------------------------------------------------


def position(
    mix: str, seed: int, game: int, turns: int, step: int, bots: tuple[str, str]
) -> Scenario | None:
    """Game ``game`` of run ``seed`` after ``turns`` turns and ``step`` steps of the next one."""
    sc = Scenario.from_game(mix, seed, game, bots=bots)
    for _ in range(turns):
        if sc.over:
            return None
        sc.turn()
    if sc.over:
        return None
    for name in STEPS[:step]:
        getattr(sc, name)()
    return sc


def hidden_pool(st: np.ndarray, p: int, keep_top: int) -> list[int]:
    """State indices holding cards seat ``p`` cannot see: opponent's hand, deck below the top.

    Dunes: the cards under structures too. Building takes them face down from the
    deck; an ENTOMBed unit was seen, but no choice should turn on which cards lie
    under a structure, only on how many.
    """
    view = StateView(st)
    idx = list(view.zone_positions("hand", 1 - p))
    for s in range(2):
        idx += view.zone_positions("under", s)
    for d in range(2):
        deck = view.zone_positions("deck", d)
        idx += deck[: max(len(deck) - keep_top, 0)]  # the top of a deck is its last entry
    return idx


def resample(st: np.ndarray, p: int, keep_top: int, rng: np.random.Generator) -> np.ndarray:
    """A copy of ``st`` with the cards hidden from seat ``p`` shuffled among their places."""
    out = st.copy()
    idx = hidden_pool(st, p, keep_top)
    perm = rng.permutation(st[idx])
    if len(idx) > 1 and np.array_equal(perm, st[idx]):
        perm = np.roll(perm, 1)  # card ids are distinct: a rotation always moves some
    out[idx] = perm
    return out


def resample_own_hand(st: np.ndarray, p: int, rng: np.random.Generator) -> np.ndarray:
    """Control: swap seat ``p``'s own hand with deck cards (a change ``p`` *can* see)."""
    out = st.copy()
    view = StateView(st)
    idx = list(view.zone_positions("hand", p))
    idx += view.zone_positions("deck", 0)
    out[idx] = rng.permutation(st[idx])
    return out


# --- each decision's options, as the kernel enumerates them ----------------------------


def _put(st: np.ndarray, i: int, a: int, b: int, c: int, d: int) -> None:
    StateView(st).options[i] = (a, b, c, d)


def _hand(st: np.ndarray, p: int) -> list[int]:
    return StateView(st).zone_ids("hand", p)


def _card_col(tab: np.ndarray, card: int, col: int) -> int:
    k = tab[tab[L.TB_CARD_KIND] + card]
    return int(tab[tab[L.TB_KIND] + k * L.K_COLS + col])


def opts_wealth(st, tab, fp, p):  # wealth_step
    n = int(wealth_actions(st, tab))
    for k in range(n + 1):
        _put(st, k, k, n, 0, 0)
    yield n + 1


def opts_surge(st, tab, fp, p):  # surge_step (the kernel's own enumeration)
    yield int(surge_options(st, tab, fp, heuristic_dispatcher(), p))


def _building(st, tab, p) -> list[int]:
    """Structures seat ``p`` may build now: the one with cards under it, else any incomplete."""
    if not tab[L.TB_RULES + L.RU_STRUCTS]:
        return []
    incomplete = []
    view = StateView(st)
    for s in range(L.MAX_STRUCTS):
        if view.struct_kinds[p, s] >= 0 and not view.struct_done[p, s]:
            if view.struct_under[p, s] > 0:
                return [s]  # "A structure must be completed before building another."
            incomplete.append(s)
    return incomplete


def opts_offer(st, tab, fp, p):  # offering_step: offer a card, or reveal it to build (Dunes)
    _put(st, 0, -1, 0, 0, 0)
    n = 1
    for i, card in enumerate(_hand(st, p)):
        _put(st, n, i, card, 0, 0)
        n += 1
        for s in _building(st, tab, p):
            _put(st, n, i, card, 1, s)
            n += 1
    yield n


def opts_split(st, tab, fp, p):  # make_offering, for each offering value in hand
    for v in sorted({_card_col(tab, c, L.K_OFFERING) for c in _hand(st, p)}):
        for k in range(v + 1):
            _put(st, k, k, v, 0, 0)
        yield v + 1


def opts_discard(st, tab, fp, p):  # discard_from_hand (ability, hand limit), ENTOMB from hand
    for reason in (0, 1, 2):
        for i, card in enumerate(_hand(st, p)):
            _put(st, i, i, card, reason, 0)
        yield len(_hand(st, p))


def opts_keep(st, tab, fp, p):  # destroy_down_to (the kernel's own enumeration)
    for c in range(L.N_CITIES):
        if B.n_units(st, c, p):
            for keep in (1, 2):
                yield int(keep_options(st, tab, fp, heuristic_dispatcher(), c, p, keep))


def opts_war_order(st, tab, fp, p):  # war_step
    for c in range(L.N_CITIES):
        _put(st, c, c, 0, 0, 0)
    yield L.N_CITIES


def opts_destroy(st, tab, fp, p):  # _hit_enemy (the kernel's own enumeration)
    for tg in (V.TG_ANY_CITY,):
        for limit in (0, 2):
            yield int(enemy_targets(st, tab, fp, heuristic_dispatcher(), p, -1, tg, limit))


def opts_take(st, tab, fp, p):  # _take_discard
    pile = StateView(st).zone_ids("discard", 0)
    for i, card in enumerate(pile):
        _put(st, i, i, card, 0, 0)
    yield len(pile)


def opts_move(st, tab, fp, p):  # _move from any city
    _put(st, 0, -1, 0, 0, 0)
    n = 1
    for f in range(L.N_CITIES):
        for i in range(int(B.n_units(st, f, p))):
            card = int(B.slot_card(st, f, p, i))
            for t in range(L.N_CITIES):
                if t != f and B.fits(st, tab, t, p, card):
                    _put(st, n, f, i, t, card)
                    n += 1
    yield n
    for c in range(L.N_CITIES):  # _maneuver from city c: units without MANEUVER, into or out
        _put(st, 0, -1, 0, 0, 0)
        n = 1
        for f in range(L.N_CITIES):
            for i in range(int(B.n_units(st, f, p))):
                card = int(B.slot_card(st, f, p, i))
                if _card_col(tab, card, L.K_KEYWORDS) & V.KW_MANEUVER:
                    continue
                for t in range(L.N_CITIES):
                    if t != f and c in (f, t) and B.fits(st, tab, t, p, card):
                        _put(st, n, f, i, t, card)
                        n += 1
        yield n


def opts_reveal(st, tab, fp, p):  # reveal: discard a neutral unit to reveal again
    if not tab[L.TB_RULES + L.RU_WEALTH_REVEAL]:
        return
    _put(st, 0, -1, 0, 0, 0)
    n = 1
    for i, card in enumerate(_hand(st, p)):
        if _card_col(tab, card, L.K_DEVOTION) == V.DEV_NEUTRAL:
            _put(st, n, i, card, 0, 0)
            n += 1
    yield n


def _ability_options(st, tab, p, trigger, option):
    """Per city: "none", then each of seat ``p``'s units there with a ``trigger`` ability
    that ``option(card, ability)`` turns into the option's last two fields (``None``: skip)."""
    for c in range(L.N_CITIES):
        _put(st, 0, -1, 0, 0, 0)
        n = 1
        for i in range(int(B.n_units(st, c, p))):
            card = int(B.slot_card(st, c, p, i))
            a = int(find_ability(tab, card, trigger))
            fields = option(card, a) if a >= 0 else None
            if fields is not None:
                _put(st, n, i, card, *fields)
                n += 1
        yield n


def opts_reinforce(st, tab, fp, p):  # reinforce, after a devoted unit is played into c
    god = StateView(st).god_code(p)

    def devoted(card, a):
        return (a, 0) if _card_col(tab, card, L.K_DEVOTION) & god else None

    yield from _ability_options(st, tab, p, V.TR_REINFORCE, devoted)


def opts_rally(st, tab, fp, p):  # rally, ignoring coins (every RALLY unit is an option)
    def cost(card, a):
        return int(tab[tab[L.TB_ABIL] + a * L.A_COLS + L.A_COST]), a

    yield from _ability_options(st, tab, p, V.TR_RALLY, cost)


def opts_may(st, tab, fp, p):  # run_op on a "may" op
    for o in range(int((tab[L.TB_REWARD] - tab[L.TB_OPS]) // L.OP_COLS)):
        if tab[tab[L.TB_OPS] + o * L.OP_COLS + L.OP_MAY]:
            _put(st, 0, 1, o, -1, 0)
            _put(st, 1, 0, o, -1, 0)
            yield 2


def opts_emissary(st, tab, fp, p):  # _pick_emissary
    for i, card in enumerate(_hand(st, p)):
        _put(st, i, i, card, 0, 0)
    yield len(_hand(st, p))


DECISION_OPTIONS = {
    D.D_WEALTH: opts_wealth,
    D.D_SURGE: opts_surge,
    D.D_OFFER: opts_offer,
    D.D_SPLIT: opts_split,
    D.D_DISCARD: opts_discard,
    D.D_KEEP: opts_keep,
    D.D_WAR_ORDER: opts_war_order,
    D.D_DESTROY: opts_destroy,
    D.D_RETURN: opts_destroy,
    D.D_TAKE: opts_take,
    D.D_MOVE: opts_move,
    D.D_RALLY: opts_rally,
    D.D_MAY: opts_may,
    D.D_EMISSARY: opts_emissary,
    D.D_REVEAL: opts_reveal,
    D.D_REINFORCE: opts_reinforce,
}
# Decisions that only Heir to the Dunes (as the base set) brings up.
DUNES_ONLY = {D.D_REVEAL, D.D_REINFORCE}


def choices(st, tab, fp, p, dec):
    """Every (options, pick, random state after) of decision ``dec`` seat ``p`` faces here."""
    for n in DECISION_OPTIONS[dec](st, tab, fp, p):
        if n < 1:
            continue
        view = StateView(st)
        rows = view.options[:n].ravel().copy()
        k = int(choose_heuristic(st, tab, fp, p, dec, n))
        assert 0 <= k < n
        yield n, rows, k, view.rng_streams.copy()


def compare_choices(sc: Scenario, p: int, bot: str, hidden: np.ndarray) -> Counter:
    """Seat ``p`` with ``bot`` decides identically in ``sc`` and in ``hidden``; counts checked."""
    _, fp = strategy_arrays(bot, bot, sc.tab)
    real = sc.st.copy()
    StateView(real).bot_ids[p] = StateView(hidden).bot_ids[p] = BOT_IDS[bot]
    seen: Counter = Counter()
    for dec in DECISION_OPTIONS:
        a = list(choices(real, sc.tab, fp, p, dec))
        b = list(choices(hidden, sc.tab, fp, p, dec))
        assert len(a) == len(b)
        for (n, rows_a, ka, rng_a), (_, rows_b, kb, rng_b) in zip(a, b, strict=True):
            name = V.name_of(D.DECISIONS, dec)
            np.testing.assert_array_equal(rows_a, rows_b, err_msg=f"{name}: options differ")
            assert ka == kb, f"{bot} seat {p} {name}: picked {ka} vs {kb} of {n}: {rows_a}"
            np.testing.assert_array_equal(rng_a, rng_b, err_msg=f"{name}: random use differs")
            if n > 1:
                seen[name] += 1
                if dec == D.D_OFFER and (rows_a.reshape(n, 4)[:, 2] == 1).any():
                    seen["offer (build)"] += 1
    return seen


# --- whole steps ---------------------------------------------------------------------

KEEP_TOP = 8  # deck cards left in place for step comparisons (more than a step draws)


def public_view(st: np.ndarray, viewer: int) -> dict:
    """Everything ``viewer`` may see: counters, board, piles, own hand, opponent hand size."""
    state = StateView(st)
    view = {"header": state.header.tolist()}
    for d in range(2):
        view[f"discard{d}"] = state.zone_ids("discard", d)
    for p in range(2):
        view[f"out{p}"] = state.zone_ids("out", p)
    view["hand"] = sorted(_hand(st, viewer))
    return view


def _comparable(before: np.ndarray, after: np.ndarray, p: int) -> bool:
    """The step drew nothing resampled, and the opponent discarded nothing from its hand."""
    for d in range(2):
        n0, n1 = StateView(before).deck_size(d), StateView(after).deck_size(d)
        if n0 > KEEP_TOP and not n0 - KEEP_TOP <= n1 <= n0:
            return False
    return set(_hand(before, 1 - p)) <= set(_hand(after, 1 - p))


STEP_FNS = {"wealth": wealth_step, "surge": surge_step, "war": war_step, "offering": offering_step}


def compare_step(sc: Scenario, step: str, hidden: np.ndarray) -> bool:
    """Run ``step`` on the real and the resampled state; True if compared (and equal)."""
    p = sc.active
    real = sc.st.copy()
    hidden_before = hidden.copy()
    STEP_FNS[step](real, sc.tab, sc.fp, heuristic_dispatcher())
    STEP_FNS[step](hidden, sc.tab, sc.fp, heuristic_dispatcher())
    # Each copy against its own start: the opponent's hand differs between the two.
    if not (_comparable(sc.st, real, p) and _comparable(hidden_before, hidden, p)):
        return False
    a, b = public_view(real, p), public_view(hidden, p)
    for key in a:
        assert a[key] == b[key], f"{step}: {key} differs for seat {p} after resampling"
    return True


# --- tests ---------------------------------------------------------------------------

positions = hs.tuples(
    hs.sampled_from(MIXES),
    hs.integers(0, 2**32),  # seed
    hs.integers(0, 10**6),  # game
    hs.integers(0, 24),  # turns played
    hs.integers(0, 3),  # steps of the next turn played
    hs.tuples(hs.sampled_from(("random", "greedy")), hs.sampled_from(("random", "greedy"))),
)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=positions, shuffle_seed=hs.integers(0, 2**32), bot=hs.sampled_from(ALL_BOTS))
def test_decisions_ignore_hidden_cards(pos, shuffle_seed, bot):
    sc = position(*pos)
    assume(sc is not None)  # the game ended before the position
    rng = np.random.default_rng(shuffle_seed)
    for p in range(2):
        compare_choices(sc, p, bot, resample(sc.st, p, 1, rng))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=positions, shuffle_seed=hs.integers(0, 2**32))
def test_steps_ignore_hidden_cards(pos, shuffle_seed):
    sc = position(*pos)
    assume(sc is not None)  # the game ended before the position
    step = STEPS[pos[4]]
    hidden = resample(sc.st, sc.active, KEEP_TOP, np.random.default_rng(shuffle_seed))
    # Not comparable: the step drew a resampled card, or the opponent discarded from hand.
    assume(compare_step(sc, step, hidden))


def _sweep(mix: str):
    """A fixed set of varied mid-game positions (both bots, every step, early to late)."""
    out = []
    for i in range(48):
        bots = (("random", "greedy"), ("greedy", "random"), ("greedy", "greedy"))[i % 3]
        # Dunes games are shorter (two empty cities, or three structures, end them).
        turns = (i * 5) % 23 if mix == "aegean" else (i * 5) % 13
        sc = position(mix, 100 + i, 7 * i, turns, i % 4, bots)
        if sc is not None:
            out.append(sc)
    return out


@pytest.fixture(scope="module", params=MIXES)
def sweep(request):
    return request.param, _sweep(request.param)


@pytest.mark.parametrize("bot", ALL_BOTS)
def test_every_decision_kind_is_exercised(sweep, bot):
    """Across the fixed positions every decision kind had real choices, all unchanged."""
    mix, sweep = sweep
    rng = np.random.default_rng(1)
    seen: Counter = Counter()
    for sc in sweep:
        for p in range(2):
            hidden = resample(sc.st, p, 1, rng)
            assert not np.array_equal(hidden, sc.st) or len(hidden_pool(sc.st, p, 1)) < 2
            seen += compare_choices(sc, p, bot, hidden)
    for dec in DECISION_OPTIONS:
        name = V.name_of(D.DECISIONS, dec)
        if mix == "aegean" and dec in DUNES_ONLY:
            assert seen[name] == 0, f"{name} came up without the Dunes rules: {seen}"
            continue
        assert seen[name] >= 5, f"{name} exercised only {seen[name]} times: {seen}"
    if mix != "aegean":
        assert seen["offer (build)"] >= 5, seen


def test_every_step_is_compared(sweep):
    _, sweep = sweep
    rng = np.random.default_rng(2)
    compared: Counter = Counter()
    for sc in sweep:
        for step in STEPS:
            s = sc.st.copy()
            hidden = resample(s, sc.active, KEEP_TOP, rng)
            sc2 = Scenario.__new__(Scenario)
            sc2.__dict__.update(sc.__dict__)
            sc2.st = s
            if compare_step(sc2, step, hidden):
                compared[step] += 1
    assert all(compared[s] >= 30 for s in STEPS), compared


def test_control_own_hand_changes_greedy_choices(sweep):
    """The comparison can fail: resampling the decider's own hand does move greedy."""
    mix, sweep = sweep
    decisions = (D.D_SURGE, D.D_DISCARD, D.D_OFFER) + ((D.D_REVEAL,) if mix != "aegean" else ())
    rng = np.random.default_rng(3)
    changed: Counter = Counter()
    for sc in sweep:
        p = sc.active
        _, fp = strategy_arrays("greedy", "greedy", sc.tab)
        real = sc.st.copy()
        other = resample_own_hand(real, p, rng)
        StateView(real).bot_ids[p] = StateView(other).bot_ids[p] = BOT_GREEDY
        for dec in decisions:
            for (_, ra, ka, _), (_, rb, kb, _) in zip(
                choices(real, sc.tab, fp, p, dec), choices(other, sc.tab, fp, p, dec), strict=False
            ):
                if ka != kb or not np.array_equal(ra, rb):
                    changed[dec] += 1
    assert all(changed[d] > 0 for d in decisions), changed


# --- the look-ahead bot's Surge: rollouts in worlds dealt from what the seat may know ----


def _lookahead_pick(st: np.ndarray, tab: np.ndarray, fp: np.ndarray, p: int) -> tuple[int, list]:
    """The look-ahead bot's Surge choice for seat ``p`` in ``st``, and its random state after."""
    view = StateView(st)
    view.bot_ids[p] = BOT_LOOKAHEAD
    n = int(surge_options(st, tab, fp, heuristic_dispatcher(), p))
    k = int(best_surge_option(st, tab, fp, p, n))
    return k, view.rng_streams.tolist()


def _real_and_resampled(sc: Scenario, fp: np.ndarray, rng: np.random.Generator, pick):
    """A copy of ``sc``'s state, ``pick``'s answer for the active seat there, and its answer
    where the cards hidden from that seat are shuffled (the deck's top card kept)."""
    p = sc.active
    real = sc.st.copy()
    hidden = resample(real, p, 1, rng)
    return real, pick(real, sc.tab, fp, p), pick(hidden, sc.tab, fp, p)


def test_lookahead_surge_ignores_hidden_cards(sweep):
    """Rollouts deal the hidden cards again from their set, never from their places: moving
    the opponent's hand, the deck and the cards under structures around changes nothing."""
    _, sweep = sweep
    rng = np.random.default_rng(4)
    _, fp = strategy_arrays("lookahead", "lookahead", sweep[0].tab)
    decided = 0
    # At least 16 positions and 8 real choices: how many positions offer a choice depends
    # on how the bots played up to them, so walk on through the sweep until both hold.
    for checked, sc in enumerate(sweep, start=1):
        p = sc.active
        real, a, b = _real_and_resampled(sc, fp, rng, _lookahead_pick)
        assert a == b, f"look-ahead seat {p} picked {a[0]} vs {b[0]}"
        decided += int(surge_options(real, sc.tab, fp, heuristic_dispatcher(), p)) > 1
        if checked >= 16 and decided >= 8:
            break
    assert decided >= 8


def test_lookahead_control_own_hand_changes_its_surge(sweep):
    """The comparison can fail: the look-ahead bot does react to its own hand."""
    _, sweep = sweep
    rng = np.random.default_rng(5)
    _, fp = strategy_arrays("lookahead", "lookahead", sweep[0].tab)
    changed = 0
    for sc in sweep[:16]:
        p = sc.active
        real = sc.st.copy()
        other = resample_own_hand(real, p, rng)
        na = int(surge_options(real, sc.tab, fp, heuristic_dispatcher(), p))
        rows_a = StateView(real).options[:na].ravel().copy()
        nb = int(surge_options(other, sc.tab, fp, heuristic_dispatcher(), p))
        rows_b = StateView(other).options[:nb].ravel().copy()
        ka, _ = _lookahead_pick(real, sc.tab, fp, p)
        kb, _ = _lookahead_pick(other, sc.tab, fp, p)
        if not np.array_equal(rows_a.reshape(-1, 4)[ka], rows_b.reshape(-1, 4)[kb]):
            changed += 1
    assert changed > 0


def _lookahead_split(st: np.ndarray, tab: np.ndarray, fp: np.ndarray, p: int) -> tuple[int, list]:
    """The look-ahead bot's Wealth split for seat ``p`` in ``st``, and its random state after."""
    view = StateView(st)
    view.bot_ids[p] = BOT_LOOKAHEAD
    for k in range(4):  # the Wealth options of 3 actions, as wealth_step lists them
        put_opt(st, k, k, 3, 0, 0)
    k = int(best_wealth_split(st, tab, fp, p, 4))
    return k, view.rng_streams.tolist()


def test_lookahead_wealth_ignores_hidden_cards(sweep):
    """The Wealth split's rollouts are dealt from what the seat may know, like the Surge's."""
    _, sweep = sweep
    rng = np.random.default_rng(6)
    _, fp = strategy_arrays("lookahead", "lookahead", sweep[0].tab)
    picks = set()
    for sc in sweep[:16]:
        p = sc.active
        _, a, b = _real_and_resampled(sc, fp, rng, _lookahead_split)
        assert a == b, f"look-ahead seat {p} split {a[0]} vs {b[0]}"
        picks.add(a[0])
    assert len(picks) > 1, "the split must depend on the position for the test to mean anything"


# --- the look-ahead bot's Offering, war order and keeps: planned the same way -----------


def _war_order(st, tab, fp, p):  # the War step's own enumeration (the cities at war now)
    yield int(war_order_options(st, tab))


PLANNED = {
    D.D_OFFER: ("offer", opts_offer),
    D.D_WAR_ORDER: ("war_order", _war_order),
    D.D_KEEP: ("keep", opts_keep),
}


def _war_sweep(mix: str, want: int = 4) -> list[Scenario]:
    """Positions just before a War step with two or more cities at war (rare after greedy
    play, so random bots make them; up to ``want``, searching a fixed range of games)."""
    out = []
    for i in range(600):
        sc = position(mix, 500 + i, 3 * i, (i * 3) % (20 if mix == "aegean" else 12), 2,
                      ("random", "random"))  # fmt: skip
        if sc is not None and war_order_options(sc.st.copy(), sc.tab) > 1:
            out.append(sc)
            if len(out) == want:
                break
    return out


def _planned_picks(dec: int):
    """A ``pick`` for ``_real_and_resampled``: every look-ahead answer to ``dec`` (its knob
    on) with a real choice in the position, as (options, pick) pairs, and the random state."""

    def pick(st: np.ndarray, tab: np.ndarray, fp: np.ndarray, p: int) -> tuple[list, list]:
        view = StateView(st)
        view.bot_ids[p] = BOT_LOOKAHEAD
        out = []
        for n in PLANNED[dec][1](st, tab, fp, p):
            if n > 1:
                rows = view.options[:n].tolist()
                out.append((rows, int(best_option(st, tab, fp, p, dec, n))))
        return out, view.rng_streams.tolist()

    return pick


def _planning_fp(tab: np.ndarray, dec: int) -> np.ndarray:
    _, fp = strategy_arrays("lookahead", "lookahead", tab)
    fp[:, LOOKAHEAD_KNOBS[PLANNED[dec][0]]] = 1
    return fp


@pytest.mark.parametrize("dec", list(PLANNED), ids=[v[0] for v in PLANNED.values()])
def test_lookahead_planned_decisions_ignore_hidden_cards(sweep, dec):
    """The Offering, war-order and keep rollouts are dealt from what the seat may know too:
    shuffling the opponent's hand, the deck and the cards under structures changes nothing."""
    mix, sweep = sweep
    rng = np.random.default_rng(7 + dec)
    fp = _planning_fp(sweep[0].tab, dec)
    decided = 0
    for sc in _war_sweep(mix) if dec == D.D_WAR_ORDER else sweep:
        _, a, b = _real_and_resampled(sc, fp, rng, _planned_picks(dec))
        assert a == b, f"{PLANNED[dec][0]}: look-ahead seat {sc.active} chose {a[0]} vs {b[0]}"
        decided += len(a[0])
    assert decided >= (4 if dec == D.D_WAR_ORDER else 8), decided


def test_lookahead_control_own_hand_changes_its_offering(sweep):
    """The comparison can fail: the planned Offering does react to the bot's own hand."""
    _, sweep = sweep
    rng = np.random.default_rng(8)
    fp = _planning_fp(sweep[0].tab, D.D_OFFER)
    pick = _planned_picks(D.D_OFFER)
    changed = 0
    for sc in sweep[:16]:
        p = sc.active
        real = sc.st.copy()
        other = resample_own_hand(real, p, rng)
        (a, _), (b, _) = pick(real, sc.tab, fp, p), pick(other, sc.tab, fp, p)
        picked_a = [rows[k] for rows, k in a]
        picked_b = [rows[k] for rows, k in b]
        changed += picked_a != picked_b
    assert changed > 0


# --- the look-ahead bot's draft picks: the box and the other seat's private cards --------

# Draft variants whose picks the look-ahead plans, with the table's hands of cards: the
# simple draft's two packets, Draft Variant 1's three cards of each seat (sim.kernel.draft).
DRAFT_HANDS = {
    "simple-draft": ("reign", [(0, DRAFT_PACKET), (PACKET_STRIDE, DRAFT_PACKET)]),
    "draft1": ("reign+aegean", [(0, DRAFT1_DRAW), (DRAFT1_STRIDE, DRAFT1_DRAW)]),
}
DRAFT_PICKS = {"simple-draft": (1, 6, 13, 22, 37, 50), "draft1": (0, 3, 10, 17, 26, 33)}


def draft_position(variant: str, game: int, picks: int) -> tuple[Scenario, int, int]:
    """Game ``game`` of a greedy self-play run of ``variant`` after ``picks`` draft picks:
    the scenario, the seat to pick and the number of its options (listed in the state)."""
    mix = DRAFT_HANDS[variant][0]
    sc = Scenario.from_spec(RunSpec(games=1, mix=mix, seed=21, variants=(variant,)))
    setup_start(sc.st, sc.tab, 21, game)
    draft_begin(sc.st, sc.tab)
    draft_run(sc.st, sc.tab, sc.fp, sc.ask, -1, picks)
    view = StateView(sc.st)
    assert view.drafting == 1 and view.draft_pick == picks
    return sc, int(view.draft_seat), int(draft_options(sc.st, sc.tab))


def draft_hidden_cells(st: np.ndarray, variant: str, p: int, n: int) -> list[tuple]:
    """The places of the cards seat ``p`` cannot see at its pick, as (array, index) pairs.

    The box (the cards not yet dealt: Reign, "Shuffle the unit cards and deal 10 to each
    player", reign-of-war.en.md, line 224; Aegean, "draws 3 cards from a shared deck",
    edge-of-the-aegean.txt, line 171); the hand of cards on the table the seat does not
    hold (the other seat's packet; the other seat's three cards, or the one it will pass);
    the other seat's drafted cards (Variant 1 "places them facedown"; in the simple draft
    some came from packets ``p`` never saw whole).
    """
    view = StateView(st)
    mine = {int(c) for c in view.options[:n, 1]}
    cells = [(st, i) for i in view.zone_positions("box")]
    cells += [(st, i) for i in view.zone_positions("deck", 1 - p)]
    table = view.draft_table
    for off, size in DRAFT_HANDS[variant][1]:
        live = [off + j for j in range(size) if table[off + j] >= 0]
        if not {int(table[i]) for i in live} & mine:
            cells += [(table, i) for i in live]
    return cells


def draft_resample(st: np.ndarray, variant: str, p: int, n: int, rng) -> np.ndarray:
    """A copy of ``st`` with the cards hidden from seat ``p`` shuffled among their places."""
    out = st.copy()
    cells = draft_hidden_cells(out, variant, p, n)
    cards = np.array([a[i] for a, i in cells])
    perm = rng.permutation(cards)
    if np.array_equal(perm, cards):
        perm = np.roll(perm, 1)
    for (a, i), c in zip(cells, perm, strict=True):
        a[i] = c
    return out


def _draft_fp(tab: np.ndarray) -> np.ndarray:
    _, fp = strategy_arrays("lookahead", "lookahead", tab)
    fp[:, LOOKAHEAD_KNOBS["draft"]] = 1
    return fp


def _draft_pick(st: np.ndarray, tab: np.ndarray, fp: np.ndarray, p: int, n: int) -> tuple:
    """The look-ahead's draft pick, its rollout tallies and its random state after."""
    view = StateView(st)
    view.bot_ids[p] = BOT_LOOKAHEAD
    k = int(best_option(st, tab, fp, p, D.D_DRAFT, n))
    return k, view.lookahead_tallies.tolist(), view.rng_streams.tolist()


def world_state(st: np.ndarray, tab: np.ndarray, p: int, world: int, redeal: bool) -> np.ndarray:
    """A copy of ``st`` with sampled world ``world`` in its rollout state; with ``redeal``
    off, the rollout state is the real game's (as if ``sample_world`` dealt nothing again)."""
    s = st.copy()
    sample_world(s, tab, p, world, L.MAX_OPTS)
    if not redeal:
        ro = StateView(s).rollout()
        streams = ro.rng_streams.copy()
        bots, rows = ro.bot_ids.copy(), ro.param_rows.copy()
        ro.st[:] = s[: len(ro.st)]
        ro.rng_streams[:] = streams
        ro.bot_ids[:] = bots
        ro.param_rows[:] = rows
        ro.script_n = ro.script_pos = 0
    return s


def draft_rollout_values(st, tab, fp, p: int, n: int, redeal: bool) -> list[float]:
    """Each option's summed rollout value over two sampled worlds; with ``redeal`` off, the
    rollout state is the real game's (as if ``sample_world`` dealt nothing again)."""
    values = []
    for k in range(min(n, 3)):
        total = 0.0
        for world in (11, 12):
            s = world_state(st, tab, p, world, redeal)
            total += float(play_out(s, tab, fp, p, D.D_DRAFT, k, 0, 0, 1 << 20))
        values.append(total)
    return values


@pytest.mark.parametrize("variant", list(DRAFT_HANDS))
def test_lookahead_draft_ignores_hidden_cards(variant: str) -> None:
    """The draft pick's rollouts deal the box and the other seat's private cards again from
    what the seat may know: shuffling them changes neither the pick, nor the rollouts'
    values, nor the random state."""
    rng = np.random.default_rng(9)
    decided = 0
    for i, picks in enumerate(DRAFT_PICKS[variant]):
        sc, p, n = draft_position(variant, i, picks)
        fp = _draft_fp(sc.tab)
        hidden = draft_resample(sc.st, variant, p, n, rng)
        assert not np.array_equal(hidden, sc.st)
        a = _draft_pick(sc.st.copy(), sc.tab, fp, p, n)
        b = _draft_pick(hidden.copy(), sc.tab, fp, p, n)
        assert a == b, f"{variant} pick {picks}: seat {p} chose {a[0]} vs {b[0]}"
        va = draft_rollout_values(sc.st, sc.tab, fp, p, n, redeal=True)
        vb = draft_rollout_values(hidden, sc.tab, fp, p, n, redeal=True)
        assert va == vb, f"{variant} pick {picks}: rollout values {va} vs {vb}"
        decided += n > 1
    assert decided >= 4


@pytest.mark.parametrize("variant", list(DRAFT_HANDS))
def test_lookahead_draft_control_without_redeal_sees_hidden_cards(variant: str) -> None:
    """The comparison can fail: with the re-deal switched off (the rollout state a copy of
    the real game), shuffling the same hidden cards changes the rollouts' values."""
    rng = np.random.default_rng(9)
    changed = 0
    for i, picks in enumerate(DRAFT_PICKS[variant]):
        sc, p, n = draft_position(variant, i, picks)
        fp = _draft_fp(sc.tab)
        hidden = draft_resample(sc.st, variant, p, n, rng)
        va = draft_rollout_values(sc.st, sc.tab, fp, p, n, redeal=False)
        vb = draft_rollout_values(hidden, sc.tab, fp, p, n, redeal=False)
        changed += va != vb
    assert changed >= 3, changed


@pytest.mark.parametrize("variant", list(DRAFT_HANDS))
def test_lookahead_play_after_a_hidden_draft_ignores_the_unseen_cards(variant: str) -> None:
    """After a draft whose keeps are hidden, the cards the seat never saw drafted lie in the
    opponent's hand and deck or in the box, and it cannot tell which: shuffling the
    opponent's hand, its deck, the cards under structures and the box together changes
    none of the look-ahead's Surge choices (Draft Variant 1: "places them facedown",
    edge-of-the-aegean.txt, line 171; the simple draft's packets, reign-of-war.en.md,
    line 224)."""
    mix = DRAFT_HANDS[variant][0]
    spec = RunSpec(games=40, mix=mix, seed=23, variants=(variant,))
    rng = np.random.default_rng(10)
    decided = 0
    for game in range(12):
        sc = Scenario.from_spec(spec, game=game)
        for _ in range(game % 6):
            if not sc.over:
                sc.turn()
        if sc.over:
            continue
        p = sc.active
        _, fp = strategy_arrays("lookahead", "lookahead", sc.tab)
        hidden = sc.st.copy()
        view = StateView(hidden)
        idx = list(view.zone_positions("hand", 1 - p)) + list(view.zone_positions("deck", 1 - p))
        idx += list(view.zone_positions("box"))
        for s in range(2):
            idx += list(view.zone_positions("under", s))
        hidden[idx] = rng.permutation(hidden[idx])
        a = _lookahead_pick(sc.st.copy(), sc.tab, fp, p)
        b = _lookahead_pick(hidden, sc.tab, fp, p)
        assert a == b, f"{variant} game {game}: seat {p} picked {a[0]} vs {b[0]}"
        decided += int(surge_options(sc.st.copy(), sc.tab, fp, heuristic_dispatcher(), p)) > 1
    assert decided >= 4, decided


# --- the search bot: every decision it plans, from worlds dealt from what it may know ---

SEARCHED = {
    D.D_SURGE: (
        "surge",
        lambda st, tab, fp, p: iter([int(surge_options(st, tab, fp, choose_heuristic, p))]),
    ),
    D.D_WEALTH: ("wealth", lambda st, tab, fp, p: _wealth_options(st)),
    D.D_OFFER: ("offer", opts_offer),
    D.D_WAR_ORDER: ("war_order", _war_order),
    D.D_KEEP: ("keep", opts_keep),
}


def _wealth_options(st):  # the Wealth options of 3 actions, as wealth_step lists them
    for k in range(4):
        put_opt(st, k, k, 3, 0, 0)
    yield 4


# The bots that plan by play-outs in sampled worlds: the search (its play-outs scored by
# the heuristic's rollout value, or by the learned value over every option) and the value bot.
PLANNERS = ("search", "vsearch", "value")


def _search_fp(tab: np.ndarray, simulations: int = 6, bot: str = "search") -> np.ndarray:
    """The shipped ``bot`` profile's rows, a search at a small budget (the tests' speed)."""
    _, fp = strategy_arrays(bot, bot, tab)
    fp[:, SEARCH_KNOBS["simulations"]] = simulations
    return fp


def _search_picks(dec: int, bot: str = "search"):
    """A ``pick`` for ``_real_and_resampled``: the ``bot`` seat's answers to ``dec`` through
    the run's dispatcher (``strategies.policy.choose``), as (options, pick) pairs, its
    tallies and its random state."""

    def pick(st: np.ndarray, tab: np.ndarray, fp: np.ndarray, p: int) -> tuple[list, list, list]:
        view = StateView(st)
        view.bot_ids[p] = STRATEGIES[bot].bot
        out = []
        for n in SEARCHED[dec][1](st, tab, fp, p):
            if n > 1:
                rows = view.options[:n].tolist()
                out.append((rows, int(choose(st, tab, fp, p, dec, n))))
        return out, view.lookahead_tallies.tolist(), view.rng_streams.tolist()

    return pick


def resample_tiles(st: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A copy of ``st`` with the face-down reward tiles of every city shuffled among the
    stacks, each stack keeping its height (no bot may tell which tile lies where)."""
    out = st.copy()
    idx = [
        L.STACK + c * L.MAX_STACK + i for c in range(L.N_CITIES) for i in range(st[L.STACK_N + c])
    ]
    perm = rng.permutation(st[idx])
    if len(set(st[idx].tolist())) > 1 and np.array_equal(perm, st[idx]):
        perm = np.roll(perm, 1)
    out[idx] = perm
    return out


@pytest.mark.parametrize("bot", PLANNERS)
@pytest.mark.parametrize("dec", list(SEARCHED), ids=[v[0] for v in SEARCHED.values()])
def test_search_decisions_ignore_hidden_cards(sweep, dec, bot):
    """Each decision the search bot (and the value search, and the value bot) plans comes out
    the same, with the same play-out tallies and random state, when the opponent's hand, the
    deck below its top card, the cards under structures and the face-down reward tiles are
    shuffled among their places."""
    mix, sweep = sweep
    rng = np.random.default_rng(40 + dec)
    fp = _search_fp(sweep[0].tab, bot=bot)
    decided = 0
    for sc in _war_sweep(mix) if dec == D.D_WAR_ORDER else sweep[:24]:
        p = sc.active
        real = sc.st.copy()
        hidden = resample_tiles(resample(real, p, 1, rng), rng)
        assert not np.array_equal(hidden, real)
        a = _search_picks(dec, bot)(real, sc.tab, fp, p)
        b = _search_picks(dec, bot)(hidden, sc.tab, fp, p)
        assert a == b, f"{SEARCHED[dec][0]}: {bot} seat {p} chose {a[0]} vs {b[0]}"
        decided += len(a[0])
    assert decided >= (4 if dec == D.D_WAR_ORDER else 8), decided


@pytest.mark.parametrize("bot", PLANNERS)
def test_search_control_own_hand_changes_its_choices(sweep, bot):
    """The comparison can fail: the search bot's (and the value bots') Surge and Offering
    react to its own hand."""
    _, sweep = sweep
    rng = np.random.default_rng(41)
    fp = _search_fp(sweep[0].tab, bot=bot)
    changed = 0
    for dec in (D.D_SURGE, D.D_OFFER):
        for sc in sweep[:12]:
            p = sc.active
            real = sc.st.copy()
            other = resample_own_hand(real, p, rng)
            (a, _, _), (b, _, _) = (
                _search_picks(dec, bot)(real, sc.tab, fp, p),
                _search_picks(dec, bot)(other, sc.tab, fp, p),
            )
            changed += [rows[k] for rows, k in a] != [rows[k] for rows, k in b]
    assert changed > 0


def test_search_control_peeking_world_changes_its_tallies(sweep):
    """The comparison can fail: a search whose worlds were the real game (no re-deal) would
    tally different play-outs once the hidden cards move, as the look-ahead's would."""
    _, sweep = sweep
    rng = np.random.default_rng(42)
    fp = _search_fp(sweep[0].tab)
    changed = 0
    for sc in sweep[:12]:
        p = sc.active
        real = sc.st.copy()
        hidden = resample(real, p, 1, rng)
        values = []
        for s in (real, hidden):
            n = int(surge_options(s, sc.tab, fp, choose_heuristic, p))
            if n < 2:
                break
            w = world_state(s, sc.tab, p, 11, redeal=False)
            values.append(float(play_out(w, sc.tab, fp, p, D.D_SURGE, 0, 0, 0, 2)))
        changed += len(values) == 2 and values[0] != values[1]
    assert changed > 0


def _search_draft_pick(st: np.ndarray, tab: np.ndarray, fp: np.ndarray, p: int, n: int) -> tuple:
    """The search bot's draft pick, its tallies and its random state after."""
    view = StateView(st)
    view.bot_ids[p] = BOT_SEARCH
    k = int(choose(st, tab, fp, p, D.D_DRAFT, n))
    return k, view.lookahead_tallies.tolist(), view.rng_streams.tolist()


@pytest.mark.parametrize("variant", list(DRAFT_HANDS))
def test_search_draft_ignores_hidden_cards(variant: str) -> None:
    """The search bot's draft picks are dealt from what the seat may know: shuffling the box
    and the other seat's private cards changes neither the pick nor its tallies."""
    rng = np.random.default_rng(43)
    decided = 0
    for i, picks in enumerate(DRAFT_PICKS[variant][:4]):
        sc, p, n = draft_position(variant, i, picks)
        fp = _search_fp(sc.tab, 2)
        hidden = draft_resample(sc.st, variant, p, n, rng)
        a = _search_draft_pick(sc.st.copy(), sc.tab, fp, p, n)
        b = _search_draft_pick(hidden.copy(), sc.tab, fp, p, n)
        assert a == b, f"{variant} pick {picks}: seat {p} chose {a[0]} vs {b[0]}"
        decided += n > 1
    assert decided >= 3


# --- the learned value of a position: what it reads is what the seat may see ----------


def test_value_ignores_hidden_cards(sweep):
    """The learned value of a position for a seat, and every feature it reads, come out the
    same when the opponent's hand, the deck below its top card, the cards under structures
    and the face-down reward tiles are shuffled among their places."""
    _, sweep = sweep
    rng = np.random.default_rng(44)
    resampled = 0
    for sc in sweep:
        for p in range(2):
            real = sc.st.copy()
            hidden = resample_tiles(resample(real, p, 0, rng), rng)
            resampled += not np.array_equal(hidden, real)  # late: nothing may be left hidden
            a = float(position_value(real, sc.tab, sc.fp, p))
            b = float(position_value(hidden, sc.tab, sc.fp, p))
            assert a == b, f"seat {p}: value {a} vs {b} after resampling what it cannot see"
            fa = real[L.VALUE_SCRATCH : L.VALUE_SCRATCH + N_FEATURES].view(np.float64)
            fb = hidden[L.VALUE_SCRATCH : L.VALUE_SCRATCH + N_FEATURES].view(np.float64)
            assert fa.tolist() == fb.tolist()
    assert resampled >= len(sweep), resampled


def test_value_control_what_the_seat_sees_changes_it(sweep):
    """The comparison can fail: a unit moved on the board (public) changes the value, and
    resampling the seat's own hand changes it where a TREASURED unit moves in or out."""
    _, sweep = sweep
    rng = np.random.default_rng(45)
    moved = own = 0
    for sc in sweep:
        p = sc.active
        real = sc.st.copy()
        v = float(position_value(real, sc.tab, sc.fp, p))
        other = resample_own_hand(real, p, rng)
        own += float(position_value(other, sc.tab, sc.fp, p)) != v
        board = sc.st.copy()
        for c in range(L.N_CITIES):
            if board[L.SIDE_N + 2 * c + 1 - p] > 0 and board[L.STACK_N + c] > 0:
                board[L.SLOT + (2 * c + 1 - p) * L.N_SLOTS] = real[L.HAND + p * L.MAX_CARDS]
                moved += float(position_value(board, sc.tab, sc.fp, p)) != v
                break
    assert moved > 0 and own > 0, (moved, own)
