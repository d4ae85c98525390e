"""The heuristic player: one-step values with a weight vector, styles as profiles.

It values every legal option with a few readable terms (what a coin, a card
and a reward tile are worth; whether a play wins a war this turn) and takes
the best, breaking ties with its own random stream. It reads only what its
seat may see: its own hand, the board, the discard pile and public counts.

The weights (``P_*``, named in ``WEIGHTS``) are a row of the ``fp`` matrix;
``configs/strategies/*.toml`` profiles fill them (``greedy.toml`` is the baseline
that states every weight), so a new style is a new profile, not code. Seat ``p``
reads row ``st[PROW + p]``, which is ``p`` except inside a look-ahead
rollout, where both seats play with the look-ahead seat's own weights.
"""

from __future__ import annotations

from sim.base import events as E
from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import board as B
from sim.kernel import decisions as D
from sim.kernel import trace as T
from sim.kernel.rng import uniform
from sim.kernel.tab import (
    abil_col,
    card_col,
    card_kind,
    feat_col,
    kind_col,
    op_col,
    reward_col,
    rule,
    struct_col,
    tile_kind,
)
from sim.kernel.war import conflict_result
from sim.kernel.zones import hand_card, opt
from strategies.value_features import N_VALUE_PARAMS

P_COIN = 0  # value of one coin
P_CARD = 1  # value of one card in hand
P_TILE = 2  # value of winning a reward tile
P_PRESENCE = 3  # value of one strength placed in a contested city (per point)
P_REWARD_USE = 4  # threshold: use a reward tile when its effect beats this
P_OFFER_MIN = 5  # offer a card only if its offering value reaches this
P_BUILD = 6  # weight of progress towards a structure (per VP it will be worth)
P_CONTEST = 7  # presence multiplier in a city where it is behind or level (vs abandoning it)
P_SAVE = 8  # value of ending the Surge with coins unspent (tempo vs saving)
P_WAR_RISK = 9  # penalty, in reward tiles, for a play that leaves a war lost
P_KEEP_COST = 10  # after a war, weight of kept units' cost beside their strength
P_DESTROY_CONTESTED = 11  # preference for destroying enemies in cities with tiles left
P_DESTROY_COST = 12  # preference for destroying expensive enemies (per coin of cost)
P_COMMIT = 13  # worth of massing units towards a war in a city with tiles (per unit-slot)
P_PATIENCE = 14  # turns played normally before the bot presses for the end of the game
P_FEAT = 15  # worth of progress towards a Reign feat, per feat (a feat scores 2 VP)
N_GREEDY_PARAMS = 16
P_LA_WIDTH = 16  # look-ahead: options tried per Surge decision (the best by these weights)
P_LA_ROLLOUTS = 17  # look-ahead: sampled continuations per option tried
P_LA_HORIZON = 18  # look-ahead: whole turns played after the current one in a rollout
P_LA_WEALTH = 19  # look-ahead: 1 plans the Wealth split by rollouts too (0: the heuristic's)
P_LA_OFFER = 20  # look-ahead: 1 plans the Offering (which card, build, or none) by rollouts
P_LA_WAR_ORDER = 21  # look-ahead: 1 plans the order of the War step's conflicts by rollouts
P_LA_KEEP = 22  # look-ahead: 1 plans which units it keeps after a war by rollouts
P_LA_DRAFT = 23  # look-ahead: 1 plans its draft picks by rollouts played to the end of the game
P_SEARCH_SIMS = 24  # search: sampled continuations per decision, over all its options
P_SEARCH_WIDTH = 25  # search: options searched per decision (the heuristic's best)
P_SEARCH_HORIZON = 26  # search: whole turns a play-out plays after the current one
P_LEAF_VALUE = 27  # search and value bots: 1 scores a play-out's end by the learned value

