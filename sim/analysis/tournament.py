"""Round-robin tournaments between bots, with seats balanced.

``play_tournament(mix, bots, games, seed)`` plays every pairing of the listed bots
(each against every other and against itself, ``games`` games a pairing) and returns a
:class:`TournamentResult` of DataFrames, so ``omensim tournament`` and a notebook get the
same numbers. A pairing of two bots is two half-runs on one seed with the bots swapped,
each on duplicate deals (ordinary runs under ``emissary``), so every deal is played from
both seats, going first and second; every pairing shares the seed and so the deals.
Shared victories count for neither bot (``score`` counts them as half a win). How it
plays and what the intervals mean: ``docs/bots.md``, "Tournaments".
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

import sim
from sim.analysis.ratings import fit_ratings
from sim.analysis.streaming import scan
from sim.analysis.tournament_text import format_tournament
from sim.data.spec import RunSpec, SpecError
from sim.run import io, jobs, ledger, runner
from sim.run import progress as P
from sim.run.backends import play_columns
from sim.run.margins import (
    SIDES,
    MarginMoments,
    first_player_margins,
    margin_distribution,
    moments_of_counts,
)
from sim.run.runner import RESULTS_ROOT, backend_workers, check_projected_time
from sim.run.seats import CAPPED, SeatCounts, seat_columns
from sim.run.session import RunError, numba_threads, resolve_threads
from sim.run.stats import wilson_interval

DEFAULT_GAMES = 20_000
CHUNK_SIZE = 1 << 16
PAIRS_FILE = "tournament.parquet"
RATINGS_FILE = "ratings.parquet"
TABLE_FILE = "tournament.md"
MANIFEST_FILE = "_tournament.json"
GAMES_DIR = "games"
PLAN_FILE = jobs.JOB_NAME
"""What the tournament is, written before the first pairing (:mod:`sim.run.jobs`)."""
PAIRINGS_LOG = jobs.LOG_NAME
"""One checksummed line per finished pairing: its counts (:meth:`sim.run.jobs.Job.log`)."""
KIND = "tournament"


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
    parts = text.split(",") if isinstance(text, str) else list(text)
    bots = [p.strip().lower() for p in parts if p.strip()]
    valid = valid_bots()
    listing = f"valid bots: {', '.join(valid)}"
    unknown = [b for b in bots if b not in valid]
    if unknown:
        names = ", ".join(repr(b) for b in dict.fromkeys(unknown))
        raise SpecError(f"unknown bot{'s' if len(unknown) > 1 else ''} {names}; {listing}")
    repeated = [b for b in dict.fromkeys(bots) if bots.count(b) > 1]
    if repeated:
        names = ", ".join(repr(b) for b in repeated)
        raise SpecError(f"--bots lists {names} more than once; name each bot once ({listing})")
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
    """A fresh directory ``results/tournament-<mix>-s<seed>-<YYYYMMDD-HHMMSS>``.

    Named like :func:`sim.run.runner.default_out_dir` (``+`` becomes ``_``, ``:`` becomes
    ``-``, and a ``-2``, ``-3``, ... suffix keeps two tournaments started in one
    second apart).
    """
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

    games: int = 0
    wins_a: int = 0
    wins_b: int = 0
    shared: int = 0
    first_player_wins: int = 0
    a_seat0: int = 0  # games with a in seat 0
    a_first: int = 0  # games a took the first turn (seat 0 of the first half in self-play)
    seats: SeatCounts = field(default_factory=SeatCounts)  # by seat order, whoever sat there
    # Games per first-player VP margin, whichever bot went first.
    margin_counts: dict[int, int] = field(default_factory=dict)

    @property
    def margins(self) -> MarginMoments:
        """The first player's VP margins over the pairing's games."""
        return moments_of_counts(self.margin_counts)

    def add(
        self,
        winner: np.ndarray,
        first: np.ndarray,
        a_seat: int,
        capped: np.ndarray | None = None,
        margin: np.ndarray | None = None,
    ) -> None:
        n = len(winner)
        b_seat = 1 - a_seat
        self.games += n
        self.wins_a += int(np.count_nonzero(winner == a_seat))
        self.wins_b += int(np.count_nonzero(winner == b_seat))
        self.shared += int(np.count_nonzero(winner == -1))
        self.first_player_wins += int(np.count_nonzero(winner == first))
        self.a_seat0 += n if a_seat == 0 else 0
        self.a_first += int(np.count_nonzero(first == a_seat))
        self.seats = self.seats + SeatCounts.from_arrays(winner, first, capped)
        if margin is not None:
            values, games = np.unique(margin, return_counts=True)
            for v, n in zip(values.tolist(), games.tolist(), strict=True):
                self.margin_counts[v] = self.margin_counts.get(v, 0) + n

    def margin_distribution(self) -> dict[str, Any]:
        """:func:`sim.run.margins.margin_distribution` of the pairing's first-player margins."""
        counts = self.margin_counts
        return margin_distribution(list(counts), list(counts.values()))


