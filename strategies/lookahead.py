"""``lookahead``: plays its best few options of a decision out in sampled rollouts.

At every Surge decision (what to play where, which reward tile to use, or to
stop) the bot takes the ``width`` options its heuristic weights value most and,
for each of ``rollouts`` sampled worlds, plays the option and the rest of the
game for ``horizon`` more turns with the fast kernel, both seats answering with
the bot's own weights. It plays the option with the best mean outcome. Its
profile's knobs plan more decisions the same way: ``wealth`` the Wealth split
(every split tried), ``offer`` the Offering (which card, a build, or none),
``war_order`` the order of the War step's conflicts, ``keep`` the units it
keeps after a war and ``draft`` its picks in a draft variant (each rollout
finishes the draft and the set-up, then plays the whole game: a pick's worth
shows over the whole game, and shorter horizons measured worse in some
variants, see ``DRAFT_HORIZON``). Every other decision is the heuristic's.

A sampled world never peeks: the cards the seat cannot see (the opponent's
hand, the deck below, cards under structures, face-down reward tiles) are
pooled, put in card-id order (so the sample depends on which cards are hidden,
never on where they lie) and dealt back at random into the same places. Every
option of one decision is tried in the same sampled worlds, so their
comparison is not blurred by luck of the deal.

During a draft (``_redeal_draft``) the box's order, the cards not yet dealt,
is hidden from both seats. What else is hidden follows each variant's text:

* Reign simple draft ("deal 10 to each player; each player keeps 1 and passes
  the rest to the left", reign-of-war.en.md, lines 224-227): the packet the
  other seat holds and the cards it has kept (some came from packets this seat
  never saw whole) are pooled with the box. Cards of those it could infer
  (the ones it saw leave a packet) are pooled too, which the seat may forget
  but never learns wrongly.
* Aegean Draft Variant 1 ("draws 3 cards ... chooses 2, places them facedown,
  and then passes the remaining card", edge-of-the-aegean.txt, line 171): the
  other seat's three cards (or the one it will pass) and its face-down keeps.
* Aegean Draft Variant 2 ("20 random cards are placed faceup", line 173) and
  the pile draft ("one pile per unit kind", reign-of-war.en.md, lines 204-210):
  every pick is public; only the box is hidden.

The seat's own picks and the cards it holds are never pooled.

The rollouts run in the second game state at ``st[ROLLOUT:]``, so nothing is
allocated. The bot answers from inside the decision dispatcher
(``strategies.policy.choose``), at the point of the turn where it is asked: a
rollout first takes the option being tried and finishes that step with the
kernel's own continuation (the Surge's ``surge_apply`` / ``surge_rest`` /
``surge_end``, the Wealth step's ``take_split``, ``war_rest`` and ``keep_rest``
in the War step, ``offering_rest``), then plays on through ``sim.kernel.turn``.
Rollouts answer with ``choose_heuristic``, which has no look-ahead, so a
rollout never starts another.
"""

from __future__ import annotations

import numpy as np

from sim.base import events as E
from sim.base import layout as L
from sim.compiler import ask_of, kernel
from sim.kernel import board as B
from sim.kernel import decisions as D
from sim.kernel import trace as T
from sim.kernel.draft import draft_rest, drafted_hidden, hidden_table, table_slots
from sim.kernel.game import setup_rest
from sim.kernel.offering import offering_rest
from sim.kernel.rng import next_u64, randint
from sim.kernel.scoring import score_into, winner_of
from sim.kernel.surge import surge_apply, surge_end, surge_rest
from sim.kernel.tab import n_cards, n_tiles
from sim.kernel.turn import N_STEPS, S_SURGE, S_WAR, play_steps, play_turn
from sim.kernel.war import keep_rest, war_rest
from sim.kernel.wealth import take_split
from sim.kernel.zones import opt
from strategies.greedy import (
    P_LA_HORIZON,
    P_LA_ROLLOUTS,
    P_LA_WIDTH,
    P_LEAF_VALUE,
    decision_figures,
    score_option,
)
from strategies.heuristic import BOT_GREEDY, choose_heuristic
from strategies.value import leaf_value

