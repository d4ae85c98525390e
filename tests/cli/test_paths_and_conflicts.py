"""Output paths, conflicting options and the errors the API raises: one line, never a
traceback, nothing written where it was not asked (and nothing resolved silently)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from conftest import invoke, ok, one_error_line
from tamper import cut_job

from sim import Error, api
from sim import analysis as A
from sim.base.errors import FrameError
from sim.data.changes import Changes
from sim.run import runner

TALOS = "Talos, Bronze Guardian of Crete"
TINY = ["--games", "40", "--seed", "3", "-q"]


@pytest.mark.parametrize(
    "args",
    [
        ["run", *TINY],
        ["compare", "--change", f"{TALOS}.cost=+1", *TINY],
        ["sweep", "--card", "0", "--delta", "+1", *TINY],
        ["tournament", "--bots", "random,greedy", "--games", "40", "-q"],
        ["strength", "--panel", "random", *TINY],
        ["balance", "--rule", "start_coins", "--values", "3-5", "-q"],
        ["run", "--panel", "random,greedy", *TINY],
    ],
)
def test_an_empty_out_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    line = one_error_line(invoke(*args, "--out", ""))
    assert "empty" in line
    assert os.listdir(tmp_path) == []


FORCE_WITHOUT_OUT = {
    "run": (["run", *TINY], "the run goes to a new folder"),
    "compare": (["compare", "--change", f"{TALOS}.cost=+1", *TINY], "nothing is written"),
    "sweep": (["sweep", "--card", "0", "--delta", "+1", *TINY], "nothing is written"),
    "tournament": (
        ["tournament", "--bots", "random,greedy", "--games", "40", "-q"],
        "the tournament goes to a new folder",
    ),
    "strength": (["strength", "--panel", "random", *TINY], "the bots' runs go to a new folder"),
    "balance": (
        ["balance", "--rule", "start_coins", "--values", "3-5", "-q"],
        "nothing is written",
    ),
    "mixes": (["mixes", "aegean", *TINY], "nothing is written"),
}
"""Every command whose ``--out`` may be left out, with small valid arguments and what it
does without ``--out``."""


def test_every_command_with_force_and_an_optional_out_is_checked_below() -> None:
    from sim.cli import main

    optional_out = {
        name
        for name, cmd in main.commands.items()
        if {"force", "out"} <= {p.name for p in cmd.params}
        and not next(p for p in cmd.params if p.name == "out").required
    }
    assert optional_out == set(FORCE_WITHOUT_OUT)


@pytest.mark.parametrize("where", ["first", "last"])
@pytest.mark.parametrize("command", sorted(FORCE_WITHOUT_OUT))
def test_force_without_out_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, where: str
) -> None:
    """Without --out there is no earlier folder for --force to replace (the command writes
    nothing, or a new folder of its own): refused in one line, whichever of the options
    click reads first, before anything is played or written."""
    monkeypatch.chdir(tmp_path)
    args, without = FORCE_WITHOUT_OUT[command]
    args = [args[0], "--force", *args[1:]] if where == "first" else [*args, "--force"]
    result = invoke(*args)
    line = one_error_line(result)
    assert result.exit_code == 2
    assert f"without --out {without}: drop --force" in line
    assert os.listdir(tmp_path) == []


def test_force_is_taken_with_out_and_left_to_resume_beside_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    ok(invoke("run", *TINY, "--out", str(out)))
    ok(invoke("run", "--force", *TINY, "--out", str(out)))
    line = one_error_line(invoke("run", "--resume", str(out), "--force"))
    assert line.endswith("drop --force") and "--resume" in line


def test_report_and_the_api_refuse_an_empty_out(tmp_path: Path) -> None:
    assert "empty" in one_error_line(invoke("report", str(tmp_path), "--out", ""))
    with pytest.raises(Error, match="empty"):
        api.compare(f"{TALOS}.cost=+1", games=10, out="")
    with pytest.raises(Error, match="empty"):
        api.run(games=10, out="  ")
    with pytest.raises(Error, match="NUL"):
        api.run(games=10, out="a\0b")


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["run", *TINY, "--cards", ""], "--cards"),
        (["run", *TINY, "--rules", " "], "--rules"),
        (["run", *TINY, "--variant", "constructed", "--decks", ""], "--decks"),
        (["compare", *TINY, "--change", f"{TALOS}.cost=+1", "--b-rules", ""], "--b-rules"),
        (["balance", "--rule", "start_coins", "-q", "--cards", ""], "--cards"),
        (["replay", "", "--game", "0"], "RUN"),
    ],
)
def test_an_empty_input_path_is_named_as_empty_not_read_as_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], option: str
) -> None:
    monkeypatch.chdir(tmp_path)
    line = one_error_line(invoke(*args))
    assert line.endswith(f"'{option}': empty path") and "regular file" not in line
    assert os.listdir(tmp_path) == []


def test_the_api_refuses_an_empty_input_path_as_the_cli_does() -> None:
    with pytest.raises(Error, match=r"^--rules: empty path$"):
        api.run(games=10, rules="")
    with pytest.raises(Error, match=r"^--cards: empty path$"):
        Changes.parse([], [""])


def test_tilde_is_expanded_once_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    ok(invoke("run", *TINY, "--out", "~/r"))
    assert len(A.load(home / "r")) == 40
    assert not (tmp_path / "~").exists()
    run = api.run(games=10, out="~/api", progress=False)
    assert run.out == home / "api"


def test_an_out_url_that_cannot_be_used_is_one_line(tmp_path: Path) -> None:
    line = one_error_line(invoke("run", *TINY, "--out", "nosuchscheme://bucket/run"))
    assert "nosuchscheme://bucket/run" in line
    with pytest.raises(Error):
        api.run(games=10, out="nosuchscheme://bucket/run", progress=False)
    for read in (A.run_totals, A.load, A.cards):  # a reader handed one: the same error class
        with pytest.raises(Error):
            read("nosuchscheme://bucket/run")


def test_a_run_at_a_url_says_in_one_line_that_load_reads_local_runs() -> None:
    run = api.run(games=10, out="memory://omensim-test/api-run", progress=False)
    with pytest.raises(Error, match="load reads a local run folder"):
        run.load()


def test_mixes_never_overwrites_a_folder_without_force(tmp_path: Path) -> None:
    target = tmp_path / "ranking"
    target.mkdir()
    (target / "precious.txt").write_text("precious\n")
    args = ["mixes", "aegean", "--games", "40", "-q", "--out", str(target)]
    assert "precious.txt" in one_error_line(invoke(*args, "--force"))
    assert (target / "precious.txt").read_text() == "precious\n"
    (target / "precious.txt").unlink()
    ok(invoke(*args))
    assert "not empty" in one_error_line(invoke(*args))
    ok(invoke(*args, "--force"))
    run = tmp_path / "run"
    ok(invoke("run", *TINY, "--out", str(run)))
    line = one_error_line(invoke(*args[:-1], str(run / "x"), "--force"))
    assert "inside the run folder" in line


def test_mixes_subsets_are_bounded(tmp_path: Path) -> None:
    # Each subset is a set-up whatever --games is: timed, and refused past the time limit.
    many = ["--games", "1e9", "--subsets", "1000000000"]
    line = one_error_line(invoke("mixes", "dunes+aegean:10", *many))
    assert "days to set up here" in line
    line = one_error_line(invoke("mixes", "dunes+aegean:10", "--games", "40", "--subsets", "80"))
    assert "more than --games" in line


@pytest.mark.parametrize(
    ("mixes", "option", "message"),
    [
        (["aegean"], ["--subsets", "4"], "none of the mixes given is one; drop --subsets"),
        (["aegean", "dunes"], ["--subset-seed", "3"], "is one; drop --subset-seed"),
        (["aegean:22"], [], "aegean:22 keeps all 22 units of aegean"),
        (["aegean", "dunes+aegean:22"], ["--subsets", "4"], "write 'dunes+aegean', or keep"),
    ],
)
def test_mixes_refuses_subsets_where_no_mix_has_any_to_draw(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mixes: list[str],
    option: list[str],
    message: str,
) -> None:
    """--subsets and --subset-seed act only on a partial mix, and a SET:N keeping all its
    set's units draws the same cards every time (an interval of zero width): refused in one
    line, before anything is played or written."""
    monkeypatch.chdir(tmp_path)
    line = one_error_line(invoke("mixes", *mixes, "--games", "40", *option, "--out", "r"))
    assert message in line
    assert os.listdir(tmp_path) == []


def test_cards_refuses_a_seed_that_draws_nothing() -> None:
    """cards --seed picks the units of a SET:N part; for a mix without one every seed lists
    the same cards, so the seed is refused rather than shown as if it had been used."""
    line = one_error_line(invoke("cards", "--mix", "dunes+aegean", "--seed", "4"))
    assert "'dunes+aegean' has none, so every seed lists the same cards: drop --seed" in line
    ok(invoke("cards", "--mix", "dunes+aegean:10", "--seed", "4"))
    ok(invoke("cards", "--mix", "dunes+aegean"))


def test_the_same_change_twice_is_refused_in_the_cli_and_the_api(tmp_path: Path) -> None:
    args = ["--change", f"{TALOS}.cost=+1", "--change", f"{TALOS.upper()} .cost=2"]
    line = one_error_line(invoke("run", *TINY, *args, "--out", str(tmp_path / "r")))
    assert "already changed by" in line
    with pytest.raises(Error, match="already changed by"):
        api.compare([f"{TALOS}.cost=+1", f"{TALOS}.cost+=1"], games=10)


def test_a_comparison_whose_b_is_a_is_refused() -> None:
    line = one_error_line(invoke("compare", "--b-p0", "greedy", *TINY))
    assert "nothing to compare" in line


@pytest.mark.parametrize(
    "args",
    [
        ["run", *TINY],
        ["compare", *TINY],
        ["compare", *TINY, "--b-variant", "emissary"],  # B differs, yet the edit is a no-op
        ["balance", "--rule", "start_coins", "-q"],
    ],
)
@pytest.mark.parametrize("edit", [f"{TALOS}.cost=6", f"{TALOS.lower()}.cost=+0"])
def test_a_change_that_changes_nothing_is_refused_naming_card_field_and_value(
    tmp_path: Path, args: list[str], edit: str
) -> None:
    """By the CLI (every command taking --change) as by the API, before anything is written;
    the comparison's own check (nothing to compare) came too late for a B that differs."""
    out = tmp_path / "out"
    line = one_error_line(invoke(*args, "--change", edit, "--out", str(out)))
    assert f"{TALOS} cost is already 6, so it changes nothing" in line
    assert not out.exists()
    with pytest.raises(Error, match="changes nothing"):
        api.run(games=10, changes=edit, out=tmp_path / "api")
    with pytest.raises(Error, match="changes nothing"):
        api.compare(edit, games=10)