@dataclass(frozen=True)
class TournamentResult:
    """The numbers of a finished tournament, as DataFrames a notebook can use.

    Attributes:
        bots: the bots, in the order given (the matrix's row and column order).
        pairs: one row per pairing (see :func:`pairs_frame` for the columns).
        matrix: row bot's outright win rate against the column bot (``NaN`` on
            the diagonal); ``matrix_lo``/``matrix_hi`` hold its 95% interval.
        first_player: one row per self-play pairing: the first player's
            outright win rate with its 95% interval.
        settings: what was played (mix, variants, seed, games per pairing, ...).
        out: the directory the tables were written to, if any.
        ratings: one Bradley-Terry rating per bot on the Elo scale with its 95%
            interval, strongest first (:func:`sim.analysis.ratings.fit_ratings`).
    """

    bots: list[str]
    pairs: pd.DataFrame
    matrix: pd.DataFrame
    matrix_lo: pd.DataFrame
    matrix_hi: pd.DataFrame
    first_player: pd.DataFrame
    settings: dict[str, Any]
    out: Path | None = None
    ratings: pd.DataFrame | None = None

    def head_to_head(self) -> pd.DataFrame:
        """One row per ordered pair (bot, opponent), self-play left out: the matrix, tidy."""
        rows = []
        for r in self.pairs.itertuples(index=False):
            if r.self_play:
                continue
            for me, them, side, other in (
                (r.bot_a, r.bot_b, "a", "b"),
                (r.bot_b, r.bot_a, "b", "a"),
            ):
                d = r._asdict()
                rows.append(
                    {
                        "bot": me,
                        "opponent": them,
                        "games": r.games,
                        "wins": d[f"wins_{side}"],
                        "losses": d[f"wins_{other}"],
                        "shared": r.shared,
                        "rate": d[f"rate_{side}"],
                        "lo": d[f"lo_{side}"],
                        "hi": d[f"hi_{side}"],
                        "score": d[f"score_{side}"],
                    }
                )
        return pd.DataFrame(rows)