# The rollouts' dispatcher, as a value the kernel's steps take (see sim.compiler.ask_of).
heuristic_ask = ask_of(choose_heuristic)

WIN_VALUE = 30.0  # a won game, in VP, when a rollout reaches the end
COIN_VALUE = 0.3  # VP-equivalents of the material left when a rollout stops early
CARD_VALUE = 0.35
PRESENCE_VALUE = 0.2  # per point of strength in a city that still holds tiles
# Turns a draft pick's rollouts play after the set-up: the whole game (the turn cap ends
# it), whatever the profile's horizon. Against economic in four draft variants
# (docs/bots.md has the figures and the command), the whole game beats not
# planning the draft in all four or ties; a 4-turn horizon is faster and stronger in
# the simple draft, but weaker in the pile draft and Draft Variant 1 and below not
# planning at all in Variant 2 (Heir to the Dunes, where a deck's worth shows late: a
# short horizon buys early tempo).
DRAFT_HORIZON = 1 << 20


@kernel
def _mark(ro, off, n):
    """Mark the ids held at ``ro[off:off+n]`` in the rollout's TMP2 bitmap."""
    for i in range(n):
        ro[L.TMP2 + ro[off + i]] = 1


@kernel
def _pool_in_order(ro, limit):
    """The marked ids below ``limit``, ascending, into TMP (the bitmap is cleared); count."""
    m = 0
    for c in range(limit):
        if ro[L.TMP2 + c]:
            ro[L.TMP + m] = c
            m += 1
            ro[L.TMP2 + c] = 0
    return m


@kernel
def _shuffle_pool(ro, m):
    """Shuffle TMP[0:m] with the rollout's set-up stream."""
    for i in range(m - 1, 0, -1):
        j = randint(ro, L.RNG_SETUP, i + 1)
        t = ro[L.TMP + i]
        ro[L.TMP + i] = ro[L.TMP + j]
        ro[L.TMP + j] = t


@kernel
def _deal_back(ro, off, n, pos):
    """Fill ``ro[off:off+n]`` from TMP[pos:]; returns the next position."""
    for i in range(n):
        ro[off + i] = ro[L.TMP + pos + i]
    return pos + n


@kernel
def _redeal_cards(ro, tab, p):
    """Deal the unit cards seat ``p`` cannot see again, each into a place that was hidden.

    With a shared deck: the opponent's hand, the deck and the cards under
    structures form one pool. With own decks the opponent's hand, deck and
    structures form one pool, and ``p``'s own deck (whose cards it drafted but
    whose order it does not know) is shuffled on its own. After a draft whose
    keeps are hidden (the simple draft, Aegean Draft Variant 1) the box joins
    the pool: ``p`` never saw all the cards the opponent drafted, so which of
    the unseen cards sit in its deck and which in the box is hidden too.
    """
    q = 1 - p
    own = ro[L.OWN_DECKS]
    box = own and drafted_hidden(tab)
    hq = L.HAND + q * L.MAX_CARDS
    dq = L.DECK + (q * L.MAX_CARDS if own else 0)
    dq_n = L.DECK_N + (q if own else 0)
    _mark(ro, hq, ro[L.HAND_N + q])
    _mark(ro, dq, ro[dq_n])
    for s in range(2):
        _mark(ro, L.UNDER + s * L.MAX_CARDS, ro[L.UNDER_N + s])
    if box:
        _mark(ro, L.BOX, ro[L.BOX_N])
    m = _pool_in_order(ro, n_cards(tab))
    _shuffle_pool(ro, m)
    pos = _deal_back(ro, hq, ro[L.HAND_N + q], 0)
    pos = _deal_back(ro, dq, ro[dq_n], pos)
    for s in range(2):
        pos = _deal_back(ro, L.UNDER + s * L.MAX_CARDS, ro[L.UNDER_N + s], pos)
    if box:
        _deal_back(ro, L.BOX, ro[L.BOX_N], pos)
    if own:
        dp = L.DECK + p * L.MAX_CARDS
        _mark(ro, dp, ro[L.DECK_N + p])
        m = _pool_in_order(ro, n_cards(tab))
        _shuffle_pool(ro, m)
        _deal_back(ro, dp, ro[L.DECK_N + p], 0)