# Profile names of the weights (configs/strategies/*.toml, [weights] table).
WEIGHTS: dict[str, int] = {
    "coin": P_COIN,
    "card": P_CARD,
    "tile": P_TILE,
    "presence": P_PRESENCE,
    "reward_use": P_REWARD_USE,
    "offer_min": P_OFFER_MIN,
    "build": P_BUILD,
    "contest": P_CONTEST,
    "save": P_SAVE,
    "war_risk": P_WAR_RISK,
    "keep_cost": P_KEEP_COST,
    "destroy_contested": P_DESTROY_CONTESTED,
    "destroy_cost": P_DESTROY_COST,
    "commit": P_COMMIT,
    "patience": P_PATIENCE,
    "feat": P_FEAT,
}
LOOKAHEAD_KNOBS: dict[str, int] = {
    "width": P_LA_WIDTH,
    "rollouts": P_LA_ROLLOUTS,
    "horizon": P_LA_HORIZON,
    "wealth": P_LA_WEALTH,
    "offer": P_LA_OFFER,
    "war_order": P_LA_WAR_ORDER,
    "keep": P_LA_KEEP,
    "draft": P_LA_DRAFT,
}
SEARCH_KNOBS: dict[str, int] = {
    "simulations": P_SEARCH_SIMS,
    "width": P_SEARCH_WIDTH,
    "horizon": P_SEARCH_HORIZON,
    "value": P_LEAF_VALUE,
}

# Values that depend only on a card kind and the weights are worked out once per
# run by ``prepare`` and kept in each seat's parameter row, after the weights.
N_WEIGHTS = 28
FP_PLAY = N_WEIGHTS  # + kind: what its abilities add when played
FP_KEEP = FP_PLAY + 32 * L.MASK_WORDS  # + kind: how much it is worth keeping in hand
FP_REWARD = FP_KEEP + 32 * L.MASK_WORDS  # + reward kind: its ability's worth
# The learned value's weights (strategies.value_features lays them out), the same in
# every row: a bot that scores positions by the value reads them from its own row.
FP_VALUE = FP_REWARD + 64
FP_WIDTH = FP_VALUE + N_VALUE_PARAMS


@kernel
def op_value(tab, o, fp, p):
    """Rough worth to seat ``p`` of one effect operation (static ops: per turn)."""
    code = op_col(tab, o, L.OP_CODE)
    n = op_col(tab, o, L.OP_N)
    if code == V.OP_GAIN_COINS or code == V.OP_STEAL_COINS:
        return n * fp[p, P_COIN] * (2.0 if code == V.OP_STEAL_COINS else 1.0)
    if code == V.OP_DRAW or code == V.OP_TAKE_DISCARD:
        return n * fp[p, P_CARD]
    if code == V.OP_OPP_DISCARD:
        return n * fp[p, P_CARD] * 0.8
    if code == V.OP_DESTROY or code == V.OP_RETURN_ENEMY:
        return n * 1.5
    if code == V.OP_GAIN_VP:
        return n * 2.0
    if code == V.OP_OPP_LOSE_COINS:
        return n * fp[p, P_COIN] * 0.8
    if code == V.OP_MOVE:
        return 0.3
    if code == V.OP_STRENGTH:
        return n * 0.8
    if code == V.OP_COST:
        return -n * fp[p, P_COIN]
    if code == V.OP_GAIN_COINS_PER_UNIT:
        return n * 1.5 * fp[p, P_COIN]
    if code == V.OP_ENRAGE:
        return n * 1.5
    if code == V.OP_REVEAL_KEEP:
        m = op_col(tab, o, L.OP_M)
        return (m if m > 0 else n) * fp[p, P_CARD]
    if code == V.OP_MANEUVER:
        return 0.3 * n
    if code == V.OP_ENTOMB or code == V.OP_BUILD_FROM_DECK:
        return n * 0.5 * fp[p, P_BUILD]
    if code == V.OP_GAIN_FAVOR:
        return 0.5
    return 0.0


@kernel
def ability_value(tab, a, fp, p):
    """Sum of the op values of ability row ``a``."""
    v = 0.0
    o0 = abil_col(tab, a, L.A_OP_START)
    for o in range(o0, o0 + abil_col(tab, a, L.A_OP_N)):
        v += op_value(tab, o, fp, p)
    return v


