"""``omensim report`` end to end: real runs in, a page with working charts out.

The runs are small real ones (the engine plays them); the checks read the
page the way a browser would (every <img> must be a valid PNG inlined in the
page, nothing may be fetched) and compare the printed figures with
sim.analysis computed independently. tests/analysis/test_report_browser.py opens the
page in a real browser.
"""

from __future__ import annotations

import base64
import html
import json
import os
import shutil
import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from conftest import assert_one_error_line, invoke
from tamper import resign

from sim import analysis as A
from sim.analysis.report import REPORT_NAME, build_report
from sim.data.spec import RunSpec
from sim.run import io
from sim.run.lock import locked
from sim.run.runner import RunError, run

GAMES = 2000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("report-runs")
    standard = root / "standard"
    emissary = root / "emissary"
    run(RunSpec(games=GAMES, mix="aegean", seed=1), standard, threads=1, progress=False)
    run(
        RunSpec(games=GAMES, mix="aegean", seed=2, variants=("emissary",)),
        emissary,
        threads=1,
        progress=False,
    )
    return standard, emissary


class _Images(HTMLParser):
    """Collects <img src> and any external reference a self-contained page must not have."""

    def __init__(self) -> None:
        super().__init__()
        self.srcs: list[str] = []
        self.alts: list[str] = []
        self.tags: set[str] = set()
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for name, value in attrs:
            if tag == "img" and name == "src" and value:
                self.srcs.append(value)
            if tag == "img" and name == "alt" and value:
                self.alts.append(value)
            if name in ("src", "href") and value and "://" in value:
                self.external.append(value)


def assert_valid_png(data: bytes, name: str) -> None:
    """Signature, IHDR with a sane size, and every chunk's CRC: a PNG a browser will show."""
    assert data[:8] == PNG_SIGNATURE, f"{name} is not a PNG"
    pos, kinds = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"{name}: bad CRC in {kind!r}"
        kinds.append(kind)
        pos += 12 + length
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds
    width, height = struct.unpack(">II", data[16:24])
    assert 100 < width < 5000 and 100 < height < 5000


def check_page(out: Path) -> _Images:
    page = out / REPORT_NAME
    assert page.is_file()
    parser = _Images()
    parser.feed(page.read_text(encoding="utf-8"))
    assert {"html", "table", "img", "style"} <= parser.tags
    assert not parser.external, "the page must open without a network"
    assert [p.name for p in out.iterdir()] == [REPORT_NAME], "one self-contained file"
    prefix = "data:image/png;base64,"
    for src, alt in zip(parser.srcs, parser.alts, strict=True):
        assert src.startswith(prefix), f"{alt}: not an inline PNG"
        assert_valid_png(base64.b64decode(src[len(prefix) :], validate=True), alt)
    return parser


def rate_text(rate: float, lo: float, hi: float) -> str:
    return f"{rate:.2%} (95% CI {lo * 100:.2f}-{hi * 100:.2f}%)"


def no_temporaries(parent: Path) -> None:
    assert not [p.name for p in parent.iterdir() if p.name.startswith(".")]


# --- the normal path ------------------------------------------------------------------------


def test_report_of_two_runs(runs: tuple[Path, Path], tmp_path: Path) -> None:
    standard, emissary = runs
    out = tmp_path / "rep"
    result = invoke("report", str(standard), str(emissary), "--out", str(out))
    assert result.exit_code == 0, result.output
    parser = check_page(out)
    assert {"who wins, by run", "first-player win rate by run", "seat balance",
            "differences in first-player win rate", "card effect", "score margin histogram",
            "game length distribution", "end reasons", "score component shares"} <= set(
        parser.alts)  # fmt: skip
    no_temporaries(tmp_path)

    # The printed figures are sim.analysis's numbers.
    df = A.load_runs([standard, emissary])
    fpa = A.first_player_advantage(df, by="run").set_index("run")
    for name in ("standard", "emissary"):
        r = fpa.loc[name]
        assert f"{int(r['games']):,} games" in result.stdout
        assert f"first player won {rate_text(r['rate'], r['lo'], r['hi'])}" in result.stdout
    d = A.difference(df, "run", "emissary", "standard").iloc[0]
    expected = f"{d['diff'] * 100:+.2f} pp (95% CI {d['lo'] * 100:+.2f} to {d['hi'] * 100:+.2f})"
    assert f"emissary minus standard: first-player win rate {expected}" in result.stdout
    top = A.card_impact(df, min_games=200)
    best = top[~top["low_sample"]].iloc[0]
    assert f"{best['card']} {best['diff'] * 100:+.2f} pp" in result.stdout
    assert f"Report: {out / REPORT_NAME}" in result.stdout
    # ... and the page says the same.
    page = (out / REPORT_NAME).read_text(encoding="utf-8")
    assert rate_text(*fpa.loc["standard", ["rate", "lo", "hi"]]) in page