@kernel
def _mark_live(ro, off, n):
    """Mark the ids at ``ro[off:off+n]`` that are cards (-1 marks a taken one)."""
    for i in range(n):
        if ro[off + i] >= 0:
            ro[L.TMP2 + ro[off + i]] = 1


@kernel
def _deal_live(ro, off, n, pos):
    """Fill the card places of ``ro[off:off+n]`` (not the -1s) from TMP[pos:]; next position."""
    for i in range(n):
        if ro[off + i] >= 0:
            ro[off + i] = ro[L.TMP + pos]
            pos += 1
    return pos


@kernel
def _redeal_draft(ro, tab, p):
    """Deal the cards seat ``p`` cannot see during a draft again, each into a hidden place:
    the box (the cards not yet dealt) and, where the variant hides them, the other seat's
    cards on the table and the cards it has kept (the module docstring gives each variant's).
    """
    q = 1 - p
    dq = L.DECK + q * L.MAX_CARDS
    off = hidden_table(ro, tab, p)
    slots = table_slots(tab)
    hidden = drafted_hidden(tab)
    _mark(ro, L.BOX, ro[L.BOX_N])
    if off >= 0:
        _mark_live(ro, L.DRAFT + off, slots)
    if hidden:
        _mark(ro, dq, ro[L.DECK_N + q])
    m = _pool_in_order(ro, n_cards(tab))
    _shuffle_pool(ro, m)
    pos = _deal_back(ro, L.BOX, ro[L.BOX_N], 0)
    if off >= 0:
        pos = _deal_live(ro, L.DRAFT + off, slots, pos)
    if hidden:
        _deal_back(ro, dq, ro[L.DECK_N + q], pos)


@kernel
def _redeal_tiles(ro, tab):
    """Deal the face-down reward tiles again, keeping each city's stack height."""
    for c in range(L.N_CITIES):
        _mark(ro, L.STACK + c * L.MAX_STACK, ro[L.STACK_N + c])
    m = _pool_in_order(ro, n_tiles(tab))
    _shuffle_pool(ro, m)
    pos = 0
    for c in range(L.N_CITIES):
        pos = _deal_back(ro, L.STACK + c * L.MAX_STACK, ro[L.STACK_N + c], pos)


@kernel
def _copy_zone(ro, st, off, n):
    """Copy the ``n`` entries of the zone at ``off``."""
    for i in range(n):
        ro[off + i] = st[off + i]


@kernel
def copy_game(ro, st, opts):
    """Copy what of the game ``st`` a play-out reads into ``ro``: the state, the cards each
    zone holds, the first ``opts`` option rows of the decision being played out.

    A zone's entries past its count, the option rows past ``opts`` and the scripted
    choices are never read before they are written (a play-out queues no script), so
    they are left as the last play-out left them: a play-out copies about a quarter of
    the state.
    """
    for i in range(L.DECK):  # the counters, the board, the draft's table
        ro[i] = st[i]
    for d in range(2):
        _copy_zone(ro, st, L.DECK + d * L.MAX_CARDS, st[L.DECK_N + d])
        _copy_zone(ro, st, L.DISC + d * L.MAX_CARDS, st[L.DISC_N + d])
        _copy_zone(ro, st, L.HAND + d * L.MAX_CARDS, st[L.HAND_N + d])
        _copy_zone(ro, st, L.OUT + d * L.MAX_CARDS, st[L.OUT_N + d])
        _copy_zone(ro, st, L.UNDER + d * L.MAX_CARDS, st[L.UNDER_N + d])
    _copy_zone(ro, st, L.BOX, st[L.BOX_N])
    _copy_zone(ro, st, L.OPTS, L.OPT_W * opts)
    _copy_zone(ro, st, L.TMP, L.MAX_CARDS)  # a Surge's rally bookkeeping
    # The id bitmap must start empty, whatever the game's scratch held.
    for i in range(L.MAX_CARDS):
        ro[L.TMP2 + i] = 0
    for i in range(L.SCRIPT + L.SCRIPT_W * L.MAX_SCRIPT, L.GAME_SIZE):
        ro[i] = st[i]