def test_options_that_would_be_ignored_are_refused(tmp_path: Path) -> None:
    change = ["--change", f"{TALOS}.cost=+1"]
    assert "drop --out" in one_error_line(
        invoke("compare", *change, *TINY, "--plan", "0.01", "--out", str(tmp_path / "c"))
    )
    assert not (tmp_path / "c").exists()
    assert "has no effect with --duplicate" in one_error_line(
        invoke("run", *TINY, "--duplicate", "--first", "p1", "--out", str(tmp_path / "d"))
    )
    assert "learning-game units" in one_error_line(invoke("cards", "--mix", "aegean", "--learning"))
    one_error_line(invoke("compare", *change, *TINY, "--b-p0", ""))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", *TINY, "--variant", ""], "'' names no variant"),
        (["run", *TINY, "--variant", "emissary", "--variant", " "], "' ' names no variant"),
        (["tournament", "--games", "4", "-q", "--variant", ","], "',' has an empty variant"),
        (["compare", *TINY, "--variant", "emissary,"], "'emissary,' has an empty variant"),
        (["compare", *TINY, "--b-variant", ""], "or standard for none) or drop --b-variant"),
        (["balance", "--rule", "start_coins", "-q", "--variant", "a,,b"], "an empty variant"),
    ],
)
def test_a_variant_option_that_names_no_variant_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    """A blank --variant (or --b-variant, where it read as 'standard') or an empty name in
    its list names no variant: refused naming the option, before anything is played."""
    monkeypatch.chdir(tmp_path)
    line = one_error_line(invoke(*args))
    assert message in line and "-variant'" in line  # named: '--variant' or '--b-variant'
    assert os.listdir(tmp_path) == []