def pairs_frame(counts: Sequence[tuple[Pairing, _Counts]]) -> pd.DataFrame:
    """The tidy per-pairing table.

    Columns: ``bot_a``, ``bot_b``, ``self_play``, ``games``, ``wins_a``,
    ``wins_b``, ``shared``; ``rate_a``/``lo_a``/``hi_a`` (a's outright win
    rate and its 95% Wilson interval) and the same for ``b``; ``shared_rate``;
    ``score_a``/``score_b`` (shared victories as half a win);
    ``first_player_wins``, ``first_player_rate``, ``first_player_lo``,
    ``first_player_hi``; ``first_margin``, ``first_margin_lo``, ``first_margin_hi``,
    ``first_margin_sd`` (the first player's mean VP margin and its 95% t-interval,
    :class:`sim.run.margins.MarginMoments`), ``first_margin_p10`` ... ``first_margin_p90``
    and ``first_margin_ahead``, ``_level``, ``_behind`` (its quantiles and the shares of
    games the first player ended ahead, level and behind:
    :func:`sim.run.margins.margin_distribution`); ``games_a_seat0`` and ``games_a_first`` (how many
    games a sat in seat 0 and took the first turn: half of ``games`` in a
    pairing of two bots). In self-play ``a`` is seat 0 and ``b`` seat 1.
    :func:`play_tournament` adds ``mix``, ``variant`` and ``seed``.
    """
    rows = []
    for p, c in counts:
        lo_a, hi_a = wilson_interval(c.wins_a, c.games)
        lo_b, hi_b = wilson_interval(c.wins_b, c.games)
        lo_f, hi_f = wilson_interval(c.first_player_wins, c.games)
        margin = c.margins.figures()
        spread = c.margin_distribution()
        rows.append(
            {
                "bot_a": p.a,
                "bot_b": p.b,
                "self_play": p.self_play,
                "games": c.games,
                "wins_a": c.wins_a,
                "wins_b": c.wins_b,
                "shared": c.shared,
                "rate_a": c.wins_a / c.games,
                "lo_a": lo_a,
                "hi_a": hi_a,
                "rate_b": c.wins_b / c.games,
                "lo_b": lo_b,
                "hi_b": hi_b,
                "shared_rate": c.shared / c.games,
                "score_a": (c.wins_a + c.shared / 2) / c.games,
                "score_b": (c.wins_b + c.shared / 2) / c.games,
                "first_player_wins": c.first_player_wins,
                "first_player_rate": c.first_player_wins / c.games,
                "first_player_lo": lo_f,
                "first_player_hi": hi_f,
                "first_margin": margin["mean"],
                "first_margin_lo": margin["lo"],
                "first_margin_hi": margin["hi"],
                "first_margin_sd": margin["sd"],
                **{
                    f"first_margin_{k}": spread[k]
                    for k in spread
                    if k.startswith("p") or k in SIDES
                },
                **{
                    f"seat_{k}": v
                    for k, v in seat_columns(c.seats).items()
                    if k != "games" and not k.startswith("first_player_")
                },
                "games_a_seat0": c.a_seat0,
                "games_a_first": c.a_first,
            }
        )
    return pd.DataFrame(rows)


def _matrices(bots: list[str], pairs: pd.DataFrame) -> tuple[pd.DataFrame, ...]:
    shape = (len(bots), len(bots))
    mats = [np.full(shape, np.nan) for _ in range(3)]
    index = {b: i for i, b in enumerate(bots)}
    for r in pairs.itertuples(index=False):
        if r.self_play:
            continue
        i, j = index[r.bot_a], index[r.bot_b]
        for m, (x, y) in zip(
            mats, ((r.rate_a, r.rate_b), (r.lo_a, r.lo_b), (r.hi_a, r.hi_b)), strict=True
        ):
            m[i, j], m[j, i] = x, y
    return tuple(pd.DataFrame(m, index=pd.Index(bots, name="bot"), columns=bots) for m in mats)


def _first_player_frame(pairs: pd.DataFrame) -> pd.DataFrame:
    """The self-play pairings' first-player figures, one row a bot."""
    names = {"bot_a": "bot", "games": "games", "first_player_wins": "first_player_wins",
             "first_player_rate": "rate", "first_player_lo": "lo", "first_player_hi": "hi",
             "shared_rate": "shared_rate"}  # fmt: skip
    cols = [*names, *(c for p in ("seat_", "first_margin") for c in pairs if c.startswith(p))]
    sp = pairs.loc[pairs["self_play"].to_numpy(), cols].rename(columns=names)
    return sp.reset_index(drop=True)


