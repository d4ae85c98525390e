"""``from sim import api``: the README's notebook example runs as written.

The test executes the README block that follows ``<!-- api-example -->`` in a
fresh working directory, then checks what it left behind: DataFrames with
names and metadata, and result objects that render as HTML in a notebook.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- api-example -->\s*```python\n(.*?)```", text, re.S)
    assert match, "README.md has no <!-- api-example --> python block"
    return match.group(1)


def test_readme_example_is_short() -> None:
    assert len(readme_example().strip().splitlines()) <= 10


def test_readme_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    scope: dict[str, object] = {}
    # Twice: a reader reruns a notebook cell, and the second run must replace the first.
    for _ in range(2):
        exec(compile(readme_example(), "README.md (api example)", "exec"), scope)

    from sim import api

    run = scope["run"]
    assert isinstance(run, api.Run)
    assert (tmp_path / "results" / "api-demo" / "_manifest.json").is_file()
    page = run._repr_html_()
    assert "<table>" in page and "first player won" in page and "95% CI" in page
    assert "first player won" in str(run)

    df = scope["df"]
    assert isinstance(df, pd.DataFrame) and len(df) == run.result.games
    assert df.attrs["spec"]["seed"] == run.result.spec.seed
    names = {c["name"] for c in df.attrs["cards"]}
    assert all(isinstance(n, str) and n in names for ids in df["played_p0"] for n in ids)

    cmp = scope["cmp"]
    assert isinstance(cmp, api.Compared)
    table = cmp.table
    assert isinstance(table, pd.DataFrame)
    assert table["metric"].iloc[0] == "first_player_win_rate"
    assert "card_win_rate: Ker of the Spoils" in set(table["metric"])
    assert "<table" in cmp._repr_html_() and "Ker of the Spoils.cost=+1" in cmp._repr_html_()


def test_api_load_is_the_analysis_load() -> None:
    from sim import analysis, api

    assert api.load is analysis.load


def test_api_refuses_unknown_keywords_before_playing() -> None:
    """``run`` and ``compare`` take the seat keywords (``api.Seats``) and nothing else."""
    from sim import Error, api

    with pytest.raises(Error, match="p2"):
        api.run(games=5, p2="random")
    with pytest.raises(Error, match="turn_cap"):
        api.compare("Ker of the Spoils.cost=+1", games=5, turn_cap=3)