def test_report_of_one_run_and_rerun_in_place(runs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "one"
    made = build_report(runs[0], out)
    page = made.html
    assert page == out / REPORT_NAME
    parser = check_page(out)
    assert "differences in first-player win rate" not in parser.alts  # one run: no comparison
    assert "first player won" in made.text.splitlines()[0]
    first = page.stat().st_mtime_ns
    with pytest.raises(RunError, match="use --force to replace the report"):
        build_report(runs[0], out)  # never overwritten without --force
    page = build_report(runs[0], out, force=True).html  # an existing report is refreshed
    assert page.stat().st_mtime_ns >= first
    check_page(out)
    no_temporaries(tmp_path)


def test_a_second_writer_of_a_report_folder_is_refused_in_one_line(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """Every command that writes a folder takes the same lock, the report included."""
    out = tmp_path / "held"
    out.mkdir()
    with locked(out):  # another writer holds the folder
        result = invoke("report", str(runs[0]), "--out", str(out))
    assert_one_error_line(result)
    assert str(os.getpid()) in result.stderr
    assert not (out / REPORT_NAME).exists()


def test_paired_estimate_for_duplicate_deals(runs: tuple[Path, Path], tmp_path: Path) -> None:
    """A run whose consecutive games share a deal (as --duplicate writes them) gets the
    paired estimate. Seats alternate going first, so games 2k and 2k+1 form a valid pair."""
    source = io.read_run(runs[0])
    source["deal_id"] = source["game_id"] // 2
    dup = tmp_path / "dup"
    dup.mkdir()
    meta = io.read_metadata(runs[0])
    io.write_part(pa.Table.from_pandas(source, preserve_index=False), dup, 0, meta)
    parts = [{"file": io.part_name(0), "first_game": 0, "games": len(source)}]
    spec = {**io.read_manifest(runs[0])["spec"], "duplicate": True}
    io.write_manifest(dup, meta, parts, len(source), complete=True, extra={"spec": spec})

    assert A.run_info(dup)["duplicate"].tolist() == [True]
    report = build_report([dup], tmp_path / "rep")
    paired = A.paired_first_player_advantage(A.load_runs(dup), by=None).iloc[0]
    assert paired["deals"] == GAMES // 2
    line = f"dup paired over {GAMES // 2:,} deals: {rate_text(*paired[['rate', 'lo', 'hi']])}"
    assert line in report.text
    assert "Paired estimate" in report.html.read_text(encoding="utf-8")
    check_page(tmp_path / "rep")


# --- bad input: one line, non-zero exit, nothing written ------------------------------------


def incomplete_copy(run_dir: Path, where: Path) -> Path:
    shutil.copytree(run_dir, where)
    manifest = json.loads((where / io.MANIFEST_NAME).read_text())
    manifest["complete"] = False
    (where / io.MANIFEST_NAME).write_text(json.dumps(manifest))
    resign(where)
    return where


@pytest.mark.parametrize("case", ["missing", "file", "not_a_run", "incomplete", "twice"])
def test_bad_runs_give_one_line_and_write_nothing(
    runs: tuple[Path, Path], tmp_path: Path, case: str
) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    if case == "missing":
        bad, message = [str(inputs / "nope")], "does not exist"
    elif case == "file":
        (inputs / "f.parquet").write_text("x")
        bad, message = [str(inputs / "f.parquet")], "is not a run directory"
    elif case == "not_a_run":
        (inputs / "empty").mkdir()
        bad, message = [str(inputs / "empty")], "is not a run directory"
    elif case == "incomplete":
        # ... and says how to finish it, in the command's words
        bad, message = [str(incomplete_copy(runs[0], inputs / "partial"))], "--resume"
    else:
        bad, message = [str(runs[0]), str(runs[0])], "given twice"
    out = tmp_path / "out" / "rep"
    result = invoke("report", str(runs[1]), *bad, "--out", str(out))
    assert_one_error_line(result)
    assert result.exit_code == 1
    assert message in result.stderr
    assert not (tmp_path / "out").exists(), "nothing may be written for bad input"


def test_bad_out_dirs(runs: tuple[Path, Path], tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    for out, message in [
        (tmp_path / "file", "is not a directory"),
        (runs[0], "is a run directory"),
        (runs[0] / "sub", "inside the run"),
    ]:
        result = invoke("report", str(runs[0]), "--out", str(out))
        assert_one_error_line(result)
        assert message in result.stderr
    assert not (runs[0] / "sub").exists()
    assert io.stray_files(runs[0]) == []


def test_usage_errors_and_help() -> None:
    assert_one_error_line(invoke("report", "--out", "x"))  # no run given
    assert_one_error_line(invoke("report", "somewhere"))  # no --out
    result = invoke("report", "--help")
    assert result.exit_code == 0
    assert "Example:" in result.output and "omensim report" in result.output


# --- what the page shows ---------------------------------------------------------------------


def test_runs_with_one_seed_are_paired(runs: tuple[Path, Path], tmp_path: Path) -> None:
    """Two runs with the same seed play the same deals: the page pairs them game by game,
    and the paired figure is sim.analysis.paired's."""
    from sim.analysis.paired import first_player_shift

    other = tmp_path / "emissary-s1"
    run(RunSpec(games=GAMES, mix="aegean", seed=1, variants=("emissary",)), other, threads=1,
        progress=False)  # fmt: skip
    report = build_report([runs[0], other], tmp_path / "rep")
    d = first_player_shift(io.read_run(runs[0]), io.read_run(other))
    assert d.games == GAMES
    line = (f"emissary-s1 minus standard, paired over {GAMES:,} games with the same seed: "
            f"{d.diff * 100:+.2f} pp")  # fmt: skip
    assert line in report.text
    assert "paired 95% CI (pp)" in report.html.read_text(encoding="utf-8")


def test_runs_of_different_mixes_are_independent(runs: tuple[Path, Path], tmp_path: Path) -> None:
    """A run of another mix with the same seed deals other games: the report gives the
    unpaired difference only, and says the runs are independent."""
    other = tmp_path / "reign-s1"
    run(RunSpec(games=GAMES, mix="reign", seed=1), other, threads=1, progress=False)
    report = build_report([runs[0], other], tmp_path / "rep")
    assert "paired over" not in report.text
    assert "reign-s1 minus standard: first-player win rate " in report.text
    assert "independent runs (unpaired)" in report.text
    assert "paired 95% CI (pp)" not in report.html.read_text(encoding="utf-8")


def test_card_table_has_every_kind_with_names(runs: tuple[Path, Path], tmp_path: Path) -> None:
    report = build_report(runs[0], tmp_path / "rep")
    page = report.html.read_text(encoding="utf-8")
    cards = A.cards(runs[0])
    table = page[page.index('id="cards"') :]
    table = table[: table.index("</table>")]
    assert table.count("<tr") == len(cards) + 1  # the header and one row per kind
    for name in cards["name"]:
        assert name in html.unescape(page)
    assert 'id="cards" class="sortable"' in page and 'id="card-filter"' in page
    # Runs now write held_p0/p1, so the hold-rate column is shown.
    assert "hold rate" in page


def test_lengths_are_filled_across_runs() -> None:
    """A run without games of some length has 0% there, not a line bridging the gap."""
    from sim.analysis.report_tables import filled_lengths

    lengths = pd.DataFrame(
        {"run": ["a", "a", "b", "b"], "turns": [10, 14, 10, 12], "games": [1, 1, 3, 1],
         "share": [0.5, 0.5, 0.75, 0.25]}
    )  # fmt: skip
    full = filled_lengths(lengths)
    a = full[full["run"] == "a"].set_index("turns")["share"]
    assert a.index.tolist() == [10, 11, 12, 13, 14]
    assert a.tolist() == [0.5, 0, 0, 0, 0.5]
    assert full.groupby("run")["share"].sum().tolist() == [1.0, 1.0]


def test_hold_rate_column_when_runs_record_held_cards(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """Runs with held_p0/p1 (card kinds each seat held) get a hold-rate column."""
    source = io.read_run(runs[0])
    source["held_p0"] = source["played_p0"]
    source["held_p1"] = source["played_p0"].map(lambda ids: list(ids)[:1])
    held = tmp_path / "held"
    held.mkdir()
    meta = io.read_metadata(runs[0])
    io.write_part(pa.Table.from_pandas(source, preserve_index=False), held, 0, meta)
    parts = [{"file": io.part_name(0), "first_game": 0, "games": len(source)}]
    spec = io.read_manifest(runs[0])["spec"]
    io.write_manifest(held, meta, parts, len(source), complete=True, extra={"spec": spec})
    page = build_report(held, tmp_path / "rep").html.read_text(encoding="utf-8")
    assert '<th title="click to sort">hold rate</th>' in page
    from report_oracle import card_table

    df = A.load_runs(held)
    table = card_table(df, A.run_info(held), A.card_impact(df))
    both = list(source["held_p0"]) + list(source["held_p1"])
    k = int(table["id"].iloc[0])
    assert table["hold_rate"].iloc[0] == sum(k in set(ids) for ids in both) / len(both)


def test_identical_runs_pair_to_zero(runs: tuple[Path, Path], tmp_path: Path) -> None:
    """A run against a copy of itself: a paired difference of exactly 0, and a page."""
    copy = tmp_path / "copy"
    shutil.copytree(runs[0], copy)
    report = build_report([runs[0], copy], tmp_path / "rep")
    assert f"paired over {GAMES:,} games with the same seed: +0.00 pp" in report.text
    check_page(tmp_path / "rep")