def _specs(
    pairing: Pairing, games: int, mix: str, seed: int, variants: tuple[str, ...]
) -> list[RunSpec]:
    """The runs a pairing is made of: on duplicate deals, except where the Emissaries decide
    who goes first."""
    return [
        RunSpec(games=n, mix=mix, seed=seed, p0=p0, p1=p1, first="alternate",
                variants=variants, duplicate="emissary" not in variants)
        for p0, p1, n in pairing.halves(games)
    ]  # fmt: skip


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
    resume: bool = False,
) -> TournamentResult:
    """Play every pairing of ``bots`` (including self-play), ``games`` games each.

    The options are ``omensim tournament``'s (``games`` per pairing, a multiple of 4). With
    ``out`` the tables are written there as it goes (absent or empty, or an earlier
    tournament with ``force``; ``keep_games`` adds each half-run's games under
    ``out/games/``); without it a temporary folder is used. ``on_pairing(pairing, index,
    total)`` is called before each pairing; ``resume`` keeps the pairings the log records
    (use :func:`resume_tournament`).

    Raises:
        SpecError: bad bots, games, mix or variants (raised before anything is written).
        sim.data.cards.CardDataError: invalid card data.
        RunError: bad ``threads`` or an output directory that must not be used.
    """

    bots = parse_bots(list(bots))
    check_games(games)
    variants = tuple(variants)
    if keep_games and out is None:
        raise RunError("keeping each pairing's games needs an output directory")
    n_threads = resolve_threads(threads if backend is None else None)
    if out is None:  # one code path: a folder, a temporary one when none is asked for
        with tempfile.TemporaryDirectory(prefix="omensim-tournament-") as tmp:
            result = play_tournament(
                mix, bots, games, seed, variants, out=Path(tmp) / KIND, threads=threads,
                progress=progress, on_pairing=on_pairing, backend=backend,
            )  # fmt: skip
        return dataclasses.replace(result, out=None)
    out = io.local_out(out)
    if not resume:  # absent or empty, or an earlier tournament with force
        io.check_output_dir(
            out, force, ours=lambda e: e.name in TOURNAMENT_FILES, what="tournament"
        )
    plan = pairings(bots)
    specs = [_specs(p, games, mix, seed, variants) for p in plan]

    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    with numba_threads(n_threads), contextlib.ExitStack() as stack:
        show = P.wanted(progress)
        with P.kernel_ready(show):
            from sim.run.engine import Engine  # deferred: importing it loads numba code

            # Validate mix, variants and cards before any directory is made.
            first_engine = Engine(specs[0][0])
            first_engine.warmup()
        # Every pairing's games, at the first pairing's speed: refused up front if too many.
        total = games * len(plan)
        check_projected_time(first_engine, total, n_threads, backend_workers(backend))
        metadata = dict(first_engine.metadata)
        key = ledger.run_key(specs[0][0], metadata)  # the first half-run's
        if resume:
            job = stack.enter_context(jobs.Job.resume(out, KIND))
            job.check_key(key)
        else:
            doc = {"mix": mix, "bots": bots, "games": games, "seed": seed}
            doc |= {"variants": list(variants), "keep_games": keep_games}
            job = stack.enter_context(
                jobs.Job.start(out, KIND, doc, force=force, ours=TOURNAMENT_FILES, key=key)
            )
        logged = {i: _counts(e) for i, e in job.logged().items()}
        bar = stack.enter_context(P.Bar(games * len(plan), show, desc=KIND))
        bar.advance(games * len(logged))
        results: list[tuple[Pairing, _Counts]] = []
        for index, (pairing, halves) in enumerate(zip(plan, specs, strict=True)):
            if index in logged:
                results.append((pairing, logged[index]))
                continue
            if on_pairing is not None:
                on_pairing(pairing, index, len(plan))
            bar.describe(f"tournament {index + 1}/{len(plan)}: {pairing.a} vs {pairing.b}")
            counts = _Counts()
            for half, spec in enumerate(halves):
                engine = first_engine if (index, half) == (0, 0) else Engine(spec)
                a_seat = 0 if half == 0 else 1
                run_dir = out / GAMES_DIR / f"{spec.p0}-vs-{spec.p1}" if keep_games else None
                for winner, first, capped, margin in _play(
                    engine, spec, run_dir, n_threads, bar, backend
                ):
                    counts.add(winner, first, a_seat, capped, margin)
            results.append((pairing, counts))
            job.log(index, {"counts": dataclasses.asdict(counts)})
        seconds = time.perf_counter() - t0

        pairs = pairs_frame(results)
        # Say what was played in every row, so tables of several tournaments concatenate.
        pairs["mix"] = metadata.get("mix", mix)
        pairs["variant"] = ",".join(sorted(variants)) or "standard"
        pairs["seed"] = seed
        settings: dict[str, Any] = {
            "omensim_version": sim.__version__,
            "mix": metadata.get("mix", mix),
            "variant": ",".join(sorted(variants)) or "standard",
            "bots": bots,
            "games_per_pairing": games,
            "pairings": len(plan),
            "seed": seed,
            "duplicate_deals": "emissary" not in variants,
            "card_hash": metadata.get("card_hash", ""),
            "started": started,
            "seconds": round(seconds, 3),
            "threads": n_threads,
        }
        result = _result(bots, pairs, settings, out, fit_ratings(pairs, bots))
        write_tournament(result, out)
        job.finish()
    return result


