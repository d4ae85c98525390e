"""Round-robin tournaments between bots, with seats balanced (``omensim tournament``).

:func:`play_tournament` plays every pairing of the bots (each against every other and
itself, on shared deals) into a job folder (:mod:`sim.run.jobs`: ``--out`` or a temporary
one), each half-run an ordinary run under ``OUT/games/``, each pairing's counts one log
line, so ``--resume`` finishes a killed tournament; it returns a :class:`TournamentResult`
of DataFrames. How it plays, its files and what the intervals mean: ``docs/bots.md``,
"Tournaments".
"""

from __future__ import annotations

import dataclasses
import functools
import json
import shutil
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

import sim
from sim.analysis.ratings import fit_ratings
from sim.analysis.streaming import scan
from sim.analysis.tournament_text import format_tournament
from sim.base.column_docs import Columns, column_names, columns_table
from sim.data.spec import RunSpec, SpecError, split_names
from sim.run import io, jobs, ledger, runner
from sim.run import progress as P
from sim.run.margins import COLUMNS as MARGIN_COLUMNS
from sim.run.margins import first_player_margins, margin_distribution
from sim.run.runner import RESULTS_ROOT, backend_workers
from sim.run.seats import SeatCounts, seat_columns
from sim.run.session import RunError, resolve_threads
from sim.run.stats import wilson_interval

DEFAULT_GAMES = 20_000
PAIRS_FILE = "tournament.parquet"
RATINGS_FILE = "ratings.parquet"
TABLE_FILE = "tournament.md"
GAMES_DIR = "games"
KIND = "tournament"
TOO_LONG = "play fewer games (--games) or fewer bots"
"""What a refusal of a tournament too long to play advises (it has no ``--until-ci``)."""
TOURNAMENT_FILES = (PAIRS_FILE, RATINGS_FILE, TABLE_FILE, GAMES_DIR, "_tournament.json")
"""What a tournament writes in its folder besides the job's own files (the last, by older
versions: ``--force`` replaces their folders too)."""
SETTINGS_KEY = b"omensim_tournament"
"""The key of the settings in ``tournament.parquet``'s metadata."""
COUNT_COLUMNS = ["winner", "first_player", "end_reason", "score_p0", "score_p1"]
"""What a pairing's counts read of each game."""


def valid_bots() -> list[str]:
    """The bot names a tournament may use, read from the registry at call time."""
    from strategies.registry import STRATEGIES  # deferred: loads numba

    return sorted(STRATEGIES)


def parse_bots(text: str | Sequence[str]) -> list[str]:
    """``"random, greedy"`` (or a list of names) -> ``["random", "greedy"]``, validated.

    Raises:
        SpecError: an unknown or repeated name, or fewer than two bots; the
            one-line message lists the valid bots.
    """
    valid = valid_bots()
    listing = f"valid bots: {', '.join(valid)}"
    try:
        bots = list(split_names(text, "--bots", "bot", str.lower))
    except SpecError as exc:
        raise SpecError(f"{exc} ({listing})") from None
    unknown = [b for b in bots if b not in valid]
    if unknown:
        names = ", ".join(repr(b) for b in unknown)
        raise SpecError(f"unknown bot{'s' if len(unknown) > 1 else ''} {names}; {listing}")
    if len(bots) < 2:
        raise SpecError(
            f"a tournament needs at least two bots, got {len(bots)} "
            f"({', '.join(bots) or 'none'}); {listing}"
        )
    return bots


def check_games(games: int) -> None:
    """Refuse a per-pairing game count that cannot be split into balanced seats.

    Raises:
        SpecError: ``games`` is not a positive multiple of 4.
    """
    if games < 4 or games % 4:
        raise SpecError(
            "--games is per pairing and each pairing plays every deal 4 times (each bot "
            f"from each seat, going first and second), so it must be a multiple of 4 such "
            f"as 20000, got {games}"
        )