@kernel
def kind_play_value(tab, k, fp, p):
    """What a kind's abilities add when it is played (beyond its strength)."""
    v = 0.0
    a0 = kind_col(tab, k, L.K_ABIL_START)
    for a in range(a0, a0 + kind_col(tab, k, L.K_ABIL_N)):
        tr = abil_col(tab, a, L.A_TRIGGER)
        if tr == V.TR_PLAY:
            v += ability_value(tab, a, fp, p)
        elif tr == V.TR_RALLY:
            v += max(ability_value(tab, a, fp, p) - abil_col(tab, a, L.A_COST) * fp[p, P_COIN], 0.0)
        elif tr == V.TR_SURGE_END or tr == V.TR_STATIC:
            v += 1.5 * ability_value(tab, a, fp, p)
        elif tr == V.TR_EXALT:
            v += 1.0
    return v


@kernel
def kind_keep_value(tab, k, fp, p):
    """How much a player wants to keep a card of kind ``k`` in hand."""
    v = (
        kind_col(tab, k, L.K_STRENGTH)
        + 0.5 * kind_col(tab, k, L.K_OFFERING)
        - 0.3 * kind_col(tab, k, L.K_COST)
    )
    if kind_col(tab, k, L.K_KEYWORDS) & V.KW_TREASURED:
        v += 2.0
    return v + 0.5 * kind_play_value(tab, k, fp, p)


@kernel
def prepare(tab, fp):
    """Fill each seat's cached per-kind values (``FP_PLAY``, ``FP_KEEP``, ``FP_REWARD``)."""
    for p in range(2):
        for k in range(tab[L.TB_N_KINDS]):
            fp[p, FP_PLAY + k] = kind_play_value(tab, k, fp, p)
            fp[p, FP_KEEP + k] = kind_keep_value(tab, k, fp, p)
        for rk in range(tab[L.TB_N_REWARD_KINDS]):
            v = 0.0
            r0 = reward_col(tab, rk, L.R_ABIL_START)
            for ab in range(r0, r0 + reward_col(tab, rk, L.R_ABIL_N)):
                v += ability_value(tab, ab, fp, p)
            fp[p, FP_REWARD + rk] = v


@kernel
def keep_value(tab, card, fp, p):
    """How much a player wants to keep ``card`` in hand (cached by ``prepare``)."""
    return fp[p, FP_KEEP + card_kind(tab, card)]


# Per-city figures cached at the start of a Surge decision (st[BOT_SCRATCH:]).
CI_MINE_S = 0
CI_THEIRS_S = 1
CI_MINE_W = 2
CI_THEIRS_W = 3
CI_MINE_COST = 4
CI_THEIRS_COST = 5
CI_MINE_SOLDIERS = 6  # for a tie-break by Soldiers (Reign)
CI_THEIRS_SOLDIERS = 7
CI_BEFORE = 8  # war_outcome of the city as it stands, the same for every play there


@kernel
def cache_cities(st, tab, p):
    """Store each city's strengths, unit-slots, costs and Soldiers for seat ``p`` and its
    opponent.

    Slots, costs and Soldiers are the board's running totals, and so is the
    strength of a side without ongoing effects (this cache is built
    at every Surge decision, and rescanned every side's units before). Each city with
    tiles also keeps its war outcome as it stands (``CI_BEFORE``), which every play
    into it compares with (``play_value``), worked out here once instead of per option.
    """
    feats = rule(tab, L.RU_FEAT_STEP) != 0
    for c in range(L.N_CITIES):
        if st[L.STACK_N + c] == 0 and not feats:
            # Nothing reads them: play_value and war_outcome stop at a city without
            # tiles; only feat_progress (Reign) reads a city's unit-slots.
            continue
        base = L.BOT_SCRATCH + L.BOT_CITY_W * c
        for mine in range(2):
            q = p if mine else 1 - p
            st[base + (CI_MINE_S if mine else CI_THEIRS_S)] = B.side_strength(st, tab, c, q)
            st[base + (CI_MINE_W if mine else CI_THEIRS_W)] = B.side_weight(st, tab, c, q)
            st[base + (CI_MINE_COST if mine else CI_THEIRS_COST)] = B.side_cost(st, tab, c, q)
            st[base + (CI_MINE_SOLDIERS if mine else CI_THEIRS_SOLDIERS)] = B.soldiers(st, c, q)
        st[base + CI_BEFORE] = war_outcome(st, tab, c, 0, 0, 0, 0)


