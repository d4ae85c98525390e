"""The CLI and the API share one check of a run's arguments and raise one error type.

Every wrong value the issue names (``games="abc"``, ``games=1.5``, ``games=1e20``,
``mix=5``, ``seed="7"``, ``A.load(None)``, ``api.compare(None)``) is refused before
anything plays, as a :class:`sim.Error` (a ``ValueError``) whose message is the
problem the CLI prints for the same option; never a builtin error from deep inside.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import invoke, one_error_line

import sim
from sim import Error, api
from sim import analysis as A
from sim.data.spec import MAX_GAMES, games_problem


def test_the_project_error_is_a_value_error_every_layer_raises() -> None:
    from sim.analysis.loading import RunLoadError
    from sim.data.cards import CardDataError
    from sim.data.schema import SchemaError
    from sim.data.spec import SpecError
    from sim.run.io import RunError, RunReadError
    from sim.run.lock import FolderLockedError
    from strategies.profiles import ProfileError

    assert issubclass(sim.Error, ValueError)
    for cls in (RunLoadError, CardDataError, SchemaError, SpecError, RunError, RunReadError,
                FolderLockedError, ProfileError):  # fmt: skip
        assert issubclass(cls, Error), cls


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"games": "abc"}, "must be a whole number of games"),
        ({"games": 1.5}, "must be a whole number of games"),
        ({"games": 1e20}, "must be at most 2**62"),
        ({"games": 0}, "must be a positive whole number"),
        ({"games": True}, "must be a whole number of games"),
        ({"games": None}, "must be a whole number of games"),
        ({"mix": 5}, "--mix must be text"),
        ({"seed": "7"}, "--seed must be a whole number"),
        ({"seed": 1.5}, "--seed must be a whole number"),
        ({"variants": "emissary"}, "variants must be a list"),
        ({"variants": [5]}, "--variant must be a name"),
        ({"p0": None}, "--p0 must be text"),
        ({"changes": [5]}, "changes must be a text"),
        ({"changes": "nope"}, "expected CARD.FIELD=VALUE"),
        ({"threads": "2"}, "--threads must be between"),
        ({"until_ci": "0.1"}, "until-ci"),
        ({"out": 5}, "out must be a path"),
        ({"force": "yes"}, "force must be True or False"),
        ({"progress": 3}, "progress must be True, False or None"),
    ],
)
def test_api_run_refuses_a_wrong_argument_as_sim_error(
    tmp_path: Path, kwargs: dict, fragment: str
) -> None:
    args = {"games": 4, "out": tmp_path / "run", **kwargs}
    with pytest.raises(Error, match=fragment.replace("*", r"\*")):
        api.run(**args)
    assert not (tmp_path / "run").exists()


def test_api_run_refuses_force_without_out_as_the_cli_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``out`` the run goes to a new folder: ``force`` has nothing to replace."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Error, match="without out the run goes to a new folder: drop force"):
        api.run(games=4, force=True, progress=False)
    assert list(tmp_path.iterdir()) == []
    line = one_error_line(invoke("run", "--games", "4", "--force"))
    assert line.endswith("without --out the run goes to a new folder: drop --force")


@pytest.mark.parametrize("value", ["abc", "1.5", "1e20", "0"])
def test_the_api_and_the_cli_give_the_same_games_message(tmp_path: Path, value: str) -> None:
    _, problem = games_problem(value)
    line = one_error_line(invoke("run", "--games", value, "--out", str(tmp_path / "r")))
    assert problem in line
    with pytest.raises(Error) as err:
        api.run(games=value, out=tmp_path / "r")
    assert problem in str(err.value)


def test_the_games_limit_is_the_same_for_both() -> None:
    assert games_problem(MAX_GAMES) == (MAX_GAMES, "")
    for value in (MAX_GAMES + 1, str(MAX_GAMES + 1), float(MAX_GAMES * 2)):
        assert games_problem(value)[1].startswith("must be at most 2**62")
    assert games_problem(1e6) == (1_000_000, "")
    assert games_problem("1_000") == (1000, "")


@pytest.mark.parametrize(
    "changes", [None, 5, [], ["Ker of the Spoils.cost=+1", None]]
)  # fmt: skip
def test_api_compare_refuses_wrong_changes(tmp_path: Path, changes: object) -> None:
    with pytest.raises(Error):
        api.compare(changes, games=4, out=tmp_path / "cmp")  # type: ignore[arg-type]
    assert not (tmp_path / "cmp").exists()


@pytest.mark.parametrize("path", [None, 5, ["a", "b"], b"x"])
def test_a_load_of_a_non_path_is_one_error(path: object) -> None:
    with pytest.raises(Error, match="load needs a run directory"):
        A.load(path)  # type: ignore[arg-type]


def test_a_load_of_a_missing_or_plain_folder_names_it(tmp_path: Path) -> None:
    with pytest.raises(Error, match="does not exist"):
        A.load(tmp_path / "missing")
    with pytest.raises(Error, match=r"no _manifest\.json"):
        A.load(tmp_path)