def test_a_sweep_whose_every_cell_is_out_of_range_fails(tmp_path: Path) -> None:
    line = one_error_line(invoke("sweep", "--card", "0", "--delta", "+150", *TINY))
    assert "every cell is out of range" in line


def test_resume_refuses_an_option_that_differs_from_the_recorded_plan(tmp_path: Path) -> None:
    out = tmp_path / "r"
    ok(invoke("run", *TINY, "--chunk-size", "10", "--out", str(out)))
    line = one_error_line(invoke("run", "--resume", str(out), "--games", "80"))
    assert "drop --games (the folder's plan has 40)" in line
    line = one_error_line(invoke("run", "--resume", str(out), "--games", "40"))
    assert "already complete" in line  # the same value is the recorded plan, not a conflict


def test_resume_takes_an_option_equal_to_the_one_its_plan_records(tmp_path: Path) -> None:
    """Each option is looked up where the command records it and as it records it: B's
    edits, not the base's; the deltas as numbers; and named as typed (--delta, not
    --deltas)."""
    change = ["--change", f"{TALOS}.cost=+1"]
    done = "already complete"  # the options were taken: the resume itself answers
    cmp, swp, bal = tmp_path / "c", tmp_path / "s", tmp_path / "b"
    ok(invoke("compare", *change, *TINY, "--out", str(cmp)))
    same = [
        *change,
        "--games",
        "40",
        "--b-p0",
        "greedy",
        "--b-variant",
        "standard",
    ]
    assert done in one_error_line(invoke("compare", "--resume", str(cmp), *same))
    line = one_error_line(invoke("compare", "--resume", str(cmp), "--change", f"{TALOS}.cost=+2"))
    assert line.endswith(f"drop --change (the folder's plan has ['{TALOS}.cost=+1'])")
    line = one_error_line(invoke("compare", "--resume", str(cmp), "--b-variant", "emissary"))
    assert "drop --b-variant (the folder's plan has [])" in line
    assert "drop --out" in one_error_line(invoke("compare", "--resume", str(cmp), "--out", "x"))

    ok(invoke("sweep", "--card", "0", "--delta=-1,+1", *TINY, "--out", str(swp)))
    same = ["--delta=-1,1", "--field", "COST", "--card", "0", "--seed", "3"]
    assert done in one_error_line(invoke("sweep", "--resume", str(swp), *same))
    line = one_error_line(invoke("sweep", "--resume", str(swp), "--delta", "+2"))
    assert line.endswith("drop --delta (the folder's plan has [-1, 1])")

    race = ["--rule", "start_coins", "--values", "3-5", "--pilot", "200", "--max-games", "400"]
    ok(invoke("balance", *race, "-q", "--out", str(bal)))
    same = ["--rule", "START_COINS", "--max-games", "400", "--tolerance", "0.25"]
    assert done in one_error_line(invoke("balance", "--resume", str(bal), *same))
    line = one_error_line(invoke("balance", "--resume", str(bal), "--max-games", "800"))
    assert line.endswith("drop --max-games (the folder's plan has 400)")
    line = one_error_line(invoke("balance", "--resume", str(bal), "--field", "cost"))
    assert line.endswith("drop --field")  # the plan is a rule's race, not a card's


