"""The desk's web app through Starlette's test client: the door, the workspace's walls,
card edits checked as the CLI checks them, questions as commands, answers as folders."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import invoke, one_error_line
from desk_client import TOKEN, desk, record, wait

from sim.data.cards import SETS_DIR
from sim.data.spec import SpecError
from sim.desk import questions as Q
from sim.desk.workspace import OutsideWorkspace, Workspace

pytest.importorskip("starlette", reason="the desk extra is not installed (.[desk])")

KER = "Ker of the Spoils"


def _edit(client, value: str, name: str = "cheaper", card: str = KER, field: str = "cost"):
    return client.post(
        "/api/edit",
        json={"mix": "aegean", "change_set": name, "card": card, "field": field, "value": value},
    )


def test_a_request_without_the_token_is_refused(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from sim.desk.app import make_app

    with TestClient(make_app(tmp_path, TOKEN), base_url="http://127.0.0.1") as client:
        for url in ("/cards", "/history?token=wrong", "/static/desk.css", "/api/ask"):
            r = client.get(url)
            assert r.status_code == 403, url
            assert "needs its access token" in r.text
        assert client.post("/api/edit", json={}).status_code == 403
        r = client.get(f"/cards?token={TOKEN}")
        assert r.status_code == 200
        assert "HttpOnly" in r.headers["set-cookie"]
        assert client.get("/history").status_code == 200  # the cookie carries it on
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers", "changes"]
    assert not any(tmp_path.rglob("*.*"))


def test_another_host_name_and_a_large_body_are_refused(tmp_path: Path) -> None:
    with desk(tmp_path) as client:
        r = client.get("/history", headers={"host": "evil.example:8765"})
        assert r.status_code == 400
        r = client.post("/api/edit", content=b"x" * 70_000, headers={"content-type": "text/plain"})
        assert r.status_code == 413
        assert "at most" in r.text
    assert not list((tmp_path / "changes").iterdir())


def test_no_path_leaves_the_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    outside.mkdir()
    with desk(ws) as client:
        (ws / "link").symlink_to(outside)
        for path in ("../outside", "/etc", "link", "answers/../../outside"):
            r = client.get("/open", params={"path": path})
            assert r.status_code == 403, path
            assert "outside the workspace" in r.text
        r = client.get("/replay", params={"path": "../outside", "run": "run", "game": "1"})
        assert "outside the workspace" in r.text
        assert _edit(client, "3", name="../escape").status_code == 400
        assert client.get("/answers/..%2F..%2Fetc").status_code == 404
    assert not list(outside.iterdir())
    with pytest.raises(OutsideWorkspace):
        Workspace(ws).named("changes", "../x", ".toml")


def test_a_malformed_edit_gets_the_clis_error_and_writes_nothing(tmp_path: Path) -> None:
    shipped = hashlib.sha256((SETS_DIR / "aegean.toml").read_bytes()).hexdigest()
    with desk(tmp_path) as client:
        for value, cli_value in (("abc", "abc"), ("100", "100"), ("-5", "-5"), ("", "")):
            r = _edit(client, value)
            assert r.status_code == 400
            cli = one_error_line(
                invoke("compare", "--games", "10", "--change", f"{KER}.cost={cli_value}")
            )
            assert cli == f"Error: {r.json()['error']}"
        r = _edit(client, "3", card="Ker of the Spoilz")
        assert "did you mean 'Ker of the Spoils'" in r.json()["error"]
        r = _edit(client, "3", name=" ")
        assert r.json()["error"].startswith("name a change set first")
    assert not list((tmp_path / "changes").iterdir())
    assert hashlib.sha256((SETS_DIR / "aegean.toml").read_bytes()).hexdigest() == shipped


def test_an_edit_becomes_a_change_set_with_its_provenance(tmp_path: Path) -> None:
    import tomllib

    shipped = hashlib.sha256((SETS_DIR / "aegean.toml").read_bytes()).hexdigest()
    with desk(tmp_path) as client:
        assert _edit(client, "4").json()["changes"] == [f"{KER}.cost=4"]
        r = _edit(client, "3")  # the same field again replaces the earlier edit
        assert r.json()["changes"] == [f"{KER}.cost=3"]
        assert _edit(client, "+1", field="strength").status_code == 200
        data = tomllib.loads((tmp_path / "changes" / "cheaper.toml").read_text())
        page = client.get("/cards", params={"set": "cheaper"}).text
    assert data["mix"] == "aegean"
    assert data["changes"] == [f"{KER}.cost=3", f"{KER}.strength=+1"]
    assert data["edit"][0]["shipped"] == 2 and data["edit"][0]["source"] == "reconstructed"
    assert data["made_by"].startswith("omensim desk")
    assert page.count('class="cost edited"') == 1 and page.count('class="strength edited"') == 1
    assert hashlib.sha256((SETS_DIR / "aegean.toml").read_bytes()).hexdigest() == shipped


def test_an_edit_back_to_the_shipped_value_removes_the_earlier_edit(tmp_path: Path) -> None:
    """On the command line an edit that changes nothing is refused; at the desk, typing the
    shipped value back into a cell is how a designer undoes an edit."""
    import tomllib

    with desk(tmp_path) as client:
        assert _edit(client, "4").json()["changes"] == [f"{KER}.cost=4"]
        assert _edit(client, "+1", field="strength").status_code == 200
        r = _edit(client, "2")  # Ker of the Battlefield's shipped cost
        assert r.status_code == 200 and r.json()["changes"] == [f"{KER}.strength=+1"]
        data = tomllib.loads((tmp_path / "changes" / "cheaper.toml").read_text())
        page = client.get("/cards", params={"set": "cheaper"}).text
    assert data["changes"] == [f"{KER}.strength=+1"] and len(data["edit"]) == 1
    assert page.count('class="cost edited"') == 0 and page.count('class="strength edited"') == 1


def test_forms_become_the_cli_commands() -> None:
    q = Q.from_form(
        {"kind": "change", "bot": "greedy", "seed": "7", "games": "2e4", "budget": "games"},
        (f"{KER}.cost=3",),
    )
    assert Q.command(q, "answers/x") == [
        "compare", "--mix", "aegean", "--p0", "greedy", "--p1", "greedy", "--seed", "7",
        "--games", "20000", "--change", f"{KER}.cost=3", "--out", "answers/x",
        "--chunk-size", "2500",
    ]  # fmt: skip
    q = Q.from_form({"kind": "first", "budget": "precision", "precision": "0.5", "games": "1e6"})
    assert Q.command(q, "a")[-2:] == ["--until-ci", "0.005"]
    q = Q.from_form({"kind": "emissary", "games": "1000"})
    assert "--b-variant" in Q.plan_command(q) and Q.plan_command(q)[-2:] == ["--plan", "0.005"]
    q = Q.from_form({"kind": "strength", "games": "400", "tiers": "greedy, value vsearch"})
    tiers = ["strength", "--mix", "aegean", "--tiers", "greedy,value,vsearch"]
    assert Q.command(q, "a")[:5] == tiers
    assert "greedy < value < vsearch" in q.title
    for form, problem in (
        ({"kind": "nope"}, "unknown question"),
        ({"kind": "first", "games": "1.5"}, "games:"),
        ({"kind": "first", "bot": "cheater"}, "unknown bot"),
        ({"kind": "first", "budget": "precision", "precision": "80"}, "between 0 and 50"),
        ({"kind": "change"}, "needs a change set"),
        ({"kind": "balance", "card": ""}, "needs a card"),
        ({"kind": "first", "mix": "../etc"}, "card sets joined"),
        ({"kind": "strength", "tiers": "greedy,cheater"}, "unknown tier 'cheater'"),
        ({"kind": "strength", "tiers": "greedy"}, "two or more different bots"),
        ({"kind": "strength", "tiers": "greedy,,value"}, "tiers 'greedy,,value' has an empty"),
        ({"kind": "strength", "tiers": "greedy value greedy"}, "'greedy' more than once"),
        ({"kind": "mixes", "mixes": "aegean, ,dunes"}, "has an empty mix name"),
        ({"kind": "mixes", "mixes": "aegean AEGEAN"}, "mixes lists 'aegean' more than once"),
    ):
        with pytest.raises(SpecError, match=problem):
            Q.from_form(form)


def test_an_answer_is_a_folder_the_cli_and_pandas_read(tmp_path: Path) -> None:
    import pandas as pd

    from sim import analysis

    with desk(tmp_path) as client:
        assert client.post("/api/ask", json={"kind": "first", "games": "nope"}).status_code == 400
        r = client.post("/api/ask", json={"kind": "first", "games": "600", "seed": "3"})
        name = r.json()["name"]
        rec = wait(tmp_path, name)
        assert rec["status"] == "done", rec
        page = client.get(f"/answers/{name}").text
        estimate = client.post("/api/plan", json={"kind": "first", "games": "600"}).json()
        replay = client.get("/replay", params={"answer": name, "run": "run", "game": "7"}).text
        bad = client.get("/replay", params={"answer": name, "run": "B", "game": "7"}).text
        history = client.get("/history").text
    folder = tmp_path / "answers" / name
    assert rec["command"].startswith("omensim run --mix aegean --p0 greedy --p1 greedy --seed 3")
    assert rec["command"] in page.replace("&#39;", "'") and page.count("<svg") == 2
    assert "first player won" in rec["stdout"]
    assert len(analysis.load(folder)) == len(pd.read_parquet(folder)) == 600
    assert "games/s" in estimate["text"]  # measured by the answer above
    assert name in history
    assert "Matches game 7&#39;s row" in replay
    assert f"omensim replay answers/{name} --game 7" in replay
    assert "no run &#39;B&#39; in this answer; it has run" in bad
    out = tmp_path / "report"
    assert invoke("report", str(folder), "--out", str(out), "-q").exit_code == 0


def test_a_cancelled_answer_leaves_no_folder_and_no_process(tmp_path: Path) -> None:
    with desk(tmp_path) as client:
        name = client.post("/api/ask", json={"kind": "first", "games": "5e6"}).json()["name"]
        wait(tmp_path, name, ("running",))
        deadline = time.monotonic() + 120
        while not (tmp_path / "answers" / name).exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        pid = record(tmp_path, name)["pid"]
        assert client.post(f"/api/cancel/{name}").json() == {"ok": True}
        rec = wait(tmp_path, name)
        events = client.get(f"/answers/{name}/events").text
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)  # the command's whole process group is gone
    assert rec["status"] == "cancelled"
    assert not (tmp_path / "answers" / name).exists()
    assert '"status": "cancelled"' in events


def test_a_restarted_desk_finds_its_answers(tmp_path: Path) -> None:
    with desk(tmp_path) as client:
        name = client.post("/api/ask", json={"kind": "first", "games": "400"}).json()["name"]
        wait(tmp_path, name)
    (tmp_path / "answers" / "stale.json").write_text(
        '{"name": "stale", "title": "t", "status": "running", "args": ["run"], "command": "c",'
        ' "question": {"kind": "first"}}'
    )
    # A folder the command line wrote into the workspace, with no desk record: the folders
    # are the state, so the history finds it too.
    shutil.copytree(tmp_path / "answers" / name, tmp_path / "results" / "by-hand")
    (tmp_path / ".pilot-stopped" / "run").mkdir(parents=True)  # a desk stopped mid-pilot
    with desk(tmp_path) as client:
        history = client.get("/history").text
        assert record(tmp_path, "stale")["status"] == "interrupted"
        side = client.get("/compare", params={"a": name, "b": "stale"})
        opened = client.get("/open", params={"path": "results/by-hand"}).text
    assert name in history and "stale" in history
    assert not (tmp_path / ".pilot-stopped").exists()
    assert '<a href="/open?path=results/by-hand">results/by-hand</a></td><td>run' in history
    assert history.count("/open?path=") == 1  # the asked answer is listed once, as itself
    assert side.status_code == 200 and "first player won" in side.text
    assert 'sim.analysis.load("results/by-hand")' in opened and opened.count("<svg") == 2


def test_every_question_shows_its_time_before_it_starts(tmp_path: Path) -> None:
    """In a fresh workspace no answer has measured a bot's speed: a pilot does, and leaves
    nothing behind; a question whose command has a plan shows the plan's own figures."""
    forms = [
        {"kind": "first", "games": "30000"},
        {"kind": "strength", "games": "1000", "tiers": "economic,greedy"},
        {"kind": "mixes", "games": "500", "mixes": "aegean dunes"},
        {"kind": "balance", "games": "1000", "card": KER, "field": "cost"},
    ]
    with desk(tmp_path) as client:
        texts = [client.post("/api/plan", json=form).json()["text"] for form in forms]
        emissary = client.post("/api/plan", json={"kind": "emissary", "games": "4000"}).json()
    pilot = "a pilot of 2,000 {} games on aegean"
    assert texts[0].startswith("30,000 games, about ") and pilot.format("greedy") in texts[0]
    assert texts[1].startswith("2,000 games, about ")
    assert pilot.format("economic") in texts[1] and pilot.format("greedy") in texts[1]
    assert texts[2].startswith("1,000 games, about ")
    assert texts[3].startswith("at most 9,000 games, about ")
    assert all(" s of play at " in t for t in texts)
    assert "games per run" in emissary["text"] and "4,000 games per run" in emissary["text"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answers", "changes"]
    assert not any(tmp_path.rglob("*.*"))


def test_desk_without_the_extra_says_so_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from sim.cli import desk as cli_desk

    monkeypatch.setattr(cli_desk, "EXTRA", ("no_such_module_for_the_desk",))
    line = one_error_line(invoke("desk", "--port", "0"))
    assert "pip install -e '.[desk]'" in line


def test_desk_help_names_its_options() -> None:
    out = invoke("desk", "--help").output
    assert "--workspace" in out and "--port" in out and "token" in out


@pytest.mark.parametrize(
    ("form", "printed", "svgs"),
    [
        ({"kind": "strength", "games": "300"}, "card strength on aegean", 3),
        (
            {"kind": "strength", "games": "300", "tiers": "economic,greedy"},
            "holders' effect per skill tier, weakest first",
            3,  # each card's effect per tier, then win rate by turn and the margin
        ),
        ({"kind": "mixes", "games": "200", "mixes": "aegean, dunes"}, "2 mixes, greedy", 0),
        ({"kind": "balance", "games": "1000", "card": KER, "field": "cost"}, KER, 2),
        (
            {"kind": "emissary", "games": "20000", "budget": "precision", "precision": "20"},
            "B with: variants",
            3,
        ),
    ],
    ids=["strength", "strength-tiers", "mixes", "balance", "emissary-until-ci"],
)
def test_every_question_is_answered_as_its_command_prints_it(
    tmp_path: Path, form: dict[str, str], printed: str, svgs: int
) -> None:
    with desk(tmp_path) as client:
        name = client.post("/api/ask", json={"pilot": "", **form}).json()["name"]
        rec = wait(tmp_path, name)
        page = client.get(f"/answers/{name}").text
        events = client.get(f"/answers/{name}/events").text
    assert rec["status"] == "done", rec
    assert printed in rec["stdout"]
    assert page.count("<svg") == svgs
    # The last progress message: every game the command played, of as many as it said.
    last = json.loads(events.strip().splitlines()[-1].removeprefix("data: "))
    if form["kind"] == "balance":  # no total known before a race ends; its games are counted
        assert f"Games: {last['done']:,} in all" in rec["stdout"]
        # The race's newest look, as the progress shows it while it plays: its leader's
        # rate and interval, as the command prints the closest candidate.
        leader = re.search(r"(\d+\.\d\d% \(95% CI [^)]*\))", last["estimate"])
        assert leader is not None and leader[1] in rec["stdout"], last["estimate"]
    elif form["kind"] != "mixes":
        assert last["done"] == last["total"] > 0, last
    if form.get("tiers"):  # the running estimate under each tier, each of its games
        assert re.fullmatch(
            r"economic: first player won .* of 300 games; greedy: first player won .* of 300 games",
            last["estimate"],
        ), last["estimate"]
    assert f"omensim {rec['args'][0]} " in rec["command"]
    if form.get("budget") == "precision":  # sized by the CLI's own plan, then played
        assert "For +/- 20.00 points" in rec["plan"]
        games = int(rec["args"][rec["args"].index("--games") + 1])
        assert games < 20_000 and "--until-ci" not in rec["args"]
        played = pd.read_parquet(tmp_path / "answers" / name / "A")  # a whole run: A and B
        assert len(played) == games


def test_a_compares_running_estimate_is_the_compares_own_first_player_line(
    tmp_path: Path,
) -> None:
    """Once both arms are written, the estimate the desk streams is the line compare prints."""
    from sim.desk.answers import running_estimate

    out = tmp_path / "c"
    args = ["compare", "--mix", "aegean", "--games", "600", "--seed", "2", "--threads", "1"]
    done = invoke(*args, "--change", "Ker of the Spoils.cost=+1", "--out", str(out))
    assert done.exit_code == 0, done.output
    printed = re.search(r"first-player win rate: (\S+ -> \S+, change .*?\))", done.stdout)
    got = running_estimate(out, "change")
    assert got == f"first-player win rate {printed[1]} over 600 paired games"
