"""`sim.analysis.replay` and `omensim replay`: the replayed game is the dataset's, step by step."""

from __future__ import annotations

import json

import pytest
from conftest import invoke
from tamper import resign

from sim.analysis.replay import ReplayMismatch, compare_rows, replay
from sim.data.spec import RunSpec
from sim.run import runner

# Every set as the base, mixes, and variants that change the set-up or the decks.
SPECS = [
    RunSpec(games=50, mix="aegean", seed=3),
    RunSpec(games=50, mix="dunes", seed=4, p1="random"),
    RunSpec(games=50, mix="reign", seed=5),
    RunSpec(games=50, mix="dunes+aegean", seed=6, first="random"),
    RunSpec(games=50, mix="aegean+dunes", seed=7, p0="random", p1="random"),
    RunSpec(games=50, mix="reign+aegean", seed=8),
    RunSpec(games=50, mix="dunes+aegean:10", seed=9),
    RunSpec(games=50, mix="reign", seed=10, variants=("pile-draft",)),
    RunSpec(games=50, mix="reign", seed=11, variants=("trial",)),
    RunSpec(games=50, mix="reign", seed=12, variants=("learning", "extra-wealth")),
    RunSpec(games=50, mix="aegean", seed=13, variants=("emissary",)),
    RunSpec(games=50, mix="aegean", seed=14, duplicate=True),
    RunSpec(games=50, mix="reign", seed=15, variants=("pile-draft",), duplicate=True),
    RunSpec(games=50, mix="reign+aegean", seed=16, variants=("draft1",)),
    RunSpec(games=50, mix="dunes+aegean", seed=17, variants=("draft2",), p1="economic"),
    RunSpec(games=50, mix="aegean", seed=18, p0="lookahead", p1="aggressive"),
    RunSpec(games=50, mix="dunes+aegean", seed=19, p0="defensive", p1="lookahead"),
]


def _label(spec: RunSpec) -> str:
    dup = "-dup" if spec.duplicate else ""
    return f"{spec.mix}-{spec.variant_label}-{spec.p0}-{spec.p1}{dup}"


@pytest.mark.parametrize("spec", SPECS, ids=_label)
@pytest.mark.parametrize("game", [0, 1, 37])
def test_replay_matches_dataset_row(spec: RunSpec, game: int) -> None:
    r = replay(spec, game)  # raises ReplayMismatch on any difference
    assert r.matches and r.mismatches == []
    assert r.row == r.expected
    assert r.result["turns"] == r.expected["turns"]
    assert r.result["first_player"] == r.expected["first_player"]
    text = r.text()
    assert text.startswith(f"Game {game} of seed {spec.seed}: {spec.mix}")
    assert "Set-up" in text and "End of the game" in text
    assert "Matches the dataset row (every column)." in text
    turns = {e["turn"] for e in r.events if e["step"] not in ("setup", "end")}
    assert turns == set(range(1, r.result["turns"] + 1))
    frame = r.frame()
    assert {"turn", "active", "step", "event", "text"} <= set(frame.columns)


def test_events_speak_the_rulebooks_words() -> None:
    r = replay(RunSpec(games=10, mix="aegean", seed=1), 0)
    kinds = {e["event"] for e in r.events}
    assert {"first", "stack", "hand", "play", "coins", "conflict", "offer", "score"} <= kinds
    steps = {e["step_name"] for e in r.events}
    assert {"Wealth Step", "Surge Step", "War Step", "Offering Step"} <= steps
    for e in r.events:
        if e["event"] == "conflict":
            assert "is war-torn: strength P0" in e["text"]
    reign = replay(RunSpec(games=10, mix="reign", seed=1), 3)
    steps = {e["step_name"] for e in reign.events}
    assert {"Portent Step", "Feat Step", "Supply Step"} <= steps
    assert any(e["event"] == "feat" for e in reign.events)
    assert any("reward card" in e["text"] for e in reign.events)


def test_score_line_adds_up() -> None:
    r = replay(RunSpec(games=10, mix="dunes", seed=2), 1)
    for p in range(2):
        (line,) = [e["text"] for e in r.events if e["event"] == "score" and e["seat"] == p]
        total = int(line.split(" scores ")[1].split(" VP")[0])
        parts = line.split(" = ")[1].split(" + ")
        assert sum(int(x.split(" ")[0]) for x in parts) == total == r.expected[f"score_p{p}"]


def test_mismatch_is_reported() -> None:
    r = replay(RunSpec(games=10, mix="aegean", seed=1), 2)
    row = dict(r.row)
    row["winner"] = 1 - row["winner"] if row["winner"] >= 0 else 0
    diffs = compare_rows(row, r.expected)
    assert len(diffs) == 1 and diffs[0].startswith("winner:")
    r.mismatches = diffs
    assert not r.matches
    assert "DIFFERS from the dataset row in: winner" in r.text()
    assert issubclass(ReplayMismatch, AssertionError)


