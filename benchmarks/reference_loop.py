"""Reference loop: a stripped-down game of Omen's shape in plain numba, used as a speed yardstick.

It is not the game: no abilities, one trivial bot, simplified offering. It has the same skeleton
(shared deck and discard, hands, coins and supply, three cities with 5-slot sides, COLOSSAL units,
war with winner/loser keeps, offering, hand and coin limits) so its games/s move with the host the
same way the real kernel's do. Compare the kernel to it as a ratio measured in the same process:

    import reference_loop
    games_per_s, mean_turns = reference_loop.measure(threads=2)

Run it alone with `python reference_loop.py`.

A copy of the shared yardstick (`shared/bench/reference_loop.py`), reformatted for the
project's linter only: the loop itself is unchanged, so ratios stay comparable.
"""

import time

import numba as nb
import numpy as np
from numba import njit, prange

NCARD = 22
COST = np.array([1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5, 1, 2, 3, 4, 2, 3, 1, 2, 3, 4, 5], np.int64)
OFFER = np.array([1, 2, 1, 2, 3, 1, 2, 3, 2, 3, 3, 2, 2, 2, 1, 1, 1, 3, 2, 2, 3, 2], np.int64)
STR = np.array([1, 1, 2, 2, 1, 3, 3, 2, 4, 3, 5, 0, 2, 3, 4, 2, 3, 1, 2, 3, 5, 6], np.int64)
COLO = np.array([0] * 18 + [1, 1, 1, 1], np.int64)


