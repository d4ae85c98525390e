"""Scenarios: build a position from a readable description and step it by the rules.

This is how tests (and curious designers) reach the kernel: every rulebook
example becomes a few lines. A position names cards by their printed names;
the kernel underneath is exactly the one a run plays.

>>> sc = Scenario.build(
...     "aegean",
...     hands={0: ["Talos, Bronze Guardian of Crete"]},
...     coins=(6, 4),
...     cities={0: {1: ["Eudorus, Swift Runner"]}},
...     stacks={0: ["Thunderbolt of Zeus"], 1: ["Helm of Hades"], 2: []},
... )
>>> sc.script_play("Talos, Bronze Guardian of Crete", city=0)
>>> sc.script_pass()
>>> sc.surge()
>>> sc.city(0, 0)
['Talos, Bronze Guardian of Crete']

Decisions nobody scripted are made by the seats' bots (``greedy`` unless
``bots=`` says otherwise). A scripted choice waits in a queue until a
decision of its kind comes up; one that matches no legal option raises.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from sim.data import vocab as V
from sim.data.cards import CardPool, load_pool, with_run_rules
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.kernel import game as G
from sim.kernel import layout as L
from sim.kernel import turn as T
from sim.kernel.feats import feat_step
from sim.kernel.offering import offering_step
from sim.kernel.portent import portent_step
from sim.kernel.rng import seed_streams
from sim.kernel.tables import flatten
from sim.kernel.war import war_step
from sim.kernel.wealth import wealth_step
from strategies import decisions as D
from strategies.lookahead import any_surge
from strategies.policy import BOT_STRICT
from strategies.registry import strategy_arrays

ANY = D.ANY


class ScenarioError(AssertionError):
    """A scenario that cannot be built, or a scripted choice the rules did not allow."""


class Scenario:
    """One game state plus the compiled cards and bots that act on it."""

    def __init__(
        self,
        mix: str = "aegean",
        *,
        bots: tuple[str, str] = ("greedy", "greedy"),
        emissary: bool = False,
        first: str = "p0",
        turn_cap: int = 200,
        rules: Mapping[str, int] | None = None,
        strict: bool = False,
    ) -> None:
        """``strict=True``: no bot answers for either seat; every decision with more
        than one legal option must have been scripted, or the step raises
        :class:`ScenarioError` (so a test never depends on a bot's taste)."""
        self.pool: CardPool = load_pool(mix)
        modes = {"p0": L.FIRST_P0, "p1": L.FIRST_P1, "alternate": L.FIRST_ALTERNATE}
        modes["random"] = L.FIRST_RANDOM
        tables = with_run_rules(self.pool.tables, turn_cap, emissary, modes[first])
        if rules:
            ru = tables.rules.copy()
            for key, value in rules.items():
                ru[getattr(L, key)] = value
            tables = tables._replace(rules=ru)
        self.tables = tables
        self.tab = flatten(tables)
        ids, self.fp = strategy_arrays(*bots, self.tab)
        self.st = np.zeros(L.STATE_SIZE, np.int64)
        self.st[L.BOT] = ids[0]
        self.st[L.BOT + 1] = ids[1]
        self.st[L.PROW + 1] = 1
        if strict:
            self.st[L.BOT] = self.st[L.BOT + 1] = BOT_STRICT
        self.out = np.zeros(L.O_COLS, np.int64)

    # --- building positions --------------------------------------------------

    @classmethod
    def from_game(cls, mix: str, seed: int, game: int, **kw: Any) -> Scenario:
        """The position right after set-up of game ``game`` of a run with ``seed``."""
        sc = cls(mix, **kw)
        sc.setup(seed, game)
        return sc

    @classmethod
    def from_spec(
        cls, spec: RunSpec, game: int | None = None, changes: Changes | None = None
    ) -> Scenario:
        """The cards, rules and bots of a whole run (mix limits, variants, ``--rules``,
        card ``changes``).

        With ``game`` the position is that game's, right after set-up, exactly as
        the run plays it.
        """
        from sim.run.engine import Engine  # deferred: the engine imports the batch kernel

        engine = Engine(spec, changes=changes) if changes else Engine(spec)
        sc = cls(spec.mix.split("+")[0].split(":")[0], bots=(spec.p0, spec.p1))
        sc.pool = engine.pool
        sc.tables = engine.tables
        sc.tab = engine.tab
        sc.fp = engine.fp
        sc.st[L.BOT : L.BOT + 2] = engine.bots
        if game is not None:
            sc.setup(spec.seed, game)
        return sc

    def setup(self, seed: int, game: int) -> None:
        """Deal game ``game`` of a run with ``seed`` (the kernel's set-up, Emissary included).

        Choices scripted before the call (e.g. each seat's ``"emissary"``) are kept
        and used by the set-up.
        """
        G.setup(self.st, self.tab, self.fp, seed, game)
        self._check()

    def emissary(self, oldest: int) -> int:
        """Run the Emissary of War variant on the hands as they stand; returns the first player.

        ``oldest`` is the seat that wins a full tie. The winner becomes first and active;
        with gods in play (Heir to the Dunes) the Favor card turns to the other seat's god,
        as the kernel's set-up does ("the god of the second player").
        """
        first = int(G.emissary(self.st, self.tab, self.fp, oldest))
        self._check()
        self.st[L.FIRST] = first
        self.st[L.ACTIVE] = first
        if self.rule("RU_GODS"):
            self.st[L.FAVOR] = self.st[L.GOD + 1 - first]
        return first

    @classmethod
    def build(
        cls,
        mix: str = "aegean",
        *,
        hands: Mapping[int, Sequence[str]] | None = None,
        deck_top: Sequence[str] = (),
        discard: Sequence[str] = (),
        cities: Mapping[int, Mapping[int, Sequence[str]]] | None = None,
        coins: tuple[int, int] = (4, 4),
        supply: int | None = None,
        stacks: Mapping[int, Sequence[str]] | None = None,
        rewards: Mapping[int, Sequence[tuple[str, bool]]] | None = None,
        vp_tokens: tuple[int, int] = (0, 0),
        favor: str | None = None,
        under: Mapping[int, Mapping[str, int]] | None = None,
        built: Mapping[int, Sequence[str]] | None = None,
        enraged: Mapping[int, Mapping[int, Sequence[int]]] | None = None,
        feats: Mapping[int, Sequence[str]] | None = None,
        active: int = 0,
        turn: int = 1,
        seed: int = 0,
        **kw: Any,
    ) -> Scenario:
        """A position described card by card.

        ``cities[c][p]`` lists seat ``p``'s units in city ``c``; ``stacks[c]``
        the reward tiles left in city ``c`` (top last); ``rewards[p]`` the
        tiles seat ``p`` has won as ``(name, used)``. Unnamed unit cards form
        the rest of the deck below ``deck_top`` (listed top first), in a
        shuffled order; unnamed tiles stay in the box. ``supply`` defaults to
        what the set's coins leave after both seats' ``coins``.

        A Reign of War: ``enraged[c][p]`` lists the slot positions of seat
        ``p``'s units in city ``c`` that start enraged (set as given, without
        the Enrage checks); ``feats[p]`` names the feats seat ``p`` has
        already completed (turned face down).
        """
        sc = cls(mix, **kw)
        st, pool = sc.st, sc.pool
        G.reset(st)
        seed_streams(st, seed, 0)
        if sc.rule("RU_GODS"):
            G.deal_structures(st, sc.tab)
            st[L.FAVOR] = V.GODS[favor] if favor else st[L.GOD + 1 - active]
        free = {k: [] for k in range(len(pool.units))}
        for card, k in enumerate(sc.tables.card_kind):
            free[int(k)].append(card)

        def take(name: str) -> int:
            k = sc._kind(name)
            if not free[k]:
                raise ScenarioError(f"more copies of {name!r} named than the mix has")
            return free[k].pop(0)

        for p, names in (hands or {}).items():
            for name in names:
                card = take(name)
                st[L.HAND + p * L.MAX_CARDS + st[L.HAND_N + p]] = card
                st[L.HAND_N + p] += 1
                st[L.HELD + p * L.MASK_WORDS + (card >> 5)] |= 1 << (card & 31)
        for name in discard:
            st[L.DISC + st[L.DISC_N]] = take(name)
            st[L.DISC_N] += 1
        for c, sides in (cities or {}).items():
            for p, names in sides.items():
                for name in names:
                    s = 2 * c + p
                    st[L.SLOT + s * L.N_SLOTS + st[L.SIDE_N + s]] = take(name)
                    st[L.SIDE_N + s] += 1
        for c, sides in (enraged or {}).items():
            for p, slots in sides.items():
                for i in slots:
                    if not 0 <= i < st[L.SIDE_N + 2 * c + p]:
                        raise ScenarioError(f"no unit in slot {i} of seat {p} in city {c}")
                    st[L.ENRAGED + (2 * c + p) * L.N_SLOTS + i] = 1
        for p, names in (feats or {}).items():
            for name in names:
                st[L.FEAT_DONE + p * L.MAX_FEATS + sc._feat(name)] = 1
        top = [take(name) for name in deck_top]
        rest = [card for cards in free.values() for card in cards]
        for p, names in (built or {}).items():
            for name in names:
                st[L.STRUCT_DONE + p * L.MAX_STRUCTS + sc._structure(p, name)] = 1
        for p, counts in (under or {}).items():
            for name, k in counts.items():
                s = sc._structure(p, name)
                for _ in range(k):
                    if not rest:
                        raise ScenarioError("no unnamed cards left to put under structures")
                    card = rest.pop()
                    st[L.UNDER + p * L.MAX_CARDS + st[L.UNDER_N + p]] = card
                    st[L.UNDER_N + p] += 1
                    st[L.STRUCT_UNDER + p * L.MAX_STRUCTS + s] += 1
        rng = np.random.default_rng(seed)
        rng.shuffle(rest)
        deck = rest + top[::-1]
        st[L.DECK : L.DECK + len(deck)] = deck
        st[L.DECK_N] = len(deck)
        tiles_free = {k: [] for k in range(len(pool.rewards))}
        for t, k in enumerate(sc.tables.tile_kind):
            tiles_free[int(k)].append(t)

        def take_tile(name: str) -> int:
            k = pool.reward_index(name)
            if not tiles_free[k]:
                raise ScenarioError(f"more copies of reward {name!r} named than the mix has")
            return tiles_free[k].pop(0)

        for c in range(L.N_CITIES):
            for name in (stacks or {}).get(c, ()):
                st[L.STACK + c * L.MAX_STACK + st[L.STACK_N + c]] = take_tile(name)
                st[L.STACK_N + c] += 1
        for p, won in (rewards or {}).items():
            for name, used in won:
                r = st[L.REW_N + p]
                st[L.REW + p * L.MAX_REWARDS + r] = take_tile(name)
                st[L.REW_USED + p * L.MAX_REWARDS + r] = int(used)
                st[L.REW_N + p] = r + 1
        st[L.COINS], st[L.COINS + 1] = coins
        total = sc.rule("RU_COIN_SUPPLY")
        st[L.SUPPLY] = total - sum(coins) if supply is None else supply
        st[L.VP], st[L.VP + 1] = vp_tokens
        st[L.VP_SUPPLY] = sc.rule("RU_VP_TOKENS") - sum(vp_tokens)
        st[L.ACTIVE] = active
        st[L.FIRST] = active if turn % 2 == 0 else 1 - active
        st[L.TURN] = turn
        return sc

    def _kind(self, name: str) -> int:
        try:
            return self.pool.kind_index(name)
        except KeyError as e:
            raise ScenarioError(str(e)) from None

    def _feat(self, name: str) -> int:
        for f, fd in enumerate(self.pool.feats):
            if fd["name"] == name:
                return f
        raise ScenarioError(f"no feat named {name!r} in the mix")

    def _structure(self, p: int, name: str) -> int:
        for s in range(L.MAX_STRUCTS):
            row = int(self.st[L.STRUCT_KIND + p * L.MAX_STRUCTS + s])
            if row >= 0 and self.pool.structures[row]["name"] == name:
                return s
        raise ScenarioError(f"seat {p} has no structure named {name!r}")

    def rule(self, name: str) -> int:
        """A rule parameter by its layout name, e.g. ``rule("RU_HAND_LIMIT")``."""
        return int(self.tables.rules[getattr(L, name)])

    # --- scripted choices ------------------------------------------------------

    def script(
        self,
        decision: str,
        a: int = ANY,
        b: int = ANY,
        c: int = ANY,
        d: int = ANY,
        card: str | None = None,
    ) -> None:
        """Queue an explicit choice for the next decision of kind ``decision``.

        ``a..d`` match the option fields documented in ``strategies.decisions``
        (``ANY`` matches anything); ``card`` matches the card the option is about.
        """
        st = self.st
        n = st[L.SCRIPT_N]
        if n >= L.MAX_SCRIPT:
            raise ScenarioError("too many scripted choices queued")
        if decision not in D.DECISIONS:
            raise ScenarioError(f"unknown decision {decision!r}; valid: {', '.join(D.DECISIONS)}")
        row = L.SCRIPT + L.SCRIPT_W * n
        kind = ANY if card is None else self._kind(card)
        st[row : row + L.SCRIPT_W] = (D.DECISIONS[decision], a, b, c, d, kind)
        st[L.SCRIPT_N] = n + 1

    def script_wealth(self, cards: int) -> None:
        """Spend ``cards`` of this turn's Wealth actions on cards, the rest on coins."""
        self.script("wealth", a=cards)

    def script_play(self, name: str, city: int) -> None:
        """Play the unit ``name`` from hand into ``city`` at the next Surge choice."""
        self.script("surge", a=D.ACT_PLAY, c=city, card=name)

    def script_use_reward(self, name: str) -> None:
        """Use the reward tile ``name`` (one the active seat holds) at the next Surge choice."""
        p = self.active
        for r in range(int(self.st[L.REW_N + p])):
            t = int(self.st[L.REW + p * L.MAX_REWARDS + r])
            if self.pool.rewards[int(self.tables.tile_kind[t])]["name"] == name:
                self.script("surge", a=D.ACT_REWARD, c=t)
                return
        raise ScenarioError(f"seat {p} holds no reward tile named {name!r}")

    def script_pass(self) -> None:
        """End the Surge (play nothing more) at the next Surge choice."""
        self.script("surge", a=D.ACT_PASS)

    def script_offer(self, name: str | None, cards: int = 0) -> None:
        """Offer ``name`` (None: no offering), taking ``cards`` cards and the rest in coins."""
        if name is None:
            self.script("offer", a=-1)
            return
        self.script("offer", card=name)
        self.script("split", a=cards)

    def script_build(self, name: str, structure: str) -> None:
        """Reveal ``name`` at the next Offering to build the active seat's ``structure``
        (Heir to the Dunes, Offering Step: "reveal a unit from hand to build")."""
        s = self._structure(self.active, structure)
        self.script("offer", c=1, d=s, card=name)

    def script_beast(self, name: str) -> None:
        """Pay for the Beast ``name`` and discard it to resolve its ability (Reign, Surge)."""
        self.script("surge", a=D.ACT_BEAST, card=name)

    def script_enrage(self, name: str, city: int | None = None) -> None:
        """Enrage the unit ``name`` (in ``city``, if given) at the next ``enrage`` choice."""
        self.script("enrage", a=ANY if city is None else city, card=name)

    def script_portent(self, name: str) -> None:
        """Resolve the Oracle ``name`` next in the Portent step (Reign)."""
        self.script("portent", card=name)

    def script_may(self, yes: bool) -> None:
        """Answer the next "may" of an ability."""
        self.script("may", a=int(yes))

    def script_keep(self, city: int, slots: Iterable[int]) -> None:
        """After a conflict in ``city``, keep the units in these slot positions."""
        mask = sum(1 << s for s in slots)
        self.script("keep", a=mask, b=city)

    def script_target(self, decision: str, name: str) -> None:
        """Pick the unit ``name`` at the next ``destroy``/``return``/``take``/``discard``."""
        self.script(decision, card=name)

    def _check(self) -> None:
        err = int(self.st[L.ERROR])
        if err < 0:
            self.st[L.ERROR] = 0
            name = V.name_of(D.DECISIONS, -err - 1)
            raise ScenarioError(f"strict scenario: no scripted choice for a {name!r} decision")
        if err:
            self.st[L.ERROR] = 0
            name = V.name_of(D.DECISIONS, err - 1)
            raise ScenarioError(f"a scripted {name!r} choice matched no legal option")

    def script_left(self) -> int:
        """Scripted choices not yet used."""
        return int(self.st[L.SCRIPT_N] - self.st[L.SCRIPT_POS])

    # --- stepping ------------------------------------------------------------------

    def wealth(self) -> None:
        """Run the active seat's Wealth step."""
        wealth_step(self.st, self.tab, self.fp)
        self._check()

    def surge(self) -> None:
        """Run the active seat's Surge step (plays, reward tile, end-of-Surge abilities)."""
        any_surge(self.st, self.tab, self.fp)
        self._check()

    def portent(self) -> None:
        """Run the active seat's Portent step (Reign: its Oracles resolve)."""
        portent_step(self.st, self.tab, self.fp)
        self._check()

    def feat(self) -> None:
        """Run the active seat's Feat step (Reign: met feats turn face down)."""
        feat_step(self.st, self.tab)
        self._check()

    def war(self) -> None:
        """Run the War step."""
        war_step(self.st, self.tab, self.fp)
        self._check()

    def offering(self) -> None:
        """Run the Offering step (offering, TRIBUTE, hand and coin limits)."""
        offering_step(self.st, self.tab, self.fp)
        self._check()

    def end_turn(self) -> None:
        """Check the end of the game and pass the turn."""
        T.end_turn(self.st, self.tab)

    def turn(self) -> None:
        """One full turn of the active seat."""
        G.play_any_turn(self.st, self.tab, self.fp)
        self._check()

    def play_out(self) -> dict[str, int]:
        """Play turns until the game ends; returns the final result (see ``result``)."""
        while not self.over:
            self.turn()
        return self.result()

    # --- reading the position ------------------------------------------------

    def _names(self, cards: Iterable[int]) -> list[str]:
        kinds = self.tables.card_kind
        return [self.pool.units[int(kinds[c])]["name"] for c in cards]

    def hand(self, p: int) -> list[str]:
        """Names of the cards in seat ``p``'s hand."""
        n = int(self.st[L.HAND_N + p])
        return self._names(self.st[L.HAND + p * L.MAX_CARDS : L.HAND + p * L.MAX_CARDS + n])

    def city(self, c: int, p: int) -> list[str]:
        """Names of seat ``p``'s units in city ``c``, in slot order."""
        s = 2 * c + p
        n = int(self.st[L.SIDE_N + s])
        return self._names(self.st[L.SLOT + s * L.N_SLOTS : L.SLOT + s * L.N_SLOTS + n])

    def discard_pile(self, d: int = 0) -> list[str]:
        """Names in discard pile ``d`` (0: the shared pile), bottom first."""
        n = int(self.st[L.DISC_N + d])
        return self._names(self.st[L.DISC + d * L.MAX_CARDS : L.DISC + d * L.MAX_CARDS + n])

    def deck_size(self, d: int = 0) -> int:
        """Cards left in deck ``d``."""
        return int(self.st[L.DECK_N + d])

    def deck_top(self, k: int, d: int = 0) -> list[str]:
        """Names of the top ``k`` cards of deck ``d``, top first."""
        n = int(self.st[L.DECK_N + d])
        base = L.DECK + d * L.MAX_CARDS
        return self._names(self.st[base + n - k : base + n][::-1])

    def out_of_play(self, p: int) -> list[str]:
        """Names of seat ``p``'s cards taken out of play (exalted Keres)."""
        n = int(self.st[L.OUT_N + p])
        return self._names(self.st[L.OUT + p * L.MAX_CARDS : L.OUT + p * L.MAX_CARDS + n])

    def coins(self, p: int) -> int:
        """Coins seat ``p`` holds."""
        return int(self.st[L.COINS + p])

    @property
    def supply(self) -> int:
        """Coins left in the supply."""
        return int(self.st[L.SUPPLY])

    def vp_tokens(self, p: int) -> int:
        """VP tokens seat ``p`` has earned."""
        return int(self.st[L.VP + p])

    def stack(self, c: int) -> list[str]:
        """Names of the reward tiles left in city ``c``, bottom first."""
        n = int(self.st[L.STACK_N + c])
        tiles = self.st[L.STACK + c * L.MAX_STACK : L.STACK + c * L.MAX_STACK + n]
        return [self.pool.rewards[int(self.tables.tile_kind[t])]["name"] for t in tiles]

    def rewards(self, p: int) -> list[tuple[str, bool]]:
        """Seat ``p``'s reward tiles as (name, used)."""
        out = []
        for r in range(int(self.st[L.REW_N + p])):
            t = int(self.st[L.REW + p * L.MAX_REWARDS + r])
            used = bool(self.st[L.REW_USED + p * L.MAX_REWARDS + r])
            out.append((self.pool.rewards[int(self.tables.tile_kind[t])]["name"], used))
        return out

    def structures(self, p: int) -> list[tuple[str, int, bool]]:
        """Seat ``p``'s structures as (name, cards under it, completed)."""
        out = []
        for s in range(L.MAX_STRUCTS):
            i = p * L.MAX_STRUCTS + s
            row = int(self.st[L.STRUCT_KIND + i])
            if row >= 0:
                name = self.pool.structures[row]["name"]
                out.append(
                    (name, int(self.st[L.STRUCT_UNDER + i]), bool(self.st[L.STRUCT_DONE + i]))
                )
        return out

    def enraged(self, c: int, p: int) -> list[bool]:
        """Whether each of seat ``p``'s units in city ``c`` is enraged, in slot order."""
        base = L.ENRAGED + (2 * c + p) * L.N_SLOTS
        return [bool(self.st[base + i]) for i in range(int(self.st[L.SIDE_N + 2 * c + p]))]

    def feats(self, p: int) -> list[str]:
        """Names of the feats seat ``p`` has completed (face down), in the set file's order."""
        base = L.FEAT_DONE + p * L.MAX_FEATS
        return [fd["name"] for f, fd in enumerate(self.pool.feats) if self.st[base + f]]

    def under_cards(self, p: int) -> list[str]:
        """Names of the cards tucked under seat ``p``'s structures, in the order they went."""
        n = int(self.st[L.UNDER_N + p])
        return self._names(self.st[L.UNDER + p * L.MAX_CARDS : L.UNDER + p * L.MAX_CARDS + n])

    @property
    def favor(self) -> str:
        """The Favored god ("none" without gods)."""
        return ["none", "anubis", "horus", "both"][int(self.st[L.FAVOR])]

    def god(self, p: int) -> str:
        """Seat ``p``'s god ("none" without gods)."""
        return ["none", "anubis", "horus", "both"][int(self.st[L.GOD + p])]

    @property
    def active(self) -> int:
        """The seat whose turn it is."""
        return int(self.st[L.ACTIVE])

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return bool(self.st[L.GAME_OVER])

    def war_torn(self, c: int) -> bool:
        """Whether city ``c`` is war-torn for the active seat right now."""
        from sim.kernel.board import is_war_torn

        return bool(is_war_torn(self.st, self.tab, c, self.active))

    def strength(self, c: int, p: int) -> int:
        """Seat ``p``'s total strength in city ``c``."""
        from sim.kernel.board import side_strength

        return int(side_strength(self.st, self.tab, c, p))

    def result(self) -> dict[str, int]:
        """Score the position as it stands: winner, scores and their components."""
        G.finish(self.st, self.tab, self.out)
        o = self.out
        res = {"winner": int(o[L.O_WINNER]), "turns": int(o[L.O_TURNS])}
        res["end_reason"] = V.END_REASONS[int(o[L.O_END_REASON])]
        for name, col in (
            ("score", L.O_SCORE),
            ("rewards_unused", L.O_REW_UNUSED),
            ("rewards_used", L.O_REW_USED),
            ("vp_tokens", L.O_VP_TOKENS),
            ("treasured", L.O_TREASURED),
            ("structures_built", L.O_STRUCT_N),
            ("structures_vp", L.O_STRUCT_VP),
        ):
            for p in range(2):
                res[f"{name}_p{p}"] = int(o[col + p])
        return res

    def snapshot(self) -> dict[str, Any]:
        """Everything public and private about the position, by name (for debugging)."""
        return {
            "active": self.active,
            "hands": [self.hand(0), self.hand(1)],
            "coins": [self.coins(0), self.coins(1)],
            "supply": self.supply,
            "cities": [[self.city(c, p) for p in range(2)] for c in range(L.N_CITIES)],
            "stacks": [self.stack(c) for c in range(L.N_CITIES)],
            "rewards": [self.rewards(0), self.rewards(1)],
            "discard": self.discard_pile(),
            "deck": self.deck_size(),
        }