@kernel
def sample_world(st, tab, p, world, opts):
    """Copy the game into ``st[ROLLOUT:]`` with the hidden cards dealt again from ``world``
    (``copy_game``: the decision's first ``opts`` option rows come along).

    Both seats of the copy play with seat ``p``'s weights; no scripted choice carries over.
    """
    ro = st[L.ROLLOUT : L.ROLLOUT + L.GAME_SIZE]
    copy_game(ro, st, opts)
    ro[L.RNG + L.RNG_SETUP] = world
    if ro[L.DRAFTING]:
        _redeal_draft(ro, tab, p)  # no hand, pile or tile is dealt yet
    else:
        _redeal_cards(ro, tab, p)
        _redeal_tiles(ro, tab)
    # The rest of the rollout draws from streams seeded by the world too, so every
    # option of a decision meets the same shuffles and the same opponent replies.
    for k in range(L.N_STREAMS):
        ro[L.RNG + k] = np.int64(next_u64(ro, L.RNG_SETUP))
    ro[L.BOT] = BOT_GREEDY
    ro[L.BOT + 1] = BOT_GREEDY
    ro[L.PROW] = st[L.PROW + p]
    ro[L.PROW + 1] = st[L.PROW + p]
    ro[L.SCRIPT_N] = 0
    ro[L.SCRIPT_POS] = 0
    ro[L.TRACE_CAP] = 0  # a rollout's imagined events are not the game's


@kernel
def rollout_value(ro, tab, p):
    """How good the rollout's position is for seat ``p``: VP margin, plus a win or material."""
    out = ro[L.LA_SCRATCH : L.LA_SCRATCH + L.O_COLS]
    score_into(ro, tab, out)
    q = 1 - p
    v = float(out[L.O_SCORE + p] - out[L.O_SCORE + q])
    if ro[L.GAME_OVER]:
        w = winner_of(tab, out)
        if w == p:
            v += WIN_VALUE
        elif w == q:
            v -= WIN_VALUE
        return v
    v += COIN_VALUE * (ro[L.COINS + p] - ro[L.COINS + q])
    v += CARD_VALUE * (ro[L.HAND_N + p] - ro[L.HAND_N + q])
    for c in range(L.N_CITIES):
        if ro[L.STACK_N + c] > 0:
            for i in range(B.n_units(ro, c, p)):
                v += PRESENCE_VALUE * B.slot_strength(ro, tab, c, p, i)
            for i in range(B.n_units(ro, c, q)):
                v -= PRESENCE_VALUE * B.slot_strength(ro, tab, c, q, i)
    return v