@kernel
def cache_slots(st, tab, p, c):
    """Store the strength and cost of each of seat ``p``'s units in ``c`` (st[BOT_SCRATCH:]),
    for the options of one choice of the units to keep, which all read them: a unit's
    strength rescans its city's units, once per unit here instead of once per option."""
    for s in range(B.n_units(st, c, p)):
        st[L.BOT_SCRATCH + s] = B.slot_strength(st, tab, c, p, s)
        st[L.BOT_SCRATCH + L.N_SLOTS + s] = card_col(tab, B.slot_card(st, c, p, s), L.K_COST)


@kernel
def war_outcome(st, tab, c, extra_strength, extra_weight, extra_cost, extra_soldiers):
    """+1 if the seat to move would win a war in ``c`` (with an extra unit), -1 lose, else 0.

    Reads the figures ``cache_cities`` stored; 0 when ``c`` would not be war-torn.
    Who wins is the kernel's own ``conflict_result`` (with the set's tie-break).
    """
    if st[L.STACK_N + c] == 0:
        return 0
    base = L.BOT_SCRATCH + L.BOT_CITY_W * c
    opp_w = st[base + CI_THEIRS_W]
    tot = opp_w + st[base + CI_MINE_W] + extra_weight
    if opp_w < rule(tab, L.RU_WARTORN_ENEMY) and tot < rule(tab, L.RU_WARTORN_TOTAL):
        return 0
    return conflict_result(
        tab,
        st[base + CI_MINE_S] + extra_strength,
        st[base + CI_THEIRS_S],
        st[base + CI_MINE_SOLDIERS] + extra_soldiers,
        st[base + CI_THEIRS_SOLDIERS],
        st[base + CI_MINE_COST] + extra_cost,
        st[base + CI_THEIRS_COST],
    )


@kernel
def urgency(st, fp, r):
    """0 until the game has lasted ``patience`` turns, rising to 1 twenty turns later.

    A game that drags on is one where both sides hoard: past its patience the
    bot spends more freely and masses units until a city goes to war, as a
    player at a real table would, so no game runs into the turn cap.
    """
    return min(max((st[L.TURN] - fp[r, P_PATIENCE]) / 20.0, 0.0), 1.0)


@kernel
def coin_weight(st, tab, fp, p, r):
    """What one coin spent now costs seat ``p``: less when coins pile up or the game drags.

    Coins at the coin limit cannot grow (the Offering step returns the
    excess), so spending them costs little.
    """
    w = fp[r, P_COIN] * (1.0 - 0.75 * urgency(st, fp, r))
    limit = rule(tab, L.RU_COIN_LIMIT)
    if limit > 0:
        w *= 1.0 - 0.5 * min(st[L.COINS + p], limit) / limit
    return w


@kernel
def type_in_cities(st, tab, p, t, skip):
    """Cities other than ``skip`` where seat ``p`` has a unit of type ``t`` (enraged: Beast)."""
    k = 0
    for c in range(L.N_CITIES):
        if c == skip:
            continue
        for i in range(B.n_units(st, c, p)):
            rage = B.enraged(st, c, p, i)
            kt = V.T_BEAST if rage else card_col(tab, B.slot_card(st, c, p, i), L.K_TYPE)
            if kt == t:
                k += 1
                break
    return k