def test_resume_reads_the_mix_and_the_edits_as_the_command_does(tmp_path: Path) -> None:
    """The mix and the edits are compared as the command reads them, not as typed: another
    spelling of the recorded plan resumes it; another set order (another base set) or
    another edit is refused, showing the plan's value as recorded."""
    cmp, tour = tmp_path / "c", tmp_path / "t"
    change = ["--change", f"{TALOS}.cost=+1"]
    ok(invoke("compare", *change, *TINY, "--mix", "Dunes+Aegean", "--out", str(cmp)))
    same = ["--mix", " dunes + AEGEAN ", "--change", f"{TALOS.upper()} .COST+=1"]
    assert "already complete" in one_error_line(invoke("compare", "--resume", str(cmp), *same))
    line = one_error_line(invoke("compare", "--resume", str(cmp), "--mix", "aegean+dunes"))
    assert line.endswith("drop --mix (the folder's plan has 'Dunes+Aegean')")
    line = one_error_line(invoke("compare", "--resume", str(cmp), "--change", f"{TALOS}.cost=1"))
    assert line.endswith(f"drop --change (the folder's plan has ['{TALOS}.cost=+1'])")

    ok(invoke("tournament", "--bots", "random,greedy", "--games", "4", "-q", "--out", str(tour)))
    line = one_error_line(invoke("tournament", "--resume", str(tour), "--mix", "AEGEAN"))
    assert "already complete" in line