def default_out_dir(
    mix: str, seed: int, root: Path = RESULTS_ROOT, now: datetime | None = None
) -> Path:
    """A fresh directory ``results/tournament-<mix>-s<seed>-<YYYYMMDD-HHMMSS>``, named like
    :func:`sim.run.runner.default_out_dir`."""
    return runner.fresh_dir(root, f"tournament-{runner.mix_label(mix)}-s{seed}", now)


@dataclass(frozen=True)
class Pairing:
    """One pairing of the round robin; ``a == b`` for self-play."""

    a: str
    b: str

    @property
    def self_play(self) -> bool:
        """Whether a bot plays itself."""
        return self.a == self.b

    def halves(self, games: int) -> list[tuple[str, str, int]]:
        """``(p0, p1, games)`` of each run the pairing is made of."""
        if self.self_play:
            return [(self.a, self.b, games)]
        return [(self.a, self.b, games // 2), (self.b, self.a, games // 2)]


def pairings(bots: Sequence[str]) -> list[Pairing]:
    """Every pairing of ``bots`` in list order: each self-play, then each pair once."""
    return [Pairing(a, b) for i, a in enumerate(bots) for b in bots[i:]]


@dataclass
class _Counts:
    """Outcome counts of one pairing, from bot ``a``'s point of view."""

    wins_a: int = 0
    wins_b: int = 0
    a_seat0: int = 0  # games with a in seat 0
    a_first: int = 0  # games a took the first turn (seat 0 of the first half in self-play)
    seats: SeatCounts = field(default_factory=SeatCounts)  # by seat order, whoever sat there
    # Games per first-player VP margin, whichever bot went first.
    margin_counts: dict[int, int] = field(default_factory=dict)

    def add(self, table: pa.Table, a_seat: int) -> None:
        """Count games (:data:`COUNT_COLUMNS`) in which bot ``a`` sat in seat ``a_seat``."""
        winner = table.column("winner").to_numpy().astype(np.int64)
        first = table.column("first_player").to_numpy().astype(np.int64)
        self.wins_a += int(np.count_nonzero(winner == a_seat))
        self.wins_b += int(np.count_nonzero(winner == 1 - a_seat))
        self.a_seat0 += len(winner) if a_seat == 0 else 0
        self.a_first += int(np.count_nonzero(first == a_seat))
        self.seats += SeatCounts.from_frame(table)
        margins = first_player_margins(*(table.column(c).to_numpy() for c in MARGIN_COLUMNS))
        self.margin_counts = dict(Counter(self.margin_counts) + Counter(margins.tolist()))


@dataclass(frozen=True)
class TournamentResult:
    """The numbers of a finished tournament, as DataFrames a notebook can use: ``pairs``
    (:func:`pairs_frame`), the ``ratings`` (:func:`sim.analysis.ratings.fit_ratings`), and
    read off the pairs the row bot's outright win rate against the column bot (``matrix``,
    with ``matrix_lo``/``matrix_hi``; rows and columns in the order of ``bots``) and the
    self-play pairings' first-player figures (``first_player``); see ``docs/bots.md``."""

    bots: list[str]
    pairs: pd.DataFrame
    settings: dict[str, Any]
    out: Path | None = None
    ratings: pd.DataFrame | None = None
    matrix: pd.DataFrame = field(init=False)
    matrix_lo: pd.DataFrame = field(init=False)
    matrix_hi: pd.DataFrame = field(init=False)
    first_player: pd.DataFrame = field(init=False)

    def __post_init__(self) -> None:
        """Read the matrices and the first-player table off ``pairs``."""
        tidy, bots = self.head_to_head(), pd.Index(self.bots)
        for name, v in (("matrix", "rate"), ("matrix_lo", "lo"), ("matrix_hi", "hi")):
            m = tidy.pivot(index="bot", columns="opponent", values=v)
            m = m.reindex(index=bots.rename("bot"), columns=bots).astype(float)
            object.__setattr__(self, name, m)
        figures = {f"first_player_{k}": k for k in ("rate", "lo", "hi")}
        cols = ["bot_a", "games", "first_player_wins", *figures, "shared"]
        cols += [c for p in ("seat_", "first_margin") for c in self.pairs if c.startswith(p)]
        sp = self.pairs.loc[self.pairs["self_play"].to_numpy(), cols]
        sp = sp.rename(columns={"bot_a": "bot", **figures}).reset_index(drop=True)
        object.__setattr__(self, "first_player", sp)

    def head_to_head(self) -> pd.DataFrame:
        """One row per ordered pair (bot, opponent), self-play left out: the matrix, tidy."""
        head = self.pairs[~self.pairs["self_play"]].reset_index(drop=True)
        sides = []
        for me, them in (("a", "b"), ("b", "a")):
            names = {f"bot_{me}": "bot", f"bot_{them}": "opponent", "games": "games"}
            names |= {f"wins_{me}": "wins", f"wins_{them}": "losses", "shared": "shared"}
            names |= {f"{k}_{me}": k for k in ("rate", "lo", "hi", "score")}
            sides.append(head[list(names)].rename(columns=names))
        return pd.concat(sides).sort_index(kind="stable").reset_index(drop=True)


PAIRS_COLUMNS: Columns = {
    ("bot_a", "bot_b"): "the pairing's bots; in self-play the same bot, `a` in seat 0 and `b` "
    "in seat 1",
    ("self_play",): "whether the bot plays itself",
    ("games",): "games of the pairing (`--games`)",
    ("wins_a", "wins_b"): "outright wins of `bot_a` and of `bot_b`",
    ("shared",): "shared victories, a win for neither bot",
    ("rate_a", "lo_a", "hi_a", "rate_b", "lo_b", "hi_b"): "each bot's outright win rate "
    "with its 95% Wilson interval",
    ("score_a", "score_b"): "each bot's score: outright wins plus half the shared victories, "
    "over the games",
    ("first_player_wins",): "games the seat that took the first turn won outright, whichever "
    "bot sat there",
    ("first_player_rate", "first_player_lo", "first_player_hi"): "the first player's outright "
    "win rate with its 95% Wilson interval",
    ("first_margin", "first_margin_lo", "first_margin_hi", "first_margin_sd"): "the first "
    "player's mean VP margin (its score minus the second player's) with its 95% t-interval, "
    "and the margin's standard deviation per game",
    (
        "first_margin_p10",
        "first_margin_p25",
        "first_margin_p50",
        "first_margin_p75",
        "first_margin_p90",
    ): "quantiles of the margin: the smallest margin that at least that share of the games "
    "does not exceed",
    ("first_margin_ahead", "first_margin_level", "first_margin_behind"): "the shares of games "
    "the first player ended ahead, level and behind on VP",
    ("seat_second_wins", "seat_capped"): "games the second player won outright, and games "
    "stopped at the turn cap (scored as they stood, so counted in `first_player_wins`, "
    "`seat_second_wins` or `shared` too)",
    ("seat_second_player_rate", "seat_second_player_lo", "seat_second_player_hi"): "the "
    "second player's outright win rate with its 95% Wilson interval",
    ("seat_shared_rate", "seat_shared_lo", "seat_shared_hi"): "the share of shared victories "
    "with its 95% Wilson interval",
    ("seat_capped_rate", "seat_capped_lo", "seat_capped_hi"): "the share of games stopped at "
    "the turn cap with its 95% Wilson interval",
    (
        "seat_first_of_decisive_rate",
        "seat_first_of_decisive_lo",
        "seat_first_of_decisive_hi",
    ): "the first player's share of the decisive games (those someone won outright) with its "
    "95% Wilson interval: 50% is no first-player advantage, whatever the share of ties",
    ("games_a_seat0", "games_a_first"): "games in which `bot_a` sat in seat 0, and games in "
    "which it took the first turn: half the games each in a head-to-head pairing; in "
    "self-play every game, and the games seat 0 began",
    ("mix", "variant", "seed"): "what was played: the mix as the runs record it, the variants "
    "(`standard` for none) and the seed; the same in every row, so the tables of several "
    "tournaments concatenate",
}
"""The columns of ``tournament.parquet`` in order, in groups, each with what it holds: the
one list of them. :func:`pairs_frame` and :func:`play_tournament` build the table a test
checks against it, and ``docs/bots.md`` shows :func:`pairs_columns_table`."""


def pairs_column_names() -> list[str]:
    """Every column of :data:`PAIRS_COLUMNS`, in the table's order."""
    return column_names(PAIRS_COLUMNS)


def pairs_columns_table() -> str:
    """:data:`PAIRS_COLUMNS` as the Markdown table ``docs/bots.md`` shows, one row a group."""
    return columns_table(PAIRS_COLUMNS.items())


def pairs_frame(counts: Sequence[tuple[Pairing, _Counts]]) -> pd.DataFrame:
    """The tidy per-pairing table, :data:`PAIRS_COLUMNS` but the last group.

    Rates come with their 95% Wilson interval, the first player's VP margin with its 95%
    t-interval and its distribution (:func:`sim.run.margins.margin_distribution`). In
    self-play ``a`` is seat 0 and ``b`` seat 1. :func:`play_tournament` adds ``mix``,
    ``variant`` and ``seed``.
    """
    rows = []
    for p, c in counts:
        n, seats = c.seats.games, seat_columns(c.seats)
        row = {"bot_a": p.a, "bot_b": p.b, "self_play": p.self_play, "games": n}
        row |= {"wins_a": c.wins_a, "wins_b": c.wins_b, "shared": c.seats.shared}
        for side, wins in (("a", c.wins_a), ("b", c.wins_b)):
            row[f"rate_{side}"] = wins / n
            row[f"lo_{side}"], row[f"hi_{side}"] = wilson_interval(wins, n)
        row |= {
            f"score_{s}": (w + c.seats.shared / 2) / n
            for s, w in (("a", c.wins_a), ("b", c.wins_b))
        }
        row["first_player_wins"] = c.seats.first_wins
        row |= {f"first_player_{k}": seats[f"first_player_{k}"] for k in ("rate", "lo", "hi")}
        values = sorted(c.margin_counts)
        spread = margin_distribution(values, [c.margin_counts[v] for v in values])
        row["first_margin"] = spread.pop("mean")
        row |= {f"first_margin_{k}": v for k, v in spread.items() if k != "games"}
        # The seat figures the row holds already, under the first player's or the pairing's
        # names, are not written twice: first_player_wins/_rate/_lo/_hi, games and shared.
        row |= {
            f"seat_{k}": v
            for k, v in seats.items()
            if k not in ("games", "first_wins", "shared") and "first_player" not in k
        }
        row |= {"games_a_seat0": c.a_seat0, "games_a_first": c.a_first}
        rows.append(row)
    return pd.DataFrame(rows)


def _specs(
    pairing: Pairing, games: int, mix: str, seed: int, variants: tuple[str, ...]
) -> list[RunSpec]:
    """The runs a pairing is made of: on duplicate deals, except where the Emissaries decide
    who goes first."""
    spec = RunSpec(games=games, mix=mix, seed=seed, variants=variants)
    spec = dataclasses.replace(spec, duplicate="emissary" not in variants)
    return [dataclasses.replace(spec, games=n, p0=p0, p1=p1) for p0, p1, n in pairing.halves(games)]


def play_tournament(
    mix: str,
    bots: Sequence[str],
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    variants: Sequence[str] = (),
    *,
    out: Path | str | None = None,
    keep_games: bool = False,
    threads: int | None = None,
    progress: bool | None = None,
    on_pairing: Callable[[Pairing, int, int], None] | None = None,
    force: bool = False,
    backend: Any = None,
) -> TournamentResult:
    """Play every pairing of ``bots`` (including self-play), ``games`` games each.

    The options are ``omensim tournament``'s (``games`` per pairing, a multiple of 4). The
    tournament is played into ``out`` (absent or empty, or an earlier tournament with
    ``force``), or into a temporary folder removed after; ``keep_games`` keeps each
    half-run's games under ``out/games/``. ``on_pairing(pairing, index, total)`` is called
    before each pairing is played.

    Raises:
        SpecError: bad bots, games, mix or variants (raised before anything is written).
        sim.data.cards.CardDataError: invalid card data.
        RunError: bad ``threads`` or an output directory that must not be used.
    """
    plan = {"mix": mix, "bots": parse_bots(list(bots)), "games": games, "seed": seed}
    plan |= {"variants": list(variants), "keep_games": keep_games}
    check_games(games)
    if keep_games and out is None:
        raise RunError("keeping each pairing's games needs an output directory")
    with jobs.folder(out, KIND) as where:
        jobs.check_out(where, KIND, force, TOURNAMENT_FILES)  # before the engine is built
        start = functools.partial(
            jobs.Job.start, where, KIND, plan, force=force, ours=TOURNAMENT_FILES
        )
        result = _play(plan, start, threads, progress, on_pairing, backend)
    return result if out is not None else dataclasses.replace(result, out=None)


def resume_tournament(
    out: Path | str, threads: int | None = None, progress: bool | None = None, backend: Any = None
) -> TournamentResult:
    """Finish the tournament in ``out``: keep its logged pairings, play the others.

    A pairing cut short is played again from its first game. The tables equal an
    uninterrupted tournament's.

    Raises:
        RunError: no tournament plan in ``out``, a finished tournament, or a run key
            (spec, card hash, kernel source digest, version) that differs from the code's.
    """
    with jobs.Job.resume(out, KIND) as job:
        done = frozenset(job.logged())
        return _play(job.plan, job.keyed, threads, progress, None, backend, done)


def _play(
    plan: dict[str, Any],
    open_job: Callable[..., jobs.Job],
    threads: int | None,
    progress: bool | None,
    on_pairing: Callable[[Pairing, int, int], None] | None,
    backend: Any,
    done: frozenset[int] = frozenset(),
) -> TournamentResult:
    """Play (or read back from the job's log) every pairing of ``plan``; ``open_job(key)``
    gives the job once the first engine has checked the mix, variants and cards. ``done``:
    the pairings a resumed job logged, which are not played (nor timed) again."""
    mix, bots, games, seed = plan["mix"], plan["bots"], int(plan["games"]), int(plan["seed"])
    variants = tuple(plan["variants"])
    order = pairings(bots)
    specs = [_specs(p, games, mix, seed, variants) for p in order]
    n_threads = resolve_threads(threads if backend is None else None)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    show = P.wanted(progress)
    # Every half-run still to play, each timed at its own bots' speed: a tournament of a
    # fast and a slow bot is refused up front for the slow pairings, and one led by a slow
    # bot is not charged the slow speed for the fast ones.
    todo = {
        _half_name(spec): spec
        for index, halves in enumerate(specs)
        if index not in done
        for spec in halves
    }
    left = len(order) - len(done)
    engines = runner.timed_engines(
        todo, {name: spec.games for name, spec in todo.items()}, n_threads,
        what=f"{left} pairings x {games:,} games ({left * games:,})",
        fix=TOO_LONG, progress=progress, workers=backend_workers(backend),
    )  # fmt: skip
    engine = engines.get(_half_name(specs[0][0]))
    if engine is None:
        with P.kernel_ready(show):
            from sim.run.engine import Engine  # deferred: importing it loads numba code

            engine = Engine(specs[0][0])  # refuses a bad mix, variant or card before any folder
            engine.warmup()
    key = ledger.run_key(specs[0][0], engine.metadata)
    with open_job(key=key) as job, P.Bar(games * len(order), show, desc=KIND) as bar:
        logged = {i: _counts(e["counts"]) for i, e in job.logged().items()}
        bar.advance(games * len(logged))
        results: list[tuple[Pairing, _Counts]] = []
        for index, (pairing, halves) in enumerate(zip(order, specs, strict=True)):
            counts = logged.get(index)
            if counts is None:
                if on_pairing is not None:
                    on_pairing(pairing, index, len(order))
                bar.describe(f"tournament {index + 1}/{len(order)}: {pairing.a} vs {pairing.b}")
                counts = _Counts()
                for a_seat, spec in enumerate(halves):
                    # Each half is an ordinary run, counted from its parts a batch at a time.
                    run_dir = job.out / GAMES_DIR / f"{spec.p0}-vs-{spec.p1}"
                    runner.run(
                        spec, run_dir, n_threads, progress=False, force=True, backend=backend,
                        engine=engines.pop(_half_name(spec), None),
                    )  # fmt: skip
                    for batch in scan(run_dir, COUNT_COLUMNS):
                        counts.add(pa.Table.from_batches([batch]), a_seat)
                    bar.advance(spec.games)
                if not plan["keep_games"]:
                    shutil.rmtree(job.out / GAMES_DIR)
                job.log(index, {"counts": dataclasses.asdict(counts)})
            results.append((pairing, counts))
        seconds = time.perf_counter() - t0

        pairs = pairs_frame(results)
        # Say what was played in every row, so tables of several tournaments concatenate.
        played = {"mix": engine.metadata.get("mix", mix), "variant": specs[0][0].variant_label}
        pairs = pairs.assign(**played, seed=seed)
        settings: dict[str, Any] = {
            "omensim_version": sim.__version__,
            **played,
            "bots": bots,
            "games_per_pairing": games,
            "pairings": len(order),
            "seed": seed,
            "duplicate_deals": "emissary" not in variants,
            "card_hash": engine.metadata.get("card_hash", ""),
            "started": started,
            "seconds": round(seconds, 3),
            "threads": n_threads,
        }
        result = TournamentResult(bots, pairs, settings, job.out, fit_ratings(pairs, bots))
        _write(result, job.out)
        job.finish()
    return result


def _half_name(spec: RunSpec) -> str:
    """A half-run of the tournament as a refusal of its time names it (its seats)."""
    return f"{spec.p0} vs {spec.p1}"


def _counts(logged: dict[str, Any]) -> _Counts:
    """A pairing's counts back from its log entry (JSON keys are text)."""
    margins = {int(k): int(v) for k, v in logged["margin_counts"].items()}
    return _Counts(**{**logged, "seats": SeatCounts(**logged["seats"]), "margin_counts": margins})


def read_tournament(out: Path | str) -> TournamentResult:
    """A finished tournament directory back as a :class:`TournamentResult` (its tables and
    settings), every file checked against the job's checksums.

    Raises:
        RunError: ``out`` holds no tournament. JobReadError: a file edited, or unfinished.
    """
    out = Path(out)
    jobs.read_finished(out, KIND)
    table = pq.read_table(out / PAIRS_FILE)
    settings = json.loads(table.schema.metadata[SETTINGS_KEY])
    ratings = pd.read_parquet(out / RATINGS_FILE) if (out / RATINGS_FILE).is_file() else None
    return TournamentResult(list(settings["bots"]), table.to_pandas(), settings, out, ratings)


def _write(result: TournamentResult, out: Path) -> None:
    """Write the tables: the pairs with the settings in the Parquet file's key-value metadata,
    the ratings, and the text. The job's last write (:meth:`sim.run.jobs.Job.finish`) says
    they are whole; a resume writes them again."""
    table = pa.Table.from_pandas(result.pairs, preserve_index=False)
    meta = {**(table.schema.metadata or {}), SETTINGS_KEY: json.dumps(result.settings).encode()}
    io.write_parquet(table.replace_schema_metadata(meta), out / PAIRS_FILE)
    if result.ratings is not None:
        result.ratings.to_parquet(out / RATINGS_FILE, index=False)
    (out / TABLE_FILE).write_text(format_tournament(result), encoding="utf-8")