def _counts(entry: dict[str, Any]) -> _Counts:
    """A pairing's counts back from its log entry."""
    fields = {f.name for f in dataclasses.fields(_Counts)}
    counts = {k: v for k, v in entry["counts"].items() if k in fields}
    counts["seats"] = SeatCounts(**counts["seats"])
    # JSON keys are text.
    counts["margin_counts"] = {int(k): int(v) for k, v in counts.get("margin_counts", {}).items()}
    return _Counts(**counts)


def resume_tournament(
    out: Path | str,
    threads: int | None = None,
    progress: bool | None = None,
    backend: Any = None,
) -> TournamentResult:
    """Finish the tournament in ``out``: keep its logged pairings, play the others.

    A pairing cut short is played again from its first game (with ``keep_games``
    its half-runs are rewritten). The tables equal an uninterrupted tournament's.

    Raises:
        RunError: no tournament plan in ``out``, a finished tournament, or a run key
            (spec, card hash, kernel source digest, version) that differs from the code's.
    """
    out = io.local_out(out)
    with jobs.Job.resume(out, KIND) as job:  # checked (and released) before playing
        plan = job.plan
    return play_tournament(
        plan["mix"], plan["bots"], int(plan["games"]), int(plan["seed"]),
        tuple(plan.get("variants", ())), out=out, keep_games=bool(plan.get("keep_games")),
        threads=threads, progress=progress, backend=backend, resume=True,
    )  # fmt: skip


COUNT_COLUMNS = ["winner", "first_player", "end_reason", "score_p0", "score_p1"]
"""What a pairing's counts read of each game."""