def test_balance_resume_takes_values_and_span_that_give_the_recorded_candidates(
    tmp_path: Path,
) -> None:
    """The race records --values and --span only as the candidates they gave: typed again,
    they are the plan when together they give those candidates, in any spelling; other
    candidates are refused in one line naming the option and the recorded candidates."""
    race = ["--rule", "start_coins", "--pilot", "200", "--max-games", "400", "-q"]
    given, spanned = tmp_path / "values", tmp_path / "span"
    ok(invoke("balance", *race, "--values", "3-4", "--out", str(given)))
    ok(invoke("balance", *race, "--span", "1", "--out", str(spanned)))
    cases = [
        (given, "start_coins=3; start_coins=4", [["--values", "3-4"], ["--values", "4,3"]],
         [["--values", "3-5"], ["--span", "1"], ["--values", "x"]]),
        (spanned, "start_coins=3; start_coins=4; start_coins=5",
         [["--span", "1"], ["--values", "3-5"], ["--values", "5,3,4", "--span", "1"]],
         [["--span", "2"], ["--values", "3-4"]]),
    ]  # fmt: skip
    for folder, candidates, same, other in cases:
        for args in same:
            line = one_error_line(invoke("balance", "--resume", str(folder), *args))
            assert "already complete" in line  # the options were taken: the resume answers
        for args in other:
            line = one_error_line(invoke("balance", "--resume", str(folder), *args))
            assert line.endswith(f"drop {args[0]} (the folder's plan has '{candidates}')")
    # An interrupted race resumed with the values it recorded plays to the same answer.
    table = (given / "candidates.csv").read_text()
    cut_job(given, "candidates.csv", "balance.json")
    ok(invoke("balance", "--resume", str(given), "--values", "4,3", "-q"))
    assert (given / "candidates.csv").read_text() == table


def test_a_command_refused_once_its_folder_would_be_written_leaves_nothing(
    tmp_path: Path,
) -> None:
    """Cards that cannot make a game, found when an arm or a candidate is built, and a
    comparison whose two arms would take too long (both counted) are refused before the
    folder is written: no plan, no finished arm A, no candidate's rules left behind."""
    text = (Path(__file__).parents[2] / "configs" / "sets" / "aegean.toml").read_text()
    endless = tmp_path / "endless.toml"
    endless.write_text("\n".join("cost = 20" if ln.startswith("cost =") else ln
                                  for ln in text.splitlines()))  # fmt: skip
    change = ["--change", f"{TALOS}.cost=+1"]
    race = ["--rule", "start_coins", "--values", "3-4", "--pilot", "100", "--max-games", "100"]
    for k, (args, message) in enumerate(
        [
            (["compare", *TINY, *change, "--cards", str(endless)], "cannot make a game"),
            (["compare", "-q", *change, "--games", "1e12"], "2,000,000,000,000 games would"),
            (["compare", "-q", *change, "--games", "1e12", "--until-ci", "0.001"], "2,000,000"),
            (["balance", *race, "-q", "--cards", str(endless)], "cannot make a game"),
            (["balance", *race[2:], "-q", "--rule", "tiles_per_city"], "has no effect"),
        ]
    ):
        out = tmp_path / f"out{k}"
        assert message in one_error_line(invoke(*args, "--out", str(out)))
        assert not out.exists(), args


def test_a_malformed_scheduler_is_one_line() -> None:
    pytest.importorskip("distributed")
    line = one_error_line(invoke("run", *TINY, "--backend", "dask", "--scheduler", "tcp://"))
    assert "cannot reach the Dask scheduler" in line


def test_until_ci_far_below_a_game_does_not_overflow() -> None:
    assert runner.games_to_play(1000, 1e-200) == 1000
    assert runner.games_to_play(2**62, 1e-300) == 2**62


def test_readers_of_things_that_are_not_runs_raise_the_project_error(tmp_path: Path) -> None:
    for bad in (tmp_path, "a\0b", 5):
        with pytest.raises(Error):
            A.cards(bad)  # type: ignore[arg-type]
        with pytest.raises(Error):
            A.load(bad)  # type: ignore[arg-type]
    with pytest.raises(Error):
        A.run_totals(tmp_path)
    frame = pd.DataFrame({"x": [1]})
    for helper in (A.first_player_advantage, A.score_margins, A.game_lengths, A.end_reasons):
        with pytest.raises(FrameError, match="needs column"):
            helper(frame)
    with pytest.raises(FrameError, match="needs a DataFrame"):
        A.first_player_advantage([1, 2])  # type: ignore[arg-type]
