"""Option types and option groups shared by several commands."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sim.cli.errors import EXIT_USAGE, CliError
from sim.data.cards import CONFIG_DIR, normal_mix
from sim.data.spec import (
    FIRST_MODES,
    GOD_MODES,
    VARIANTS,
    RunSpec,
    games_problem,
    path_problem,
)
from sim.run.progress import wanted

if TYPE_CHECKING:  # the backends load the engine; --help should not
    from sim.run.backends import Backend
    from sim.run.jobs import Recorded


class GameCount(click.ParamType):
    """A positive whole number of games, written as ``250000``, ``1_000`` or ``1e6``
    (read by :func:`sim.data.spec.games_problem`, as the API reads ``games``)."""

    name = "N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        n, problem = games_problem(value)
        if problem:
            self.fail(problem, param, ctx)
        return n


def check_threads(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """Reject more threads than numba may start (it would fail deep inside otherwise)."""
    if value is None:
        return None
    import numba  # only when --threads is given, so --help stays fast

    limit = int(numba.config.NUMBA_NUM_THREADS)
    if value > limit:
        raise click.BadParameter(
            f"at most {limit} on this machine (numba's NUMBA_NUM_THREADS), got {value}",
            ctx,
            param,
        )
    return value


def split_variants(values: tuple[str, ...]) -> tuple[str, ...]:
    """``("emissary", "a,b")`` -> ``("emissary", "a", "b")``, without blanks or repeats."""
    seen: dict[str, None] = {}
    for value in values:
        for part in value.split(","):
            part = part.strip().lower()
            if part:
                seen[part] = None
    return tuple(seen)


def check_until_ci(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not 0 < value < 0.5:
        raise click.BadParameter(
            f"must be a half-width between 0 and 0.5 (exclusive), e.g. 0.005; got {value:g}",
            ctx,
            param,
        )
    return value


PLAN_FLOOR = 1e-19
"""The narrowest ``--plan`` half-width: over the at most 2**62 games of a run, an interval
that varies at all is never narrower (about 1.96 / 2**62, 4e-19, when a single game
differs), and from it up the pilot's scaling ``(pilot width / HALF_WIDTH)**2`` stays a
finite float."""


def check_plan(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """``--until-ci``'s bounds, and :data:`PLAN_FLOOR` below: a plan prints the games the
    half-width needs, which must be a number."""
    check_until_ci(ctx, param, value)
    if value is not None and value < PLAN_FLOOR:
        raise click.BadParameter(
            f"must be a half-width of at least {PLAN_FLOOR:g} (no interval over the at most "
            f"2**62 games of a run is narrower), got {value:g}",
            ctx,
            param,
        )
    return value


def sizing_options(what: str) -> Callable[[Any], Any]:
    """``--until-ci HALF_WIDTH`` and ``--plan HALF_WIDTH`` of ``compare`` and ``sweep``
    (:mod:`sim.analysis.sizing`); ``what`` names the command's headline intervals."""

    def wrap(f: Any) -> Any:
        f = click.option(
            "--plan",
            type=float,
            default=None,
            callback=check_plan,
            metavar="HALF_WIDTH",
            help=f"Play a short pilot, then print the games {what} need for a 95% interval "
            f"of +/- HALF_WIDTH each (e.g. 0.005; from {PLAN_FLOOR:g} up to 0.5) and the time "
            "that takes on this machine; "
            "nothing else is played, unless --until-ci is also given (then it follows).",
        )(f)
        return click.option(
            "--until-ci",
            type=float,
            default=None,
            callback=check_until_ci,
            metavar="HALF_WIDTH",
            help=f"Stop once {what} have a 95% interval of at most +/- HALF_WIDTH (e.g. "
            "0.005), checked after every kernel call; --games is the ceiling. Resumable "
            "with --out like any other run of the command.",
        )(f)

    return wrap


THREADS_HELP = "Worker threads for the kernel. Default: all cores. Results do not depend on it."
VARIANT_HELP = (
    f"Rule variant(s) to switch on; repeat or comma-separate. Known: {', '.join(VARIANTS)}."
)


def mix_option(help: str) -> Any:
    """``--mix``: the card sets of the games (each command says what they are for)."""
    return click.option("--mix", default="aegean", show_default=True, help=help)