@kernel
def feat_progress(st, tab, fp, p, card, c, w, r):
    """Worth of the progress a play of ``card`` into ``c`` makes towards seat ``p``'s open feats.

    A Reign feat scores 2 VP and five of them end the game, yet one-step values
    never see them: this credits each step towards a feat whose condition a
    board position meets (a type in every city, units massed in one city),
    more as the feat nears completion, in full when the play completes it.
    Called only when the set has feats and the weight is not 0 (``play_value``).
    """
    v = 0.0
    t = card_col(tab, card, L.K_TYPE)
    for f in range(min(tab[L.TB_N_FEATS], L.MAX_FEATS)):
        if st[L.FEAT_DONE + p * L.MAX_FEATS + f]:
            continue
        cond = feat_col(tab, f, L.FT_COND)
        if cond == V.F_TYPE_EACH_CITY and feat_col(tab, f, L.FT_TYPE) == t:
            if type_in_cities(st, tab, p, t, -1) == type_in_cities(st, tab, p, t, c):
                # ``c`` lacks the type: this play adds a city.
                have = type_in_cities(st, tab, p, t, c) + 1
                v += fp[r, P_FEAT] * (have / L.N_CITIES) ** 2
        elif cond == V.F_UNITS_ONE_CITY_GE:
            need = feat_col(tab, f, L.FT_N)
            mine = st[L.BOT_SCRATCH + L.BOT_CITY_W * c + CI_MINE_W]
            if mine < need:
                after = min(mine + w, need)
                v += fp[r, P_FEAT] * ((after / need) ** 2 - (mine / need) ** 2)
    return v


@kernel
def play_value(st, tab, fp, p, card, c, cost, r, urg, cw):
    """Value of playing ``card`` into city ``c`` now, net of its cost (weights: row ``r``).

    ``urg`` and ``cw`` are ``urgency`` and ``coin_weight``, which depend on the
    decision only (``decision_figures``).
    """
    k = card_kind(tab, card)
    s = kind_col(tab, k, L.K_STRENGTH)
    w = B.weight(tab, card)
    v = fp[r, FP_PLAY + k] - cost * cw
    if rule(tab, L.RU_FEAT_STEP) and fp[r, P_FEAT] != 0.0:
        # Tested here, not in the callee: a call costs ~30 words of arguments per option.
        v += feat_progress(st, tab, fp, p, card, c, w, r)
    if st[L.STACK_N + c] == 0:
        return v - 1.0 - s * 0.2  # a city without tiles is never fought over
    before = st[L.BOT_SCRATCH + L.BOT_CITY_W * c + CI_BEFORE]  # cache_cities worked it out
    soldier = 1 if kind_col(tab, k, L.K_TYPE) == V.T_SOLDIER else 0
    after = war_outcome(st, tab, c, s, w, kind_col(tab, k, L.K_COST), soldier)
    if after != before or after != 0:
        v += (after - before) * fp[r, P_TILE] + (fp[r, P_TILE] * 0.5 if after > 0 else 0.0)
        if after < 0:
            v -= fp[r, P_TILE] * fp[r, P_WAR_RISK]
    else:
        base = L.BOT_SCRATCH + L.BOT_CITY_W * c
        gap = st[base + CI_MINE_S] - st[base + CI_THEIRS_S]
        v += s * fp[r, P_PRESENCE] * (fp[r, P_CONTEST] if gap <= 0 else 1.0 / (1.0 + gap))
        v += 0.1 * st[L.STACK_N + c]
        # Massing units where a war can come: the more crowded the city, the closer its war.
        crowd = st[base + CI_MINE_W] + st[base + CI_THEIRS_W] + w
        push = fp[r, P_COMMIT] * (1.0 + 3.0 * urg)
        v += push * w * crowd / max(rule(tab, L.RU_WARTORN_TOTAL), 1)
    return v


@kernel
def drawable(st, p):
    """Cards seat ``p`` could still draw: its deck and the discard pile reshuffled into it."""
    d = p if st[L.OWN_DECKS] else 0
    return st[L.DECK_N + d] + st[L.DISC_N + d]