@njit(inline="always", cache=True)
def rnd(s):
    # splitmix64 step; s is a 1-element uint64 array
    s[0] += np.uint64(0x9E3779B97F4A7C15)
    z = s[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def shuffle(a, n, s):
    for i in range(n - 1, 0, -1):
        j = int(rnd(s) % np.uint64(i + 1))
        a[i], a[j] = a[j], a[i]


@njit(cache=True)
def draw(deck, dn, disc, qn, s):
    # deck as stack: top at dn-1. returns card or -1
    if dn[0] == 0:
        if qn[0] == 0:
            return -1
        for i in range(qn[0]):
            deck[i] = disc[i]
        dn[0] = qn[0]
        qn[0] = 0
        shuffle(deck, dn[0], s)
    dn[0] -= 1
    return deck[dn[0]]


@njit(cache=True)
def play_game(seed, cost, offer, strg, colo, st):
    s = np.empty(1, np.uint64)
    s[0] = np.uint64(seed)
    deck = st[0]
    disc = st[1]
    hand = np.zeros((2, 32), np.int64)
    hn = np.zeros(2, np.int64)
    city = np.zeros((3, 2, 5), np.int64)
    cn = np.zeros((3, 2), np.int64)
    cu = np.zeros((3, 2), np.int64)
    tiles = np.full(3, 2, np.int64)
    coins = np.full(2, 4, np.int64)
    supply = 12
    vp = np.zeros(2, np.int64)
    dn = np.zeros(1, np.int64)
    qn = np.zeros(1, np.int64)
    for i in range(NCARD):
        deck[i] = i
    dn[0] = NCARD
    shuffle(deck, NCARD, s)
    for p in range(2):
        for _k in range(4):
            c = draw(deck, dn, disc, qn, s)
            hand[p, hn[p]] = c
            hn[p] += 1
    turn = 0
    while turn < 200:
        p = turn & 1
        o = 1 - p
        # wealth: greedy: cards if hand small else coins
        acts = 2 if turn == 0 else 3
        if hn[p] < 3:
            for _k in range(acts + 1):
                c = draw(deck, dn, disc, qn, s)
                if c >= 0:
                    hand[p, hn[p]] = c
                    hn[p] += 1
        else:
            g = min(acts + 1, supply)
            coins[p] += g
            supply -= g
        # surge: play best strength/cost card affordable into the city with best margin
        while True:
            best = -1
            bc = -1
            bscore = -1e9
            for h in range(hn[p]):
                c = hand[p, h]
                if cost[c] > coins[p]:
                    continue
                for ci in range(3):
                    w = 1 + colo[c]
                    if cu[ci, p] + w > 5:
                        continue
                    sc = (
                        strg[c] * 1.0
                        - 0.5 * cost[c]
                        + (2.0 if tiles[ci] > 0 else -5.0)
                        + 0.1 * (rnd(s) % np.uint64(10))
                    )
                    if sc > bscore:
                        bscore = sc
                        best = h
                        bc = ci
            if best < 0 or bscore < 0:
                break
            c = hand[p, best]
            hand[p, best] = hand[p, hn[p] - 1]
            hn[p] -= 1
            coins[p] -= cost[c]
            supply += cost[c]
            city[bc, p, cn[bc, p]] = c
            cn[bc, p] += 1
            cu[bc, p] += 1 + colo[c]
        # war
        for ci in range(3):
            if tiles[ci] == 0:
                continue
            if not (cu[ci, o] >= 3 or cu[ci, 0] + cu[ci, 1] >= 5):
                continue
            s0 = 0
            s1 = 0
            k0 = 0
            k1 = 0
            for k in range(cn[ci, 0]):
                s0 += strg[city[ci, 0, k]]
                k0 += cost[city[ci, 0, k]]
            for k in range(cn[ci, 1]):
                s1 += strg[city[ci, 1, k]]
                k1 += cost[city[ci, 1, k]]
            win = -1
            if s0 > s1 or (s0 == s1 and k0 > k1):
                win = 0
            elif s1 > s0 or (s0 == s1 and k1 > k0):
                win = 1
            if win >= 0:
                vp[win] += 2
                tiles[ci] -= 1
            for q in range(2):
                keep = 2 if q != win else 1
                # keep strongest units fitting 'keep' slots; discard rest
                used = 0
                nk = 0
                tmp = np.empty(5, np.int64)
                # simple: sort by strength desc
                for a in range(cn[ci, q]):
                    for b in range(a + 1, cn[ci, q]):
                        if strg[city[ci, q, b]] > strg[city[ci, q, a]]:
                            t = city[ci, q, a]
                            city[ci, q, a] = city[ci, q, b]
                            city[ci, q, b] = t
                for a in range(cn[ci, q]):
                    c = city[ci, q, a]
                    w = 1 + colo[c]
                    if used + w <= keep:
                        tmp[nk] = c
                        nk += 1
                        used += w
                    else:
                        disc[qn[0]] = c
                        qn[0] += 1
                for a in range(nk):
                    city[ci, q, a] = tmp[a]
                cn[ci, q] = nk
                cu[ci, q] = used
        # offering: discard highest offer card if hand > 0
        if hn[p] > 0:
            bi = 0
            for h in range(hn[p]):
                if offer[hand[p, h]] > offer[hand[p, bi]]:
                    bi = h
            c = hand[p, bi]
            hand[p, bi] = hand[p, hn[p] - 1]
            hn[p] -= 1
            disc[qn[0]] = c
            qn[0] += 1
            for k in range(offer[c]):
                if k % 2 == 0:
                    d = draw(deck, dn, disc, qn, s)
                    if d >= 0:
                        hand[p, hn[p]] = d
                        hn[p] += 1
                elif supply > 0:
                    coins[p] += 1
                    supply -= 1
        while hn[p] > 5:
            hn[p] -= 1
            disc[qn[0]] = hand[p, hn[p]]
            qn[0] += 1
        if coins[p] > 10:
            supply += coins[p] - 10
            coins[p] = 10
        turn += 1
        if tiles[0] + tiles[1] + tiles[2] == 0:
            break
    return vp[0] - vp[1], turn


@njit(parallel=True, cache=True)
def run(n, seed, cost, offer, strg, colo, out, turns):
    nth = nb.get_num_threads()
    for t in prange(nth):
        st = np.empty((2, 64), np.int64)
        for g in range(t, n, nth):
            out[g], turns[g] = play_game(seed * 1000003 + g, cost, offer, strg, colo, st)


def measure(threads, n=200000):
    """Games/s and mean turns of the reference loop on `threads` threads (best of 2)."""
    nb.set_num_threads(threads)
    out = np.empty(n, np.int64)
    turns = np.empty(n, np.int64)
    run(1000, 1, COST, OFFER, STR, COLO, out, turns)
    best = 1e9
    for _ in range(2):
        t = time.perf_counter()
        run(n, 1, COST, OFFER, STR, COLO, out, turns)
        best = min(best, time.perf_counter() - t)
    return n / best, float(turns.mean())


if __name__ == "__main__":
    for th in (1, 2):
        gps, mt = measure(th)
        print(f"threads={th}: {gps:,.0f} games/s, mean turns {mt:.1f}")