def seat_help(seat: int) -> str:
    """The help of a seat's strategy option: the bots it takes, named from the profiles in
    ``configs/strategies`` (and the built-in ``random``), so a new profile is listed too."""
    names = ", ".join(
        ["random", *sorted(p.stem for p in (CONFIG_DIR / "strategies").glob("*.toml"))]
    )
    return f"Strategy of seat {seat}: a bot ({names}) or the path of a profile .toml."


def first_option(help: str = "Who takes the first turn.") -> Any:
    """``--first``: who takes the first turn (``FIRST_MODES``), alternating by default."""
    return click.option(
        "--first",
        type=click.Choice(FIRST_MODES),
        default="alternate",
        show_default=True,
        help=help,
    )


def chunk_size_option(help: str) -> Any:
    """``--chunk-size``: games per kernel call (and per Parquet part where a command writes
    them); results never depend on it."""
    return click.option(
        "--chunk-size", type=click.IntRange(min=1), default=1 << 16, show_default=True, help=help
    )


def games_option(default: int, help: str) -> Any:
    """``--games/-n N``: how many games (1e5, 250_000 accepted), as each command counts them."""
    return click.option(
        "--games", "-n", type=GameCount(), default=default, show_default=True, help=help
    )


def seed_option(help: str) -> Any:
    """``--seed``: the run seed (game i depends only on (seed, i))."""
    return click.option("--seed", type=int, default=0, show_default=True, help=help)


GODS_HELP = (
    "Heir to the Dunes: which god each seat serves. 'alternate' changes seat 0's god every "
    "second deal, so seat, god and first player are not confounded; 'anubis,horus' (seat 0 "
    "Anubis, seat 1 Horus) or 'horus,anubis' fixes them. Rows record god_p0 and god_p1."
)


def gods_option(help: str = GODS_HELP) -> Any:
    """``--gods``: how the Heir to the Dunes gods go to the seats (``sim.data.spec.GOD_MODES``)."""
    return click.option(
        "--gods",
        type=click.Choice(GOD_MODES, case_sensitive=False),
        default="alternate",
        show_default=True,
        help=help,
    )