@kernel
def continue_from(ro, tab, fp, p, dec, k, actions, total):
    """In the rollout state: take option ``k`` of decision ``dec`` and finish the turn.

    Each decision continues with the kernel's own rest of its step (``sim.kernel.surge``,
    ``wealth``, ``war``, ``offering``), then the turn's steps from the next one on
    (``sim.kernel.turn.play_steps``), so a rollout plays the turn exactly as the game would.
    A draft pick continues with the rest of the draft (``sim.kernel.draft.draft_rest``)
    and of the set-up (``sim.kernel.game.setup_rest``); no turn has begun.
    """
    ask = heuristic_ask()
    if dec == D.D_SURGE:
        if surge_apply(ro, tab, fp, ask, p, k):
            surge_end(ro, tab, fp, ask, p)
        else:
            surge_rest(ro, tab, fp, ask, actions + 1)
        nxt = S_SURGE + 1
    elif dec == D.D_WEALTH:
        take_split(ro, tab, fp, ask, p, opt(ro, k, 0), total)
        nxt = S_SURGE
    elif dec == D.D_WAR_ORDER:
        war_rest(ro, tab, fp, ask, k)
        nxt = S_WAR + 1
    elif dec == D.D_KEEP:
        keep_rest(ro, tab, fp, ask, p, k)
        nxt = S_WAR  # the War step goes on with any other war-torn city
    elif dec == D.D_DRAFT:
        # The draft and the set-up end as the game's; the first turn is the next one.
        draft_rest(ro, tab, fp, ask, k)
        setup_rest(ro, tab, fp, ask)
        return
    else:  # D_OFFER
        offering_rest(ro, tab, fp, ask, p, k)
        nxt = N_STEPS
    play_steps(ro, tab, fp, ask, nxt)


@kernel
def play_out(st, tab, fp, p, dec, k, actions, total, horizon):
    """In the rollout state: option ``k`` of ``dec``, the rest of the turn, ``horizon`` more;
    the end scored by ``rollout_value``, or by the learned value (``strategies.value``) if
    seat ``p``'s profile says so."""
    ro = st[L.ROLLOUT : L.ROLLOUT + L.GAME_SIZE]
    continue_from(ro, tab, fp, p, dec, k, actions, total)
    ask = heuristic_ask()
    for _ in range(horizon):
        if ro[L.GAME_OVER]:
            break
        play_turn(ro, tab, fp, ask)
    if fp[ro[L.PROW + p], P_LEAF_VALUE] > 0:
        return leaf_value(ro, tab, fp, p)
    return rollout_value(ro, tab, p)


@kernel
def candidates(st, tab, fp, p, dec, n, width):
    """The ``width`` options the heuristic values most, into LA_SCRATCH; returns how many."""
    r = st[L.PROW + p]
    urg, cw, need = decision_figures(st, tab, fp, p, dec, r)
    for i in range(n):
        st[L.TMP2 + i] = 0  # 1 once chosen
    m = min(width, n, L.LA_MAX_WIDTH)
    for j in range(m):
        best = -1e300
        pick = -1
        for i in range(n):
            if st[L.TMP2 + i] == 0:
                v = score_option(st, tab, fp, p, dec, i, r, urg, cw, need)
                if v > best:
                    best = v
                    pick = i
        st[L.TMP2 + pick] = 1
        st[L.LA_SCRATCH + j] = pick
    return m


@kernel
def clear_tallies(st, m):
    """Zero the summed values of the ``m`` options at ``st[LA_SCRATCH:]`` and mark each as
    still in the running (``tally`` plays only those)."""
    for j in range(m):
        st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j] = 0  # summed value, in thousandths
        st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + j] = 0  # 1 once dropped


@kernel
def tally(st, tab, fp, p, dec, m, actions, total, horizon, worlds):
    """Play each of the ``m`` listed options still in the running in ``worlds`` new sampled
    worlds, adding each outcome to the option's summed value.

    Every option is tried in the same worlds (common random numbers), so their
    comparison is not blurred by the luck of the deal. The worlds come from seat
    ``p``'s own stream, which the hidden cards never touch.
    """
    opts = 0  # option rows a play-out reads: up to the last listed
    for j in range(m):
        opts = max(opts, st[L.LA_SCRATCH + j] + 1)
    for _ in range(worlds):
        world = np.int64(next_u64(st, L.RNG_SEAT + p))
        for j in range(m):
            if st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + j] == 0:
                sample_world(st, tab, p, world, opts)
                k = st[L.LA_SCRATCH + j]
                v = play_out(st, tab, fp, p, dec, k, actions, total, horizon)
                st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j] += np.int64(v * 1000.0)