@kernel
def hand_need(st, tab, p):
    """Coins seat ``p``'s hand would cost to play in full, beyond the coins it has."""
    need = 0
    for i in range(st[L.HAND_N + p]):
        need += card_col(tab, hand_card(st, p, i), L.K_COST)
    return max(need - st[L.COINS + p], 0)


@kernel
def wealth_value(st, tab, fp, p, k, n, r, need):
    """Value of spending ``k`` of ``n`` wealth actions on cards and the rest on coins.

    ``need`` is ``hand_need``, the same for every option of the decision.
    """
    bonus = rule(tab, L.RU_WEALTH_BONUS)
    # Only what is there can be taken: an empty deck gives no cards, an empty supply no coins.
    cards = min(k + (bonus if k == n else 0), drawable(st, p))
    coins = min(n - k + (bonus if k == 0 else 0), st[L.SUPPLY])
    hn = st[L.HAND_N + p]
    # Coins are worth most up to what the hand could spend this turn.
    coin_v = min(coins, need) * fp[r, P_COIN] * 1.6 + max(coins - need, 0) * fp[r, P_COIN] * 0.5
    card_v = cards * fp[r, P_CARD] * (1.5 if hn <= 2 else 1.0)
    return coin_v + card_v


@kernel
def build_value(st, tab, fp, p, k, s, r):
    """Value of revealing a unit of kind ``k`` to build seat ``p``'s structure ``s``."""
    row = st[L.STRUCT_KIND + p * L.MAX_STRUCTS + s]
    cost = struct_col(tab, row, L.S_BUILD_COST)
    have = st[L.STRUCT_UNDER + p * L.MAX_STRUCTS + s]
    add = min(kind_col(tab, k, L.K_STRENGTH), max(cost - have, 0))
    return add * (struct_col(tab, row, L.S_VP) + 1.0) / cost * fp[r, P_BUILD]


@kernel
def score_option(st, tab, fp, p, dec, i, r, urg, cw, need):
    """The heuristic value of option ``i`` of decision ``dec`` for seat ``p`` (weights: row r).

    ``urg``, ``cw`` and ``need`` are the decision's own figures (``decision_figures``).
    """
    a = opt(st, i, 0)
    b = opt(st, i, 1)
    c = opt(st, i, 2)
    d = opt(st, i, 3)
    if dec == D.D_SURGE:
        if a == D.ACT_PASS:
            return fp[r, P_SAVE] * (st[L.COINS + p] > 0) * (1.0 - urg)
        if a == D.ACT_PLAY:
            card = hand_card(st, p, b)
            return play_value(st, tab, fp, p, card, c, d, r, urg, cw)
        if a == D.ACT_BEAST:
            card = hand_card(st, p, b)
            spent = d * fp[r, P_COIN] + 0.3 * keep_value(tab, card, fp, r)
            return ability_value(tab, c, fp, r) - spent
        return fp[r, FP_REWARD + tile_kind(tab, c)] - fp[r, P_REWARD_USE]
    if dec == D.D_WEALTH:
        return wealth_value(st, tab, fp, p, a, b, r, need)
    if dec == D.D_SPLIT:
        return wealth_value(st, tab, fp, p, a, b, r, need)
    if dec == D.D_RALLY:
        if a < 0:
            return 0.0
        return ability_value(tab, d, fp, r) - c * fp[r, P_COIN]
    if dec == D.D_MAY:
        return 0.5 if a == 1 else 0.0
    if dec == D.D_DESTROY or dec == D.D_RETURN:
        k = card_kind(tab, d)
        return (
            kind_col(tab, k, L.K_STRENGTH)
            + fp[r, P_DESTROY_CONTESTED] * (st[L.STACK_N + a] > 0)
            + fp[r, P_DESTROY_COST] * kind_col(tab, k, L.K_COST)
        )
    if dec == D.D_MOVE:
        if a < 0:
            return 0.0
        return (st[L.STACK_N + c] > 0) * 1.0 - (st[L.STACK_N + a] > 0) * 1.0 - 0.1
    if dec == D.D_TAKE:
        return keep_value(tab, b, fp, r)
    if dec == D.D_DISCARD:
        return -keep_value(tab, b, fp, r)
    if dec == D.D_WAR_ORDER:
        return -a
    if dec == D.D_KEEP:
        # Each slot's strength and cost, as cache_slots stored them for this decision.
        v = 0.0
        for s in range(B.n_units(st, b, p)):
            if a & (1 << s):
                v += st[L.BOT_SCRATCH + s]
                v += fp[r, P_KEEP_COST] * st[L.BOT_SCRATCH + L.N_SLOTS + s]
        return v + 0.01 * c
    if dec == D.D_OFFER:
        if a < 0:
            return 0.0
        k = card_kind(tab, b)
        if c == 1:
            return build_value(st, tab, fp, p, k, d, r) - 0.25 * keep_value(tab, b, fp, r)
        off = kind_col(tab, k, L.K_OFFERING)
        if off < fp[r, P_OFFER_MIN]:
            return -1.0
        return off * 0.8 - 0.25 * keep_value(tab, b, fp, r)
    if dec == D.D_REVEAL:
        if a < 0:
            return 0.0
        return 0.5 * fp[r, P_CARD] - 0.3 * keep_value(tab, b, fp, r)
    if dec == D.D_REINFORCE:
        if a < 0:
            return 0.0
        return ability_value(tab, c, fp, r)
    if dec == D.D_ENRAGE:
        # Enraging turns a unit into a strength-4 Beast: worth the strength it gains.
        return rule(tab, L.RU_ENRAGED_STRENGTH) - kind_col(tab, card_kind(tab, c), L.K_STRENGTH)
    if dec == D.D_DRAFT:
        return keep_value(tab, b, fp, r) * max(c, 1)  # a pile is worth its copies
    if dec == D.D_KEEP_REVEALED:
        if a < 0:
            return 0.0
        return keep_value(tab, b, fp, r)
    if dec == D.D_EMISSARY:
        k = card_kind(tab, b)
        return (
            kind_col(tab, k, L.K_COST)
            + kind_col(tab, k, L.K_OFFERING)
            + kind_col(tab, k, L.K_STRENGTH)
        )
    return 0.0


