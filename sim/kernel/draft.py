"""Decks built before play: every variant that gives each player their own deck.

Reign's Trial of Skill, simple draft, pile draft and constructed decks, and
the Aegean's two drafting variants. After any of them ``OWN_DECKS`` is set,
so every draw and discard goes to the seat's own pile ("any ability that
references the deck or the discard pile refers to the player's own"), and
cards nobody took wait in the box.
"""

from __future__ import annotations

from sim.data import vocab as V
from sim.kernel import decisions as D
from sim.kernel import layout as L
from sim.kernel.jit import kernel
from sim.kernel.rng import randint, shuffle
from sim.kernel.tab import card_kind, kind_col, n_cards, rule
from sim.kernel.zones import opt, put_opt


@kernel
def box_all(st, tab):
    """Every unit card into the box, shuffled: the shared deck a draft deals from."""
    st[L.OWN_DECKS] = 1
    for c in range(n_cards(tab)):
        st[L.BOX + c] = c
    st[L.BOX_N] = n_cards(tab)
    shuffle(st, L.BOX, st[L.BOX_N], L.RNG_DECK)


@kernel
def _take_from_box(st):
    """The top card of the shuffled box."""
    st[L.BOX_N] -= 1
    return st[L.BOX + st[L.BOX_N]]


@kernel
def _to_own_deck(st, p, card):
    """Put a drafted card face down on seat ``p``'s own pile."""
    st[L.DECK + p * L.MAX_CARDS + st[L.DECK_N + p]] = card
    st[L.DECK_N + p] += 1


@kernel
def _shuffle_own_decks(st):
    """ "Each player shuffles their 30 cards to form their deck." """
    for p in range(2):
        shuffle(st, L.DECK + p * L.MAX_CARDS, st[L.DECK_N + p], L.RNG_DECK)


@kernel
def _pick_from(st, tab, fp, ask, p, off, n_slots):
    """Seat ``p`` keeps one of the cards at ``st[off:off+n_slots]`` (-1 marks a taken one)."""
    n = 0
    for j in range(n_slots):
        card = st[off + j]
        if card >= 0:
            put_opt(st, n, j, card, 0, 0)
            n += 1
    k = ask(st, tab, fp, p, D.D_DRAFT, n)
    st[off + opt(st, k, 0)] = -1
    _to_own_deck(st, p, opt(st, k, 1))


@kernel
def trial_decks(st, tab):
    """Reign, Trial of Skill: "Each player gets a deck of 50 cards, one of each unit kind;
    each player draws from and discards to their own deck and discard pile."

    Seat 0 takes the first copy of every kind and seat 1 the second; other
    copies stay in the box. (The compiler refuses the variant unless every
    kind has two copies.)
    """
    st[L.OWN_DECKS] = 1
    last = -1
    taken = 0
    for c in range(n_cards(tab)):
        k = card_kind(tab, c)
        taken = taken + 1 if k == last else 0
        last = k
        if taken < 2:
            st[L.DECK + taken * L.MAX_CARDS + st[L.DECK_N + taken]] = c
            st[L.DECK_N + taken] += 1
        else:
            st[L.BOX + st[L.BOX_N]] = c
            st[L.BOX_N] += 1
    for d in range(2):
        shuffle(st, L.DECK + d * L.MAX_CARDS, st[L.DECK_N + d], L.RNG_DECK)


DRAFT_PACKET = 10  # cards dealt to each player per round of the simple draft
DRAFT_ROUNDS = 3  # rounds until each player has 30 cards


@kernel
def simple_draft(st, tab, fp, ask):
    """Reign, Simple draft: "deal 10 to each player; each player keeps 1 and passes the rest
    to the left, until the cards are gone; repeat until each player has 30 cards."

    With two players the two packets change hands after every pick. Cards
    never dealt stay in the box; each player then has their own deck and pile.
    """
    box_all(st, tab)
    for _ in range(DRAFT_ROUNDS):
        # Packet q lives at TMP + 16*q; a taken card is marked -1.
        for q in range(2):
            for j in range(DRAFT_PACKET):
                st[L.TMP + 16 * q + j] = _take_from_box(st)
        for pick in range(DRAFT_PACKET):
            for p in range(2):
                _pick_from(st, tab, fp, ask, p, L.TMP + 16 * ((p + pick) % 2), DRAFT_PACKET)
    _shuffle_own_decks(st)


PILES_EACH = 10
PILE_LIMITS_SOLDIER = 6
PILE_LIMITS_BEAST = 4
PILE_LIMITS_ORACLE = 4