@kernel
def best_tallied(st, m):
    """Of the ``m`` listed options still in the running, the position of the best summed
    value (the first listed on a tie: the heuristic's order breaks it)."""
    best = -1
    for j in range(m):
        out = st[L.LA_SCRATCH + 2 * L.LA_MAX_WIDTH + j]
        v = st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j]
        if out == 0 and (best < 0 or v > st[L.LA_SCRATCH + L.LA_MAX_WIDTH + best]):
            best = j
    return best


@kernel
def trace_tallies(st, p, dec, n, m, worlds, pick):
    """When tracing, the ``m`` listed options of decision ``dec`` (``n`` legal) with the mean
    value of their rollouts over ``worlds`` worlds each, and the one taken, ``pick``."""
    if not T.tracing(st):
        return
    for j in range(m):
        mean = st[L.LA_SCRATCH + L.LA_MAX_WIDTH + j] / (1000.0 * worlds)
        T.option(st, p, dec, st[L.LA_SCRATCH + j], mean)
    T.event(st, E.EV_CHOICE, p, n, pick, dec, E.VALUED_BY_ROLLOUTS)


@kernel
def best_by_rollouts(st, tab, fp, p, dec, n, m, actions, total):
    """Of the ``m`` options listed in ``st[LA_SCRATCH:]`` (of ``n`` legal), the one whose
    rollouts do best, each played in the profile's ``rollouts`` sampled worlds (the same
    for every option)."""
    if m == 1:
        return st[L.LA_SCRATCH]
    r = st[L.PROW + p]
    rollouts = max(int(fp[r, P_LA_ROLLOUTS]), 1)
    horizon = int(fp[r, P_LA_HORIZON])
    if dec == D.D_DRAFT:
        horizon = DRAFT_HORIZON
    clear_tallies(st, m)
    tally(st, tab, fp, p, dec, m, actions, total, horizon, rollouts)
    pick = st[L.LA_SCRATCH + best_tallied(st, m)]
    trace_tallies(st, p, dec, n, m, rollouts, pick)
    return pick


@kernel
def best_surge_option(st, tab, fp, p, n):
    """The Surge option (index into ``st[OPTS]``, ``n`` of them) seat ``p`` plays, by rollouts.

    Asked from inside ``surge_rest``, which keeps the count of this Surge's
    actions in ``st[SURGE_ACTIONS]`` so a rollout finishes the Surge under the same bound.
    Using a reward tile is one of the Surge's options (``ACT_REWARD``), so it is planned here.
    """
    m = candidates(st, tab, fp, p, D.D_SURGE, n, int(fp[st[L.PROW + p], P_LA_WIDTH]))
    return best_by_rollouts(st, tab, fp, p, D.D_SURGE, n, m, st[L.SURGE_ACTIONS], 0)


@kernel
def best_wealth_split(st, tab, fp, p, n):
    """The Wealth option (index into ``st[OPTS]``, ``n`` of them) seat ``p`` takes, by rollouts.

    Option ``k`` spends ``k`` of the step's actions on cards (``sim.kernel.decisions``);
    every split is tried (up to LA_MAX_WIDTH), whatever the ``width``.
    """
    m = min(n, L.LA_MAX_WIDTH)
    for j in range(m):
        st[L.LA_SCRATCH + j] = j
    return best_by_rollouts(st, tab, fp, p, D.D_WEALTH, n, m, 0, opt(st, 0, 1))


@kernel
def best_option(st, tab, fp, p, dec, n):
    """The option of ``dec`` (D_OFFER, D_WAR_ORDER, D_KEEP or D_DRAFT) seat ``p`` takes, by
    rollouts: the ``width`` options its heuristic values most, each played out."""
    m = candidates(st, tab, fp, p, dec, n, int(fp[st[L.PROW + p], P_LA_WIDTH]))
    return best_by_rollouts(st, tab, fp, p, dec, n, m, 0, 0)