def _play(
    engine: Any,
    spec: RunSpec,
    run_dir: Path | None,
    n_threads: int,
    bar: P.Bar,
    backend: Any = None,
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Yield ``(winner, first_player, capped, margin)`` arrays of ``spec``'s games, chunk by
    chunk (``margin``: the first player's VP margin).

    With ``run_dir`` the games are written there as an ordinary run directory
    (by :func:`sim.run.runner.run`) and read back; otherwise they are played in memory.
    """
    if run_dir is not None:
        runner.run(spec, run_dir, threads=n_threads, progress=False, force=True, backend=backend)
        bar.advance(spec.games)
        if not io.is_complete(run_dir):
            raise io.IncompleteRunError(f"{run_dir} did not complete")
        # A few columns, a batch at a time: the counts need nothing else.
        tables: Any = scan(run_dir, COUNT_COLUMNS)
    elif backend is not None:
        tables = play_columns(backend, engine, COUNT_COLUMNS, spec.games, CHUNK_SIZE, bar=bar)
    else:
        tables = (
            engine.play(
                start, min(CHUNK_SIZE, spec.games - start), tick=lambda rows: bar.advance(len(rows))
            ).select(COUNT_COLUMNS)
            for start in range(0, spec.games, CHUNK_SIZE)
        )
    for table in tables:
        first = table.column("first_player").to_numpy().astype(np.int64)
        yield (
            table.column("winner").to_numpy().astype(np.int64),
            first,
            table.column("end_reason").cast(pa.string()).to_numpy(zero_copy_only=False) == CAPPED,
            first_player_margins(
                first, table.column("score_p0").to_numpy(), table.column("score_p1").to_numpy()
            ),
        )


def read_tournament(out: Path | str) -> TournamentResult:
    """A finished tournament directory back as a :class:`TournamentResult` (its tables and
    settings; ``pairs`` as ``tournament.parquet`` holds them).

    Raises:
        RunError: ``out`` holds no finished tournament (``_tournament.json``).
    """
    out = Path(out)
    try:
        jobs.verify(out, KIND)
        manifest = io.read_json_file(out / MANIFEST_FILE)
    except FileNotFoundError:
        raise RunError(f"{out} holds no finished tournament ({MANIFEST_FILE})") from None
    skip = {"format", "format_version", "ratings", "files", "finished"}
    settings = {k: v for k, v in manifest.items() if k not in skip}
    ratings = read_ratings(out) if (out / RATINGS_FILE).is_file() else None
    return _result(list(manifest["bots"]), read_pairs(out), settings, out, ratings)


def _result(
    bots: list[str],
    pairs: pd.DataFrame,
    settings: dict[str, Any],
    out: Path | None,
    ratings: pd.DataFrame | None,
) -> TournamentResult:
    """The result whose matrices and first-player table are read off ``pairs``."""
    matrix, lo, hi = _matrices(bots, pairs)
    return TournamentResult(
        bots, pairs, matrix, lo, hi, _first_player_frame(pairs), settings, out, ratings
    )


TOURNAMENT_FILES = (
    PAIRS_FILE, RATINGS_FILE, TABLE_FILE, MANIFEST_FILE, GAMES_DIR, PLAN_FILE, PAIRINGS_LOG,
)  # fmt: skip


def write_tournament(result: TournamentResult, out: Path | str) -> Path:
    """Write ``tournament.parquet`` (the pairs), ``tournament.md`` and ``_tournament.json``.

    The settings go into the Parquet file's key-value metadata too. Returns ``out``.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pandas(result.pairs, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[b"omensim_tournament"] = json.dumps(result.settings).encode()
    # Each file atomically; the manifest last, so its presence says the tables are whole.
    with io.atomic_path(out / PAIRS_FILE) as tmp:
        io.write_parquet(table.replace_schema_metadata(meta), tmp)
    files = [PAIRS_FILE, TABLE_FILE]
    ratings: list[dict[str, Any]] = []
    if result.ratings is not None:
        with io.atomic_path(out / RATINGS_FILE) as tmp:
            result.ratings.to_parquet(tmp, index=False)
        files.append(RATINGS_FILE)
        ratings = [
            {"bot": r.bot, "elo": round(r.elo, 1), "lo": round(r.lo, 1), "hi": round(r.hi, 1)}
            for r in result.ratings.itertuples(index=False)
        ]
    with io.atomic_path(out / TABLE_FILE) as tmp:
        tmp.write_text(format_tournament(result), encoding="utf-8")
    manifest = {
        "format": "omensim-tournament",
        "format_version": 1,
        **result.settings,
        "ratings": ratings,
        "files": files,
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    with io.atomic_path(out / MANIFEST_FILE) as tmp:
        tmp.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return out


def read_pairs(out: Path | str) -> pd.DataFrame:
    """The per-pairing table of a tournament directory (``tournament.parquet``)."""
    return pd.read_parquet(Path(out) / PAIRS_FILE)


def read_ratings(out: Path | str) -> pd.DataFrame:
    """The ratings of a tournament directory (``ratings.parquet``), strongest first."""
    return pd.read_parquet(Path(out) / RATINGS_FILE)

