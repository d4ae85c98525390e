"""``omensim replay``: one game of a run, step by step."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import click

from sim.cli.errors import CliError
from sim.cli.options import InputPath
from sim.data.spec import RunSpec, SpecError


@click.command("replay", short_help="Replay one game of a run, step by step.")
@click.argument("run_dir", metavar="RUN", type=InputPath(dir_okay=True, path_type=Path))
@click.option(
    "--game",
    "-g",
    type=int,
    required=True,
    help="The game_id to replay (0 .. games-1 of the run).",
)
@click.option(
    "--positions",
    is_flag=True,
    help="Print what each step changed, from the same event trace, without the bots' "
    "weighed options, the score after each turn and why the game was won.",
)
def replay_cmd(run_dir: Path, game: int, positions: bool) -> None:
    """Replay game GAME of the run directory RUN and print it turn by turn.

    The game is rebuilt from the run's seed, cards, variants and bots (read
    from RUN/_manifest.json) and played again in the kernel's trace mode: the
    set-up, then every event of each Wealth, Surge, (Portent, Feat,) War and
    Offering step in the order it happened, with the card, reward tile or rule
    step that caused it; each decision of a greedy bot with its best options
    and their values; the score after each turn; and why the game was won (the
    score components that differed). The replayed result is then compared
    with the game's row in the run's Parquet files; a difference is an error.

    \b
    Example:
      omensim run --games 1000 --mix aegean --seed 7 --out results/demo --force
      omensim replay results/demo --game 123
      omensim replay results/demo --game 123 --positions
    """
    from sim.analysis.replay import (  # deferred: loads numba
        changed_input,
        compare_rows,
        replay,
    )
    from sim.data.cards import CardDataError  # deferred: loads pyarrow
    from sim.run import io  # deferred: loads pyarrow

    if not run_dir.is_dir():
        raise CliError(f"no run directory {run_dir}")
    try:
        # The parts are checked against the manifest before the row is trusted.
        manifest = io.verify_run(run_dir)
    except FileNotFoundError:
        raise CliError(f"{run_dir} is not a run directory (no {io.MANIFEST_NAME})") from None
    except io.IncompleteRunError:
        raise CliError(
            f"{run_dir} is an incomplete run (its manifest does not say complete)"
        ) from None
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot read {run_dir}: {exc}") from None
    try:
        fields = dict(manifest["spec"])
        fields["variants"] = tuple(fields.get("variants", ()))
        spec = RunSpec(**fields)
    except (KeyError, TypeError, SpecError) as exc:
        raise CliError(f"{run_dir / io.MANIFEST_NAME} has no usable run spec: {exc}") from None
    if not 0 <= game < spec.games:
        raise CliError(f"--game {game} is out of range: the run has games 0 .. {spec.games - 1}")
    row = _dataset_row(run_dir, manifest, game)
    changes = None
    recorded = manifest.get("card_changes") or json.loads(
        io.read_metadata(run_dir).get("card_changes", "null")
    )
    if recorded:
        from sim.data.changes import Changes  # deferred: loads pyarrow

        changes = Changes.parse(recorded.get("change", []), recorded.get("cards", []))
    try:
        # The cards are rebuilt from the files the run named, which may have been edited
        # since: refuse before telling a game of other cards as if it were this run's.
        changed = changed_input(spec, changes, manifest.get("metadata", {}))
        if changed:
            raise CliError(f"cannot replay {run_dir}: {changed}")
        r = replay(spec, game, check=False, changes=changes)
    except (SpecError, CardDataError) as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(
            f"cannot read {exc.filename or 'a run input'}: {exc.strerror or exc}"
        ) from None
    # Told without the replay's own check against a freshly played row: what matters is
    # the row on disk, and the line below says whether it matches only once it is known.
    told = dataclasses.replace(r, expected=None, mismatches=[])
    text = told.text() if positions else told.story()
    diffs = compare_rows(r.row, row)
    click.echo(text, nl=False)
    if diffs:
        raise CliError(
            f"the replay of game {game} differs from its row in {run_dir}: " + "; ".join(diffs)
        )
    click.echo(f"Matches game {game}'s row in {run_dir} (every column).")


def _dataset_row(run_dir: Path, manifest: dict[str, Any], game: int) -> dict[str, Any]:
    """Game ``game``'s row read back from the run's Parquet part, as plain Python values."""
    import pyarrow.parquet as pq

    parts = [
        p
        for p in manifest.get("parts", [])
        if p.get("first_game", -1) <= game < p.get("first_game", -1) + p.get("games", 0)
    ]
    if not parts or not (run_dir / parts[0]["file"]).is_file():
        raise CliError(f"game {game} is not in the dataset in {run_dir} (no part holds it)")
    try:
        table = pq.read_table(run_dir / parts[0]["file"], filters=[("game_id", "==", game)])
    except Exception as exc:  # pyarrow raises many types for a broken file
        raise CliError(f"cannot read {run_dir / parts[0]['file']}: {exc}") from None
    rows = table.to_pylist()
    if len(rows) != 1:
        raise CliError(f"game {game} is not in the dataset in {run_dir} ({len(rows)} rows found)")
    return rows[0]