@kernel
def pile_draft(st, tab, fp, ask, oldest):
    """Reign, Pile draft: "Split the unit cards into 50 piles, one pile per unit kind ... the
    players alternate until each has taken 10 piles. A player may take at most 6 soldier
    piles, 4 beast piles and 4 oracle piles. Piles not taken go back to the box."

    The younger player (not the oldest) picks first. The coin each pick costs
    is not explained by the rulebook and is not modelled.
    """
    st[L.OWN_DECKS] = 1
    n_kinds = tab[L.TB_N_KINDS]
    # TMP + k: 1 once kind k's pile is taken; TMP2 + 4*p + t: seat p's piles of type slot t.
    for k in range(n_kinds):
        st[L.TMP + k] = 0
    for i in range(8):
        st[L.TMP2 + i] = 0
    p = 1 - oldest
    for _ in range(2 * PILES_EACH):
        n = 0
        first = 0
        for k in range(n_kinds):
            copies = 0
            while first + copies < n_cards(tab) and card_kind(tab, first + copies) == k:
                copies += 1
            t = kind_col(tab, k, L.K_TYPE)
            slot = 3  # units of other sets: no pile limit
            limit = 99
            if t == V.T_SOLDIER:
                slot = 0
                limit = PILE_LIMITS_SOLDIER
            elif t == V.T_BEAST:
                slot = 1
                limit = PILE_LIMITS_BEAST
            elif t == V.T_ORACLE:
                slot = 2
                limit = PILE_LIMITS_ORACLE
            if st[L.TMP + k] == 0 and copies > 0 and st[L.TMP2 + 4 * p + slot] < limit:
                put_opt(st, n, k, first, copies, slot)
                n += 1
            first += copies
        if n == 0:
            break
        if rule(tab, L.RU_CONSTRUCTED):
            # Constructed: the seat's next listed pile (the list was checked when compiled).
            taken = st[L.TMP2 + 4 * p] + st[L.TMP2 + 4 * p + 1]
            taken += st[L.TMP2 + 4 * p + 2] + st[L.TMP2 + 4 * p + 3]
            want = rule(tab, L.RU_DECKLIST + PILES_EACH * p + taken)
            i = 0
            for j in range(n):
                if opt(st, j, 0) == want:
                    i = j
        else:
            i = ask(st, tab, fp, p, D.D_DRAFT, n)
        st[L.TMP + opt(st, i, 0)] = 1
        st[L.TMP2 + 4 * p + opt(st, i, 3)] += 1
        for c in range(opt(st, i, 1), opt(st, i, 1) + opt(st, i, 2)):
            st[L.DECK + p * L.MAX_CARDS + st[L.DECK_N + p]] = c
            st[L.DECK_N + p] += 1
        p = 1 - p
    for c in range(n_cards(tab)):
        if st[L.TMP + card_kind(tab, c)] == 0:
            st[L.BOX + st[L.BOX_N]] = c
            st[L.BOX_N] += 1
    for q in range(2):
        shuffle(st, L.DECK + q * L.MAX_CARDS, st[L.DECK_N + q], L.RNG_DECK)


AEGEAN_DRAFT_DECK = 30  # cards each player drafts in either Aegean variant
DRAFT1_DRAW = 3  # Draft Variant 1: draw 3, keep 2, pass 1
DRAFT2_SPREAD = 20  # Draft Variant 2: 20 cards face up per round


@kernel
def draft_one(st, tab, fp, ask):
    """Aegean, Draft Variant 1: "Each player draws 3 cards from a shared deck containing all
    the Unit cards, chooses 2, places them facedown, and then passes the remaining card to
    their opponent. This continues until each player has 30 facedown cards."

    Each round gives each player 3 cards (2 kept, 1 passed to them), so 10
    rounds use 60 cards; the rest go back to the box. The two keeps are two
    picks from the player's own 3 cards, which only that player sees.
    """
    box_all(st, tab)
    for _ in range(AEGEAN_DRAFT_DECK // DRAFT1_DRAW):
        # Seat p's three cards live at TMP + 4*p.
        for p in range(2):
            for j in range(DRAFT1_DRAW):
                st[L.TMP + 4 * p + j] = _take_from_box(st)
        for p in range(2):
            for _keep in range(DRAFT1_DRAW - 1):
                _pick_from(st, tab, fp, ask, p, L.TMP + 4 * p, DRAFT1_DRAW)
        for p in range(2):
            for j in range(DRAFT1_DRAW):
                if st[L.TMP + 4 * p + j] >= 0:
                    _to_own_deck(st, 1 - p, st[L.TMP + 4 * p + j])
    _shuffle_own_decks(st)


@kernel
def draft_two(st, tab, fp, ask):
    """Aegean, Draft Variant 2: "20 random cards are placed faceup in the middle of the play
    area. Randomly determine a player to select the first card. Each player selects 1 card
    until all cards have been selected. This is repeated two additional times."

    "This is repeated" is read as the whole procedure, so each of the three
    rounds draws its first picker at random again.
    """
    box_all(st, tab)
    for _ in range(AEGEAN_DRAFT_DECK * 2 // DRAFT2_SPREAD):
        for j in range(DRAFT2_SPREAD):
            st[L.TMP + j] = _take_from_box(st)
        p = randint(st, L.RNG_SETUP, 2)
        for _pick in range(DRAFT2_SPREAD):
            _pick_from(st, tab, fp, ask, p, L.TMP, DRAFT2_SPREAD)
            p = 1 - p
    _shuffle_own_decks(st)
