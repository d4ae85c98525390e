"""Set-up, the game loop and the end of the game."""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import decisions as D
from sim.kernel import trace as T
from sim.kernel import zones as Z
from sim.kernel.draft import build_decks, shared_deck
from sim.kernel.rng import randint, seed_streams, shuffle
from sim.kernel.scoring import score_into, winner_of
from sim.kernel.tab import card_col, card_kind, kind_col, n_tiles, rule, struct_col
from sim.kernel.turn import play_turn
from sim.kernel.zones import opt, put_opt


@kernel
def default_first(tab, st, game):
    """The "oldest player" of the rulebooks: who starts unless a variant decides."""
    mode = rule(tab, L.RU_FIRST_MODE)
    if mode == L.FIRST_P0:
        return 0
    if mode == L.FIRST_P1:
        return 1
    if mode == L.FIRST_ALTERNATE:
        return game % 2
    return randint(st, L.RNG_SETUP, 2)


@kernel
def emissary_value(tab, card):
    """Cost + Offering + Strength of an Emissary."""
    k = card_kind(tab, card)
    return (
        kind_col(tab, k, L.K_COST) + kind_col(tab, k, L.K_OFFERING) + kind_col(tab, k, L.K_STRENGTH)
    )


@kernel
def _pick_emissary(st, tab, fp, ask, p):
    """Seat ``p`` chooses its Emissary face down; returns the hand index or -1."""
    hn = st[L.HAND_N + p]
    if hn == 0:
        return -1
    for i in range(hn):
        put_opt(st, i, i, Z.hand_card(st, p, i), 0, 0)
    return opt(st, ask(st, tab, fp, p, D.D_EMISSARY, hn), 0)


@kernel
def emissary(st, tab, fp, ask, oldest):
    """Emissary of War variant: the greater Emissary goes first and is discarded.

    Ties go to the higher strength (Aegean, Dunes; not Reign), then the oldest
    player. The second player's Emissary simply stays in hand.
    """
    pick0 = _pick_emissary(st, tab, fp, ask, 0)
    pick1 = _pick_emissary(st, tab, fp, ask, 1)
    if pick0 < 0 or pick1 < 0:
        return oldest
    c0 = Z.hand_card(st, 0, pick0)
    c1 = Z.hand_card(st, 1, pick1)
    v0 = emissary_value(tab, c0)
    v1 = emissary_value(tab, c1)
    if v0 == v1 and rule(tab, L.RU_EMISSARY_STRENGTH_TB):
        v0 = card_col(tab, c0, L.K_STRENGTH)
        v1 = card_col(tab, c1, L.K_STRENGTH)
    first = oldest if v0 == v1 else (0 if v0 > v1 else 1)
    T.event(st, E.EV_DISCARD, first, 1, c0 if first == 0 else c1, 0, 0)  # the Emissary
    Z.discard_card(st, first, Z.hand_take(st, first, pick0 if first == 0 else pick1))
    return first


@kernel
def reset(st):
    """Clear every counter of the state, keeping the seats' bots and parameter rows and any
    scripted choices.

    Zones need no clearing: their counts say what is valid.
    """
    b0 = st[L.BOT]
    b1 = st[L.BOT + 1]
    r0 = st[L.PROW]
    r1 = st[L.PROW + 1]
    sp = st[L.SCRIPT_POS]
    sn = st[L.SCRIPT_N]
    st[: L.HEADER] = 0
    st[L.BOT] = b0
    st[L.BOT + 1] = b1
    st[L.PROW] = r0
    st[L.PROW + 1] = r1
    st[L.SCRIPT_POS] = sp
    st[L.SCRIPT_N] = sn
    for i in range(L.N_SLOTS * 2 * L.N_CITIES):
        st[L.SLOT + i] = L.NO_CARD
    for i in range(2 * L.MAX_STRUCTS):
        st[L.STRUCT_KIND + i] = -1