def test_game_out_of_range() -> None:
    with pytest.raises(ValueError, match="not in the run"):
        replay(RunSpec(games=10), 10)


# --- the command line -------------------------------------------------------------------


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("runs") / "aegean"
    runner.run(RunSpec(games=200, mix="aegean", seed=21, p1="random"), out, progress=False)
    return out


def test_cli_replay(run_dir) -> None:
    res = invoke("replay", str(run_dir), "--game", "123")
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    assert out.startswith("Game 123 of seed 21: aegean, standard rules, P0 greedy vs P1 random")
    assert "Turn 1: P" in out and "Wealth Step" in out
    assert out.rstrip().endswith(f"Matches game 123's row in {run_dir} (every column).")
    assert res.stderr == ""


def test_cli_replay_tells_the_story_and_positions_on_request(run_dir) -> None:
    """``omensim replay`` tells the game from the trace: the greedy seat's weighed options,
    the score after every turn, why the game was won; ``--positions`` gives what each step
    changed without them."""
    story = invoke("replay", str(run_dir), "--game", "7")
    assert story.exit_code == 0, story.stderr
    out = story.stdout
    assert "[P0 weighs surge (" in out and "<- taken" in out
    turns = out.count("\nTurn ")
    assert turns > 0 and out.count("\n  score: P0 ") == turns
    assert "\nWhy P" in out or "\nWhy nobody won" in out
    positions = invoke("replay", str(run_dir), "--game", "7", "--positions")
    assert positions.exit_code == 0, positions.stderr
    assert "weighs" not in positions.stdout and "Why P" not in positions.stdout
    assert "Matches game 7's row" in positions.stdout and "Matches game 7's row" in out
    assert positions.stdout.splitlines()[0] == out.splitlines()[0]


def test_every_heuristic_bot_and_the_lookahead_say_what_they_weighed() -> None:
    """The story of a look-ahead seat against a defensive one: the look-ahead's planned
    decisions list the options it played out with their mean rollout values, its other
    decisions and every decision of the heuristic profile the greedy scorer's values."""
    story = replay(RunSpec(games=1, mix="aegean", seed=18, p0="lookahead", p1="defensive"), 0)
    text = story.story()
    assert "[P0 weighs surge by rollouts (" in text and " played out): " in text
    assert "[P0 weighs wealth (" in text  # not planned under the shipped profile
    assert "[P1 weighs surge (" in text and "[P1 weighs surge by rollouts" not in text


def test_story_says_why_the_game_was_won() -> None:
    """The end of the story names each score component (``SCORE_TERMS``) the seats differ on."""
    from sim.base import layout as L

    r = replay(RunSpec(games=10, mix="aegean", seed=3), 2)
    why = r.story().split("\nWhy ")[1].split("\n\n")[0].splitlines()
    res = r.result
    differ = [
        t for t in L.SCORE_TERMS if res[f"{t.count or t.name}_p0"] != res[f"{t.count or t.name}_p1"]
    ]
    assert len(why) - 1 == max(len(differ), 1)
    for t, line in zip(differ, why[1:], strict=False):
        n0 = res[f"{t.count or t.name}_p0"]
        assert line.strip().startswith(f"P0 {t.label.format(n=n0, w=t.weight)} = ")


@pytest.mark.parametrize(
    ("args", "games"),
    [
        ((), (0, 5, 11)),
        (("--variant", "learning,extra-wealth"), (3,)),
        (("--variant", "trial"), (4,)),
        (("--rules", "configs/rules/soldier-on-move.toml"), (6,)),
        (("--mix", "reign+aegean"), (2,)),
    ],
)
def test_cli_replay_reign_setup_shows_three_stacks_of_four(tmp_path, args, games) -> None:
    """A Reign of War, Setup: "Shuffle the 12 reward cards and split them into three equal
    stacks (4 each)" (reign-of-war.zh.txt, line 9): every two-player Reign game's replay shows
    three stacks of four at set-up, and no melee-only card."""
    # Checks reign-of-war.en.md, line 26.
    from pathlib import Path

    out = tmp_path / "reign"
    root = Path(__file__).resolve().parents[2]
    args = tuple(str(root / a) if a.endswith(".toml") else a for a in args)
    mix = () if "--mix" in args else ("--mix", "reign")
    res = invoke("run", "--games", "12", *mix, "--seed", "18", "--out", str(out), "--quiet", *args)
    assert res.exit_code == 0, res.stderr
    for game in games:
        res = invoke("replay", str(out), "--game", str(game))
        assert res.exit_code == 0, res.stderr
        setup = res.stdout.split("\nSet-up\n")[1].split("\nTurn 1: ")[0]
        stacks = [ln for ln in setup.splitlines() if "reward cards (top last):" in ln]
        assert [ln.split(":")[0].strip() for ln in stacks] == [
            "city 1 reward cards (top last)",
            "city 2 reward cards (top last)",
            "city 3 reward cards (top last)",
        ]
        for ln in stacks:
            assert len(ln.split("(top last): ")[1].split("; ")) == 4, ln
        assert "Laurel of the Melee" not in res.stdout
        assert "Matches game" in res.stdout


