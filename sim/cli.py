"""The ``omensim`` command line.

Every error a user can cause ends in exactly one line ``Error: ...`` on
stderr and a non-zero exit status, never a traceback:

* 2 for a bad command line or an impossible run description (unknown mix,
  variant or strategy, malformed ``--games``),
* 1 for everything else the user controls (bad card data, an output
  directory that exists or cannot be written),
* 130 when interrupted with Ctrl-C.

Heavy modules (numba, the engine) are imported inside the commands so that
``omensim --help`` answers at once.
"""

from __future__ import annotations

import re
import sys
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, NoReturn

import click

from sim import __version__
from sim.spec import FIRST_MODES, VARIANTS, RunSpec, SpecError

EXIT_USAGE = 2
EXIT_ERROR = 1
EXIT_INTERRUPTED = 130

# game_id is stored as int64; keep well clear of it.
MAX_GAMES = 2**62


class CliError(click.ClickException):
    """A user-caused failure with its own exit status; printed as one ``Error:`` line."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _one_line(message: str) -> str:
    # Our contract is one line on stderr; squash any stray newlines from library messages.
    return " ".join(message.split())


def _fail(message: str, exit_code: int) -> NoReturn:
    click.echo(f"Error: {_one_line(message)}", err=True)
    sys.exit(exit_code)


class _OneLineErrorsGroup(click.Group):
    """A click group that reports every ClickException as a single ``Error:`` line.

    Click's default prints the usage synopsis and a "Try --help" hint above the
    error; we keep to one line so scripts and people see the reason at once.
    """

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            exc.show()  # bare `omensim`: the help text is the useful answer
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except click.Abort:
            _fail("interrupted", EXIT_INTERRUPTED)
        # In non-standalone mode click returns the exit code of --help/--version as an int.
        sys.exit(rv if isinstance(rv, int) else 0)


class GameCount(click.ParamType):
    """A positive whole number of games, written as ``250000``, ``1_000`` or ``1e6``."""

    name = "N"
    _SCI = re.compile(r"^\+?(\d+(\.\d*)?|\.\d+)[eE][+-]?\d+$")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            n = value
        else:
            text = str(value).strip()
            try:
                n = int(text)  # also accepts underscores: 1_000
            except ValueError:
                n = self._from_scientific(text, param, ctx)
        if n < 1:
            self.fail(f"must be a positive whole number of games, got {value!r}", param, ctx)
        if n > MAX_GAMES:
            self.fail(f"must be at most 2**62, got {value!r}", param, ctx)
        return n

    def _from_scientific(
        self, text: str, param: click.Parameter | None, ctx: click.Context | None
    ) -> int:
        if self._SCI.match(text.replace("_", "")):
            try:
                d = Decimal(text.replace("_", ""))
            except InvalidOperation:
                d = None
            # Compare before converting: int(Decimal("1e999999999")) would never finish.
            if d is not None and d <= MAX_GAMES and d == d.to_integral_value():
                return int(d)
            if d is not None and d > MAX_GAMES:
                self.fail(f"must be at most 2**62, got {text!r}", param, ctx)
        self.fail(
            f"must be a whole number of games such as 250000, 1_000 or 1e6, got {text!r}",
            param,
            ctx,
        )


def _check_threads(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
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


def _split_variants(values: tuple[str, ...]) -> tuple[str, ...]:
    """``("emissary", "a,b")`` -> ``("emissary", "a", "b")``, without blanks or repeats."""
    seen: dict[str, None] = {}
    for value in values:
        for part in value.split(","):
            part = part.strip().lower()
            if part:
                seen[part] = None
    return tuple(seen)


@click.group(cls=_OneLineErrorsGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="omensim")
def main() -> None:
    """Monte Carlo simulator for the Omen card games.

    Plays many bot-vs-bot games of Omen (A Reign of War, Edge of the Aegean,
    Heir to the Dunes and mixes of them) and writes one row per game to
    Parquet, ready for pandas.

    \b
    Examples:
      omensim run --games 1e6 --mix aegean --seed 1
      omensim cards --mix dunes+aegean
      omensim replay results/demo --game 123
    """


@main.command("run", short_help="Play games and write them to Parquet.")
@click.option(
    "--games",
    "-n",
    type=GameCount(),
    default=100_000,
    show_default=True,
    help="Number of games to play; 250000, 1_000 and 1e6 are all accepted.",
)
@click.option(
    "--mix",
    default="aegean",
    show_default=True,
    help="Card sets joined by '+', the first being the base; SET:N adds N random unit "
    "cards of that set (drawn with --seed). E.g. 'aegean', 'dunes+aegean:10'.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Run seed; game i depends only on (seed, i), so a run is reproducible anywhere.",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Run directory to write (must be absent or empty unless --force). "
    "Default: a new results/<mix>-s<seed>-<date>-<time>.",
)
@click.option(
    "--p0",
    default="greedy",
    show_default=True,
    help="Strategy for player 0 (seat 0): greedy or random.",
)
@click.option(
    "--p1",
    default="greedy",
    show_default=True,
    help="Strategy for player 1 (seat 1): greedy or random.",
)
@click.option(
    "--first",
    type=click.Choice(FIRST_MODES),
    default="alternate",
    show_default=True,
    help="Who takes the first turn: always p0, always p1, alternate game by game, "
    "or random per game.",
)
@click.option(
    "--variant",
    "variants",
    multiple=True,
    metavar="NAME[,NAME]",
    help=f"Rule variant(s) to switch on; repeat or comma-separate. Known: {', '.join(VARIANTS)}.",
)
@click.option(
    "--decks",
    type=click.Path(dir_okay=False),
    default=None,
    help="Deck-list file (TOML: p0 = [10 kind names], p1 = [...]) for --variant constructed.",
)
@click.option(
    "--rules",
    "rules_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="House-rules TOML file whose [rules] table overrides named rule parameters "
    "(e.g. tiles_per_city = 3); see configs/rules/.",
)
@click.option(
    "--duplicate",
    is_flag=True,
    help="Play every deal twice, the other seat going first the second time (same "
    "shuffles, same random draws per seat); rows carry a deal_id linking the pair.",
)
@click.option(
    "--threads",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    callback=_check_threads,
    help="Worker threads for the kernel. Default: all cores. Results do not depend on it.",
)
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    default=1 << 16,
    show_default=True,
    help="Games per Parquet part and per kernel call; trades memory for overhead. "
    "Results do not depend on it.",
)
@click.option("--force", is_flag=True, help="Replace an earlier run in --out.")
@click.option("--quiet", "-q", is_flag=True, help="No progress line and no summary.")
def run_cmd(
    games: int,
    mix: str,
    seed: int,
    out: Path | None,
    p0: str,
    p1: str,
    first: str,
    variants: tuple[str, ...],
    decks: str | None,
    rules_file: str | None,
    duplicate: bool,
    threads: int | None,
    chunk_size: int,
    force: bool,
    quiet: bool,
) -> None:
    """Play bot-vs-bot games and write one Parquet row per game.

    The run directory gets part-*.parquet files and a _manifest.json that says
    "complete": true only once every game is written. A summary with the
    first-player win rate and its 95% confidence interval is printed at the end.

    \b
    Example:
      omensim run --games 1e6 --mix aegean --seed 1 --variant emissary --out results/emissary
      python -c 'import pandas as pd; print(pd.read_parquet("results/emissary").winner.mean())'
    """
    from sim import runner
    from sim.cards import CardDataError

    try:
        spec = RunSpec(
            games=games,
            mix=mix,
            seed=seed,
            p0=p0,
            p1=p1,
            first=first,
            variants=_split_variants(variants),
            decks=decks,
            rules=rules_file,
            duplicate=duplicate,
        )
        # Chosen here rather than inside run() so messages can name it.
        out = out if out is not None else runner.default_out_dir(spec)
        result = runner.run(
            spec,
            out,
            threads=threads,
            chunk_size=chunk_size,
            force=force,
            progress=False if quiet else None,
        )
    except KeyboardInterrupt:
        # Caught here rather than left to click, which would print a blank line first.
        where = f" in {out}" if out is not None else ""
        raise CliError(
            f"interrupted; the run{where} is marked incomplete", EXIT_INTERRUPTED
        ) from None
    except SpecError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except (CardDataError, runner.RunError) as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise CliError(f"cannot write {where}: {exc.strerror or exc}", EXIT_ERROR) from None
    if not quiet:
        click.echo(runner.summary(result))


# Columns `omensim cards` shows, in order; any others the compiler adds follow them.
_CARD_COLUMNS = [
    "kind",
    "name",
    "set",
    "type",
    "devotion",
    "cost",
    "offering",
    "strength",
    "copies",
    "keywords",
    "text",
    "source",
]


def _card_table_text(frame: Any) -> str:
    """The whole frame as text: every row and column, nothing truncated, words left-aligned."""
    import pandas as pd

    formatters = {}
    for col in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[col]):
            # pandas right-aligns strings, which makes names and ability text hard to scan.
            width = max(len(str(col)), int(frame[col].astype(str).str.len().max() or 0))
            formatters[col] = lambda v, w=width: f"{v!s:<{w}}"
    with pd.option_context(
        "display.max_rows", None,
        "display.max_columns", None,
        "display.width", None,
        "display.max_colwidth", None,
    ):  # fmt: skip
        text = frame.to_string(index=False, formatters=formatters, justify="left")
    return "\n".join(line.rstrip() for line in text.splitlines())


@main.command("cards", short_help="Print the compiled card table of a mix.")
@click.option(
    "--mix",
    default="aegean",
    show_default=True,
    help="Card sets joined by '+'; SET:N adds N random unit cards of that set, "
    "e.g. 'dunes+aegean:10'.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Run seed: a limited set (SET:N) draws its cards with it, as the run would.",
)
@click.option(
    "--learning",
    is_flag=True,
    help="Only the learning-game units (as --variant learning would use).",
)
def cards_cmd(mix: str, seed: int, learning: bool) -> None:
    """Print the compiled card table of a mix: every card the simulator will play with.

    One row per unit: its kind id (the number used in the played_p0/played_p1
    columns of run output), name, set, type, cost, offering, strength, copies,
    keywords, ability text and where its values come from ("rulebook" or
    "reconstructed"; edit configs/sets/*.toml to change them). The mix's reward
    tiles and structures follow.

    \b
    Example:
      omensim cards --mix dunes+aegean
      omensim cards --mix dunes+aegean:10 --seed 3   # the 10 Aegean cards seed 3 uses
    """
    from sim.cards import CardDataError, load_pool

    try:
        pool = load_pool(mix, seed=seed, learning=learning)
        units = pool.frame()
        rewards = pool.rewards_frame()
        structures = pool.structures_frame()
    except SpecError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except CardDataError as exc:
        raise CliError(str(exc), EXIT_ERROR) from None
    except OSError as exc:
        raise CliError(f"cannot read card data: {exc}", EXIT_ERROR) from None

    columns = [c for c in _CARD_COLUMNS if c in units.columns]
    columns += [c for c in units.columns if c not in columns]
    click.echo(_card_table_text(units[columns]))
    footer = [_count_label(units, "unit", "cards")]
    if rewards is not None and len(rewards):
        click.echo("\nReward tiles:")
        click.echo(_card_table_text(rewards))
        footer.append(_count_label(rewards, "reward tile kind", "tiles"))
    if len(structures):
        click.echo("\nStructures:")
        click.echo(_card_table_text(structures))
        footer.append(f"{len(structures)} structures")
    click.echo(f"\n{mix}: " + ", ".join(footer))


def _count_label(frame: Any, what: str, physical: str) -> str:
    """E.g. "22 units (30 cards)": kinds listed, and physical copies when known."""
    label = f"{len(frame)} {what}{'s' if len(frame) != 1 else ''}"
    if "copies" in frame.columns:
        label += f" ({int(frame['copies'].sum())} {physical})"
    return label


@main.command("replay", short_help="Replay one game of a run, step by step.")
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option(
    "--game",
    "-g",
    type=int,
    required=True,
    help="The game_id to replay (0 .. games-1 of the run).",
)
def replay_cmd(run_dir: Path, game: int) -> None:
    """Replay game GAME of the run directory RUN and print it turn by turn.

    The game is rebuilt from the run's seed, cards, variants and bots (read
    from RUN/_manifest.json) and played again step by step: the set-up, each
    Wealth, Surge, (Portent, Feat,) War and Offering step, and the final score.
    The replayed result is then compared with the game's row in the run's
    Parquet files; a difference is an error.

    \b
    Example:
      omensim run --games 1000 --mix aegean --seed 7 --out results/demo
      omensim replay results/demo --game 123
    """
    from sim import io
    from sim.cards import CardDataError
    from sim.replay import compare_rows, replay

    if not run_dir.is_dir():
        raise CliError(f"no run directory {run_dir}")
    try:
        manifest = io.read_manifest(run_dir)
    except FileNotFoundError:
        raise CliError(f"{run_dir} is not a run directory (no {io.MANIFEST_NAME})") from None
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot read {run_dir / io.MANIFEST_NAME}: {exc}") from None
    if not manifest.get("complete", False):
        raise CliError(f"{run_dir} is an incomplete run (its manifest does not say complete)")
    try:
        fields = dict(manifest["spec"])
        fields["variants"] = tuple(fields.get("variants", ()))
        spec = RunSpec(**fields)
    except (KeyError, TypeError, SpecError) as exc:
        raise CliError(f"{run_dir / io.MANIFEST_NAME} has no usable run spec: {exc}") from None
    if not 0 <= game < spec.games:
        raise CliError(f"--game {game} is out of range: the run has games 0 .. {spec.games - 1}")
    row = _dataset_row(run_dir, manifest, game)
    try:
        r = replay(spec, game, check=False)
    except (SpecError, CardDataError) as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(
            f"cannot read {exc.filename or 'a run input'}: {exc.strerror or exc}"
        ) from None
    text = r.text()
    # The replay checked itself against the kernel; now check the row actually on disk.
    diffs = compare_rows(r.row, row)
    click.echo(text, nl=False)
    if diffs:
        raise CliError(
            f"the replay of game {game} differs from its row in {run_dir}: " + "; ".join(diffs)
        )
    click.echo(f"Matches game {game}'s row in {run_dir} (every column).")


def _dataset_row(run_dir: Path, manifest: dict[str, Any], game: int) -> dict[str, Any]:
    """Game ``game``'s row read back from the run's Parquet part, as plain Python values."""
    import pandas as pd

    parts = [
        p
        for p in manifest.get("parts", [])
        if p.get("first_game", -1) <= game < p.get("first_game", -1) + p.get("games", 0)
    ]
    if not parts or not (run_dir / parts[0]["file"]).is_file():
        raise CliError(f"game {game} is not in the dataset in {run_dir} (no part holds it)")
    try:
        df = pd.read_parquet(run_dir / parts[0]["file"], filters=[("game_id", "==", game)])
    except Exception as exc:  # pyarrow raises many types for a broken file
        raise CliError(f"cannot read {run_dir / parts[0]['file']}: {exc}") from None
    if len(df) != 1:
        raise CliError(f"game {game} is not in the dataset in {run_dir} ({len(df)} rows found)")
    out = {}
    for col, value in df.iloc[0].items():
        if isinstance(df[col].dtype, pd.CategoricalDtype):
            value = str(value)
        out[str(col)] = value
    return out


if __name__ == "__main__":  # python -m sim.cli, for when the console script is not on PATH
    main()