@kernel
def deal_gods(st, tab, deal):
    """Dunes, Set Up 8: each seat takes a god (the rulebook leaves the choice to the players).

    By default seat 0 serves Anubis in deals 0, 1, 4, 5, ... and Horus in deals 2, 3, 6,
    7, ..., so that with the first player alternating deal by deal each of the four
    (first seat, seat 0's god) pairings is one deal in four: seat, god and turn order are
    not confounded. ``--gods`` fixes them instead (``RU_GOD_SEATS``).
    """
    mode = rule(tab, L.RU_GOD_SEATS)
    p0_anubis = (deal // 2) % 2 == 0
    if mode == L.GODS_P0_ANUBIS:
        p0_anubis = True
    elif mode == L.GODS_P0_HORUS:
        p0_anubis = False
    st[L.GOD] = V.DEV_ANUBIS if p0_anubis else V.DEV_HORUS
    st[L.GOD + 1] = V.DEV_HORUS if p0_anubis else V.DEV_ANUBIS


@kernel
def deal_structures(st, tab, deal):
    """Dunes, Set Up 8-9: each seat takes its god (:func:`deal_gods`) and that god's
    structures, BUILD side up; the gods are columns of the output."""
    deal_gods(st, tab, deal)
    for p in range(2):
        s = 0
        for row in range(tab[L.TB_N_STRUCTS]):
            if s < rule(tab, L.RU_STRUCTS) and struct_col(tab, row, L.S_GOD) == st[L.GOD + p]:
                st[L.STRUCT_KIND + p * L.MAX_STRUCTS + s] = row
                s += 1


@kernel
def begin_with(st, tab, first):
    """Seat ``first`` takes the first turn (the end of every set-up, Emissary or not).

    Dunes, Set Up: "Flip the Favor card to the side matching the god of the second
    player." Without gods both seats' god is 0, and so is the Favor. Reading
    ``emissary_favor``: the second player is the one the Emissary left second;
    with RU_FAVOR_BY_AGE it is the seat that is not the oldest, whoever starts.
    """
    st[L.FIRST] = first
    st[L.ACTIVE] = first
    second = 1 - st[L.OLDEST] if rule(tab, L.RU_FAVOR_BY_AGE) else 1 - first
    # favor_start and second_player_coins: a designer's changes to the first-player edge.
    st[L.FAVOR] = st[L.GOD + (1 - second if rule(tab, L.RU_FAVOR_START_FIRST) else second)]
    if rule(tab, L.RU_SECOND_COINS):
        Z.gain_coins(st, 1 - first, rule(tab, L.RU_SECOND_COINS))


@kernel
def setup(st, tab, fp, ask, seed, game):
    """Standard set-up (every rulebook's "Setup"), leaving the first player active."""
    setup_start(st, tab, seed, game)
    build_decks(st, tab, fp, ask)
    setup_rest(st, tab, fp, ask)


@kernel
def setup_shared_deck(st, tab, fp, ask, seed, game):
    """``setup`` of a game no variant builds the decks of (``draft.builds_decks`` is 0): the
    same set-up, with the shared deck ``build_decks`` would deal, and none of the draft and
    Trial of Skill code, so a run without them never compiles that code."""
    setup_start(st, tab, seed, game)
    shared_deck(st, tab)
    setup_rest(st, tab, fp, ask)


@kernel
def setup_start(st, tab, seed, game):
    """Set-up before any deck is built: the game's streams, the oldest player, the supply
    and the Dunes structures."""
    reset(st)
    # --duplicate: games 2k and 2k+1 are one deal (same streams, so same shuffles and
    # the same draws for each seat's bot) with the other seat going first.
    deal = game
    swap = 0
    if rule(tab, L.RU_DUPLICATE):
        deal = game // 2
        swap = game % 2
    seed_streams(st, seed, deal)
    oldest = default_first(tab, st, deal)
    if swap:
        oldest = 1 - oldest
    st[L.OLDEST] = oldest
    st[L.SUPPLY] = rule(tab, L.RU_COIN_SUPPLY)
    st[L.VP_SUPPLY] = rule(tab, L.RU_VP_TOKENS)
    if rule(tab, L.RU_GODS):
        deal_structures(st, tab, deal)


@kernel
def start_coins(st, tab, p):
    """The coins seat ``p`` takes at set-up: ``start_coins``, or after a pile draft with
    ``pile_draft_coins`` = N (reading ``reign_drafts``) the N coins "each player takes" less
    the 1 put in the middle per pile taken, never below 0."""
    n = rule(tab, L.RU_PILE_DRAFT_COINS)
    if n == 0 or not rule(tab, L.RU_PILE_DRAFT):
        return rule(tab, L.RU_START_COINS)
    for t in range(L.PILE_TYPES):
        n -= st[L.PILES + L.PILE_TYPES * p + t]
    return max(n, 0)


@kernel
def setup_rest(st, tab, fp, ask):
    """Set-up once the decks are built: reward tiles, hands, coins, the Emissary (if the
    variant is on) and the first player. A look-ahead rollout that finished a draft with
    ``sim.kernel.draft.draft_rest`` goes on from here, as the game does."""
    tiles = n_tiles(tab)
    for t in range(tiles):
        st[L.TMP + t] = t
    shuffle(st, L.TMP, tiles, L.RNG_REWARDS)
    # Deal one city at a time, round and round, so that a pool short of the
    # set-up's count (a designer's set file with fewer tiles) leaves stacks as
    # even as possible; unused tiles stay in the box.
    per_city = min(rule(tab, L.RU_TILES_PER_CITY), L.MAX_STACK)
    for t in range(min(tiles, per_city * L.N_CITIES)):
        c = t % L.N_CITIES
        st[L.STACK + c * L.MAX_STACK + st[L.STACK_N + c]] = st[L.TMP + t]
        st[L.STACK_N + c] += 1
    # Hands are dealt seat by seat whoever starts, so a seat-swapped duplicate deal
    # gives each seat the same cards.
    for p in range(2):
        Z.draw(st, tab, p, rule(tab, L.RU_START_CARDS))
        Z.gain_coins(st, p, start_coins(st, tab, p))
    first = st[L.OLDEST]
    if rule(tab, L.RU_EMISSARY):
        first = emissary(st, tab, fp, ask, first)
    begin_with(st, tab, first)


@kernel
def finish(st, tab, out):
    """Score a finished game into an output row."""
    score_into(st, tab, out)
    out[L.O_WINNER] = winner_of(tab, out)
    st[L.WINNER] = out[L.O_WINNER]
    out[L.O_FIRST] = st[L.FIRST]
    out[L.O_TURNS] = st[L.TURN]
    out[L.O_END_REASON] = st[L.END_REASON]
    out[L.O_PLAYED_N] = st[L.PLAYED_N]
    out[L.O_PLAYED_N + 1] = st[L.PLAYED_N + 1]
    out[L.O_ERROR] = st[L.ERROR]


@kernel
def finish_game(st, tab, out, mask):
    """Score a finished game into ``out``; copy played-kind, then held-card bits to ``mask``."""
    finish(st, tab, out)
    for w in range(4 * L.MASK_WORDS):
        mask[w] = st[L.PLAYED + w]


@kernel
def play_game(st, tab, fp, ask, seed, game, out, mask):
    """Play game ``game`` of run ``seed`` to its end; fill ``out`` and ``mask``.

    Every choice is ``ask``'s (the run layer's bot dispatcher). ``mask`` holds the
    played-kind bits of both seats, then their held-card bits.
    """
    setup(st, tab, fp, ask, seed, game)
    play_on(st, tab, fp, ask, out, mask)


@kernel
def play_game_shared_deck(st, tab, fp, ask, seed, game, out, mask):
    """``play_game`` of a game no variant builds the decks of (``setup_shared_deck``)."""
    setup_shared_deck(st, tab, fp, ask, seed, game)
    play_on(st, tab, fp, ask, out, mask)


@kernel
def play_on(st, tab, fp, ask, out, mask):
    """Play a game that is set up to its end; fill ``out`` and ``mask`` (``play_game``)."""
    while st[L.GAME_OVER] == 0:
        play_turn(st, tab, fp, ask)
    finish_game(st, tab, out, mask)