def test_cli_replay_help() -> None:
    res = invoke("replay", "--help")
    assert res.exit_code == 0
    assert "omensim replay results/demo --game 123" in res.stdout
    assert "--positions" in res.stdout and "event trace" in res.stdout
    assert "replay" in invoke("--help").stdout


def _one_error(res, fragment: str) -> None:
    assert res.exit_code != 0
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), res.stderr
    assert fragment in lines[0]


def test_cli_replay_errors(run_dir, tmp_path) -> None:
    _one_error(invoke("replay", str(tmp_path / "nope"), "--game", "1"), "no run directory")
    _one_error(invoke("replay", str(tmp_path), "--game", "1"), "not a run directory")
    _one_error(invoke("replay", str(run_dir), "--game", "200"), "out of range")
    _one_error(invoke("replay", str(run_dir), "--game", "-1"), "out of range")
    _one_error(invoke("replay", str(run_dir)), "--game")
    _one_error(invoke("replay", str(run_dir), "--game", "x"), "--game")

    # An incomplete run is refused.
    inc = tmp_path / "incomplete"
    inc.mkdir()
    manifest = json.loads((run_dir / "_manifest.json").read_text())
    (inc / "_manifest.json").write_text(json.dumps({**manifest, "complete": False}))
    resign(inc)
    _one_error(invoke("replay", str(inc), "--game", "1"), "incomplete")

    # A complete manifest whose part is gone (checked against the manifest).
    gone = tmp_path / "gone"
    gone.mkdir()
    (gone / "_manifest.json").write_text(json.dumps(manifest))
    _one_error(invoke("replay", str(gone), "--game", "5"), "listed in _manifest.json but missing")
    # A part that exists but lacks the row.
    import pandas as pd

    df = pd.read_parquet(run_dir)
    df[df.game_id != 5].to_parquet(gone / manifest["parts"][0]["file"])
    _one_error(invoke("replay", str(gone), "--game", "5"), "holds 199 games")


def test_cli_replay_detects_a_changed_row(run_dir, tmp_path) -> None:
    """A row on disk that the replay does not reproduce is an error, naming the column."""

    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "_manifest.json").write_text((run_dir / "_manifest.json").read_text())
    import pyarrow as pa
    import pyarrow.parquet as pq

    manifest = json.loads((run_dir / "_manifest.json").read_text())
    part = manifest["parts"][0]["file"]
    table = pq.read_table(run_dir / part)
    df = table.to_pandas()
    df.loc[df.game_id == 7, "turns"] += 1
    # Keep the part's run metadata: only the row differs.
    changed = pa.Table.from_pandas(df, preserve_index=False)
    pq.write_table(changed.replace_schema_metadata(table.schema.metadata), bad / part)
    # The part's checksum names the edit first; re-signed, the replay still finds the row.
    _one_error(invoke("replay", str(bad), "--game", "7"), "was edited, damaged or replaced")
    resign(bad)
    res = invoke("replay", str(bad), "--game", "7")
    _one_error(res, "turns: replay")
    # The story is still told, but nothing in it says the row matched.
    assert res.stdout.startswith("Game 7 of seed 21") and "Matches" not in res.stdout


def test_cli_replay_refuses_card_and_rule_files_edited_since_the_run(tmp_path) -> None:
    """The replay rebuilds the cards from the files the run named; one edited since is
    refused before anything is told, naming it, and the run replays again once restored."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    cards, rules = tmp_path / "aegean.toml", tmp_path / "rules.toml"
    shipped = (root / "configs/sets/aegean.toml").read_text()
    cards.write_text(shipped)
    rules.write_text("[rules]\nstart_coins = 5\n")
    out = tmp_path / "run"
    args = ("--games", "20", "--mix", "aegean", "--seed", "1", "--quiet")
    res = invoke("run", *args, "--cards", str(cards), "--rules", str(rules), "--out", str(out))
    assert res.exit_code == 0, res.stderr

    first = shipped.index("\ncost = ")  # the first unit's cost
    old = shipped[first : shipped.index("\n", first + 1)]
    cards.write_text(shipped.replace(old, "\ncost = 5", 1))
    res = invoke("replay", str(out), "--game", "3")
    _one_error(res, f"{cards} has changed since the run")
    assert res.exit_code == 1 and res.stdout == ""

    cards.write_text(shipped)
    rules.write_text("[rules]\nstart_coins = 6\n")
    res = invoke("replay", str(out), "--game", "3")
    _one_error(res, f"{rules} has changed since the run")
    assert res.stdout == ""

    rules.write_text("[rules]\nstart_coins = 5\n")
    res = invoke("replay", str(out), "--game", "3")
    assert res.exit_code == 0, res.stderr
    assert res.stdout.rstrip().endswith(f"Matches game 3's row in {out} (every column).")