def check_variant_names(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> tuple[str, ...]:
    """Refuse a ``--variant`` (or ``--b-variant``) value with an empty name in it: a blank
    value names no variant and ``emissary,`` a slip, so neither is read as a name; the
    names themselves are checked where they are played."""
    known = ", ".join(VARIANTS) + (", or standard for none" if param.name == "b_variants" else "")
    for value in values:
        if not value.strip():
            raise click.BadParameter(
                f"{value!r} names no variant; name one ({known}) or drop {long_name(param)}",
                ctx,
                param,
            )
        if any(not part.strip() for part in value.split(",")):
            raise click.BadParameter(
                f"{value!r} has an empty variant name; separate the names with single commas",
                ctx,
                param,
            )
    return values


def variant_option(help: str = VARIANT_HELP) -> Any:
    """``--variant NAME[,NAME]``, repeatable; read it with :func:`split_variants`."""
    return click.option(
        "--variant",
        "variants",
        multiple=True,
        metavar="NAME[,NAME]",
        callback=check_variant_names,
        help=help,
    )


def threads_option(help: str = THREADS_HELP) -> Any:
    """``--threads/-j``: numba worker threads, checked against ``NUMBA_NUM_THREADS``."""
    return click.option(
        "--threads",
        "-j",
        type=click.IntRange(min=1),
        default=None,
        callback=check_threads,
        help=help,
    )


class OutLocation(click.Path):
    """A local folder (a :class:`pathlib.Path`) or, where allowed, an fsspec URL.

    A URL becomes :func:`sim.run.storage.location`'s value; a command that cannot
    write to one refuses it here, in one line.
    """

    def __init__(self, url_ok: bool = False, file_okay: bool = False) -> None:
        super().__init__(path_type=Path, file_okay=file_okay)
        self.url_ok = url_ok

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        from sim.run import io, storage  # deferred: loads pyarrow

        if isinstance(value, Path | storage.UrlPath):
            return value
        problem = io.out_problem(value)
        if problem:
            self.fail(problem.removeprefix("--out ").removeprefix("is "), param, ctx)
        if isinstance(value, str) and storage.is_url(value):
            if not self.url_ok:
                name = ctx.info_name if ctx is not None else "this command"
                self.fail(f"{value}: `omensim {name}` takes only a local folder here, not a URL")
            try:
                return io.out_location(value)
            except io.RunError as exc:
                self.fail(str(exc).removeprefix("--out "), param, ctx)
        return super().convert(io.out_location(value), param, ctx)


class InputPath(click.Path):
    """A file (or with ``dir_okay``, a folder) the command reads: an empty path is refused
    here (:func:`sim.data.spec.path_problem`), not read as the current folder."""

    def __init__(self, dir_okay: bool = False, path_type: type | None = None) -> None:
        super().__init__(dir_okay=dir_okay, path_type=path_type)

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        problem = path_problem(value)
        if problem:
            self.fail(problem, param, ctx)
        return super().convert(value, param, ctx)


def out_option(help: str, url_ok: bool = False) -> Any:
    """``--out/-o DIR``: where a command writes (each command says what and its default).

    ``url_ok``: the command also writes to an fsspec URL (``memory://``, ``s3://``, ...).
    """
    return click.option("--out", "-o", type=OutLocation(url_ok), default=None, help=help)


NOTHING_WRITTEN = "nothing is written"
"""What a command that writes only to ``--out`` does without it (:func:`force_option`)."""


def force_option(what: str, without_out: str | None = NOTHING_WRITTEN) -> Any:
    """``--force``: replace an earlier ``what`` (a run, a report, ...) in ``--out``.

    ``without_out``: what the command does when ``--out`` is not given (nothing is
    written, or it makes a new folder of its own), said by the help and by the refusal of
    ``--force`` without ``--out``, where there is nothing for it to replace; None for a
    command whose ``--out`` is required. ``--force`` beside ``--resume`` is left to
    :func:`check_resume_options`, which refuses it as an option the resume would not read.
    """
    if without_out is None:
        return click.option("--force", is_flag=True, help=f"Replace an earlier {what} in --out.")

    def wrap(f: Any) -> Any:
        @functools.wraps(f)  # keeps click's list of the options declared so far
        def command(*args: Any, **kw: Any) -> Any:
            # Checked once every option is read: click reads them in the order typed, so
            # no callback of --force or --out is sure to see both.
            if kw["force"] and kw["out"] is None and kw.get("resume") is None:
                raise CliError(
                    f"--force replaces an earlier {what} in --out; without --out "
                    f"{without_out}: drop --force",
                    EXIT_USAGE,
                )
            return f(*args, **kw)

        return click.option(
            "--force",
            is_flag=True,
            help=f"Replace an earlier {what} in --out. Only with --out: without it {without_out}.",
        )(command)

    return wrap


def rules_option(help: str, metavar: str | None = None) -> Any:
    """``--rules FILE``: a house-rules file (configs/rules/) overriding named rule parameters."""
    return click.option(
        "--rules",
        "rules_file",
        type=InputPath(),
        default=None,
        metavar=metavar,
        help=help,
    )


def resume_option(metavar: str, help: str, url_ok: bool = False) -> Any:
    """``--resume DIR``: finish an interrupted command from what it wrote to DIR (its help
    also says what :func:`check_resume_options` holds to).

    ``url_ok``: DIR may be an fsspec URL (see :class:`OutLocation`).
    """
    return click.option(
        "--resume",
        type=OutLocation(url_ok),
        default=None,
        metavar=metavar,
        help=f"{help} Any other option given with it must equal the one {metavar} recorded "
        "(how to play, such as --threads or --quiet, may differ).",
    )


def exclude_capped_option(help: str) -> Any:
    """``--exclude-capped``: leave turn-capped games out (each command says out of what)."""
    return click.option("--exclude-capped", is_flag=True, help=help)


def change_options(f: Any) -> Any:
    """--change and --cards: designer edits to the cards (sim/data/changes.py)."""
    f = click.option(
        "--cards",
        "card_files",
        multiple=True,
        type=InputPath(),
        metavar="FILE",
        help="A set file (schema of configs/sets/*.toml) that replaces the set of the mix "
        "with the same [set] name. Repeatable.",
    )(f)
    return click.option(
        "--change",
        multiple=True,
        metavar="'CARD.FIELD=N'",
        help="Edit one unit before compiling, e.g. 'Moonlight Channeler.cost=3'; a signed "
        "value is relative ('...cost=+1'). Fields: cost, offering, strength, copies. "
        "Repeatable.",
    )(f)


def game_spec(
    games: int,
    mix: str,
    seed: int,
    p0: str,
    p1: str,
    first: str,
    variants: tuple[str, ...],
    **extra: Any,
) -> RunSpec:
    """The RunSpec the game options name (``extra``: further RunSpec fields, as ``run``'s)."""
    return RunSpec(
        games=games,
        mix=mix,
        seed=seed,
        p0=p0,
        p1=p1,
        first=first,
        variants=split_variants(variants),
        **extra,
    )


def packed_into(name: str, cls: type) -> Callable[[Any], Any]:
    """Hand a command the values of ``cls``'s fields (options declared below this
    decorator) as one argument ``name``, a ``cls``, instead of one argument each."""
    fields = [field.name for field in dataclasses.fields(cls)]

    def wrap(f: Any) -> Any:
        @functools.wraps(f)  # keeps click's list of the options declared so far
        def command(*args: Any, **kw: Any) -> Any:
            values = {key: kw.pop(key) for key in fields}
            return f(*args, **{name: cls(**values)}, **kw)

        return command

    return wrap


@dataclass(frozen=True)
class GameArgs:
    """The values of :func:`game_options`, handed to a command as its ``game`` argument."""

    games: int
    mix: str
    seed: int
    p0: str
    p1: str
    first: str
    gods: str
    variants: tuple[str, ...]
    threads: int | None
    chunk_size: int
    quiet: bool
    force_progress: bool

    def spec(self, **extra: Any) -> RunSpec:
        """The RunSpec these options name (``extra``: further RunSpec fields)."""
        g = self
        extra = {"gods": g.gods, **extra}
        return game_spec(g.games, g.mix, g.seed, g.p0, g.p1, g.first, g.variants, **extra)

    @property
    def progress(self) -> bool:
        """Whether to draw the progress bar (:func:`show_progress`)."""
        return show_progress(self.quiet, self.force_progress)


def game_options(default_games: int) -> Any:
    """The options naming the games (shared by compare and sweep), handed to the command
    as one :class:`GameArgs` argument ``game``."""

    def wrap(f: Any) -> Any:
        opts = [
            click.option(
                "--games",
                "-n",
                type=GameCount(),
                default=default_games,
                show_default=True,
                help="Games each table plays (the same game indices for every table).",
            ),
            mix_option("Card sets, joined by '+', e.g. 'aegean' or 'dunes+aegean'."),
            seed_option("Seed shared by all tables."),
            click.option("--p0", default="greedy", show_default=True, help=seat_help(0)),
            click.option("--p1", default="greedy", show_default=True, help=seat_help(1)),
            first_option(),
            gods_option(),
            variant_option(f"Rule variant(s); known: {', '.join(VARIANTS)}."),
            threads_option("Worker threads for the kernel. Default: all cores."),
            chunk_size_option(
                "Games per kernel call (and Parquet part). Results do not depend on it."
            ),
            click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors."),
            click.option(
                "--progress",
                "force_progress",
                is_flag=True,
                help="Draw the progress bar on stderr even when it is not a terminal.",
            ),
        ]
        f = packed_into("game", GameArgs)(f)
        for opt in reversed(opts):
            f = opt(f)
        return f

    return wrap


@dataclass(frozen=True)
class BackendArgs:
    """The values of :func:`backend_options`, handed to a command as its ``backend``."""

    backend: str
    scheduler: str | None
    workers: int | None

    def open(self, threads: int | None) -> AbstractContextManager[Backend | None]:
        """:func:`sim.run.backends.open_backend` for these options and ``threads``."""
        from sim.run.backends import open_backend  # deferred: loads pyarrow

        return open_backend(self.backend, threads, self.scheduler, self.workers)


def backend_options(f: Any) -> Any:
    """--backend, --scheduler and --workers: where the chunks are played (sim/run/backends.py),
    handed to the command as one :class:`BackendArgs` argument ``backend``."""
    f = packed_into("backend", BackendArgs)(f)
    f = click.option(
        "--workers",
        type=click.IntRange(min=1),
        default=None,
        help="With --backend dask and no --scheduler: worker processes of the local "
        "cluster (default: one per core; each gets cores/workers numba threads).",
    )(f)
    f = click.option(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="With --backend dask: address of a running Dask scheduler "
        "(e.g. tcp://10.0.0.5:8786). Without it a local cluster sized to this machine starts.",
    )(f)
    return click.option(
        "--backend",
        type=click.Choice(["local", "dask"]),
        default="local",
        show_default=True,
        help="Where games are played: this process's threads, or Dask workers "
        "(needs pip install -e '.[dask]'). Rows are identical either way.",
    )(f)


def progress_option(f: Any) -> Any:
    """--progress: draw the live bar even when stderr is not a terminal."""
    return click.option(
        "--progress",
        "force_progress",
        is_flag=True,
        help="Draw the live progress bar on stderr even when it is not a terminal "
        "(by default it is drawn only on a terminal; --quiet wins over this).",
    )(f)


def show_progress(quiet: bool, force_progress: bool) -> bool:
    """Whether a command draws its progress bar: never quiet, else forced or on a terminal."""
    return wanted(True if force_progress else None, quiet=quiet)


PANEL_HELP = (
    "Answer the question under each of these bots, comma-separated (e.g. "
    "'greedy,economic,lookahead'): every bot plays itself on the same seed and games, one "
    "run directory per bot under --out, then a table per bot and whether the answer holds "
    "under all of them. Not with --p0/--p1."
)


def long_name(param: click.Parameter) -> str:
    """The option as the command line spells it in a message (``--panel``, not ``-p``)."""
    return next((o for o in param.opts if o.startswith("--")), param.opts[0])


def parse_panel_option(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> tuple[str, ...] | None:
    """``--panel a,b`` -> ``("a", "b")``; a blank list, an empty name or a bot named twice
    is a usage error."""
    if value is None:
        return None
    from sim.analysis.panel import parse_panel  # deferred: loads pandas

    try:
        return parse_panel(value, long_name(param))
    except ValueError as exc:  # its message names the option already
        raise click.UsageError(str(exc), ctx) from None


def panel_option(help: str = PANEL_HELP) -> Any:
    """``--panel BOT,BOT,...``: the same question under each bot (see sim/analysis/panel.py)."""
    return click.option(
        "--panel",
        default=None,
        metavar="BOT[,BOT...]",
        callback=parse_panel_option,
        help=help,
    )


def typed(ctx: click.Context, *names: str) -> list[str]:
    """Those of the options ``names`` (parameter names) the user gave, in order: typed or
    from the environment, not left at their defaults."""
    from click.core import ParameterSource  # deferred: only when options are checked

    return [n for n in names if ctx.get_parameter_source(n) not in (None, ParameterSource.DEFAULT)]


def check_panel_seats(
    ctx: click.Context, panel: tuple[str, ...] | None, seats: tuple[str, ...] = ("p0", "p1")
) -> None:
    """Refuse ``--panel`` with a seat option (``seats``): a panel sets both seats to each bot."""
    if not panel:
        return
    given = [f"--{name.replace('_', '-')}" for name in typed(ctx, *seats)]
    if given:
        raise click.UsageError(
            f"--panel plays each bot against itself, so it cannot be combined with "
            f"{' and '.join(given)}; drop one or the other",
            ctx,
        )


def check_until_ci_steps(ctx: click.Context, until_ci: float | None) -> None:
    """Refuse ``--chunk-size`` and ``--backend dask`` beside ``--until-ci`` of ``compare`` and
    ``sweep``: they look after every kernel call of this process and keep each call's rows,
    so neither would apply (refused before a Dask cluster is started)."""
    if until_ci is not None and ctx.params.get("backend") == "dask":
        raise CliError(
            "--until-ci looks after every kernel call in this process: drop --backend dask",
            EXIT_USAGE,
        )
    if until_ci is not None and typed(ctx, "chunk_size"):
        raise CliError(
            "--until-ci looks after every kernel call, whatever --chunk-size says; drop "
            "--chunk-size",
            EXIT_USAGE,
        )


RESUME_KEEPS = frozenset(
    {"resume", "threads", "quiet", "force_progress", "backend", "scheduler", "workers"}
)
"""The options ``--resume`` takes as given: how to play, never what is played."""


def normal_at(path: str, normal: Callable[[Any], Any]) -> Recorded:
    """Where a plan records an option (the dotted ``path``) that the command reads through
    ``normal`` before it plays it: the plan's value and the one typed are compared as
    ``normal`` gives them, so another spelling of the recorded plan resumes it (a refusal
    shows the plan's value as recorded)."""
    from sim.run.jobs import Recorded, at  # deferred: loads pyarrow

    recorded = at(path).read

    def same(plan: Mapping[str, Any], value: Any) -> bool:
        try:
            was = normal(recorded(plan))
        except (TypeError, AttributeError):  # a plan of another shape is not this plan
            return False
        return bool(was == normal(value))

    return Recorded(recorded, same=same)


def mix_recorded(path: str) -> Recorded:
    """Where a plan records ``--mix`` (the dotted ``path``), read as
    :func:`sim.data.cards.normal_mix` reads it: ``AEGEAN`` resumes a job started with
    ``aegean``."""
    return normal_at(path, normal_mix)


def spec_recorded(arm: str = "spec") -> dict[str, Recorded]:
    """Where a plan records the game options of one arm's RunSpec (``arm``: its key in the
    plan), each as the command writes it there (for :func:`check_resume_options`)."""
    from sim.run.jobs import at  # deferred: loads pyarrow

    return {
        **{name: at(f"{arm}.{name}") for name in ("games", "seed", "p0", "p1", "first")},
        "mix": mix_recorded(f"{arm}.mix"),
        "gods": at(f"{arm}.gods"),
        "variants": at(f"{arm}.variants", split_variants),
        "rules_file": at(f"{arm}.rules"),
    }


def changes_recorded(key: str) -> dict[str, Recorded]:
    """Where a plan records ``--change`` and ``--cards`` (``key``: its
    :meth:`sim.data.changes.Changes.describe` in the plan), as the command reads them: each
    edit as :func:`sim.data.changes.normal_change` reads it, in order."""
    from sim.data.changes import normal_change  # deferred: only with --resume
    from sim.run.jobs import at  # deferred: loads pyarrow

    def edits(texts: Any) -> list[str]:
        return [normal_change(t) for t in texts]

    return {
        "change": normal_at(f"{key}.change", edits),
        "card_files": at(f"{key}.cards", lambda paths: [str(Path(p)) for p in paths]),
    }


def check_resume_options(folder: Path, where: Mapping[str, Recorded]) -> None:
    """Refuse, with ``--resume``, an option typed on the command line that differs from the
    one the folder recorded when it started (a resume continues the recorded plan; an
    option it would ignore is refused rather than dropped without a word).

    ``where``: where the folder's plan (a job's ``plan``, or a run's manifest) records each
    of the command's options and how (:func:`sim.run.jobs.given_options`); an option not
    in it is one the resume ignores. The refusal names the option as the command line
    spells it.
    """
    from click.core import ParameterSource  # deferred: only with --resume

    ctx = click.get_current_context()
    typed = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    given = {
        name: value
        for name, value in ctx.params.items()
        if name not in RESUME_KEEPS and ctx.get_parameter_source(name) in typed
    }
    if not given:
        return
    from sim.run import io, jobs  # deferred: loads pyarrow

    recorded: Mapping[str, Any] = {}
    try:
        if jobs.is_job(folder):
            recorded = jobs.read_job(folder)["plan"]
        elif io.is_regular(Path(folder) / io.MANIFEST_NAME):
            recorded = io.read_manifest(folder)
    except (OSError, ValueError):
        pass  # the resume itself names what is wrong with the folder
    names = {p.name: long_name(p) for p in ctx.command.params if p.name is not None and p.opts}
    problem = jobs.given_options(recorded, given, where, names)
    if problem:
        raise CliError(problem, EXIT_USAGE)