@kernel
def decision_figures(st, tab, fp, p, dec, r):
    """What every option of decision ``dec`` shares, worked out once: the
    cities' figures (``cache_cities``) for a Surge decision, the units' (``cache_slots``)
    for a choice of the units to keep after a war, and (urgency, coin weight, the hand's
    coin need) for ``score_option``.

    Urgency and coin weight are read by Surge options only, the coin need by the Wealth
    split's: each is 0 at the other decisions, whose options never read it (a division
    or two saved at every other decision).
    """
    urg = 0.0
    cw = 0.0
    need = 0
    if dec == D.D_SURGE:
        urg = urgency(st, fp, r)
        cw = coin_weight(st, tab, fp, p, r)
        cache_cities(st, tab, p)
    elif dec == D.D_KEEP:
        cache_slots(st, tab, p, opt(st, 0, 1))
    elif dec == D.D_WEALTH or dec == D.D_SPLIT:
        need = hand_need(st, tab, p)
    return urg, cw, need


@kernel
def choose_greedy(st, tab, fp, p, dec, n):
    """Index of the best-valued option; ties go to a random one of the best."""
    r = st[L.PROW + p]
    urg, cw, need = decision_figures(st, tab, fp, p, dec, r)
    best = -1e300
    pick = 0
    ties = 0
    for i in range(n):
        v = score_option(st, tab, fp, p, dec, i, r, urg, cw, need)
        T.option(st, p, dec, i, v)
        if v > best + 1e-9:
            best = v
            pick = i
            ties = 1
        elif v > best - 1e-9:
            # Reservoir sampling over equal-best options: one random draw per tie.
            ties += 1
            if uniform(st, L.RNG_SEAT + p) * ties < 1.0:
                pick = i
    T.event(st, E.EV_CHOICE, p, n, pick, dec, E.VALUED_BY_SCORER)
    return pick
