"""Every kind of report in a real browser: headless Chromium, driven by Selenium.

One browser for the whole module. Each folder a command writes (a run, several
runs, a compare, a sweep, a tournament, a run panel, a compare panel, a balance, a
balance set) is reported with ``omensim report``, opened at a 1,400 px wide viewport and
checked: no console errors, the page and every table within 1,400 px with no
table scrolling inside its box, and no blank column
(:func:`chromium_page.layout_problems`; the control pages show those checks fail).
The multi-run report's card table also sorts when a header is clicked and
filters when text is typed. Drawing the charts is much of the module's time, so the
panel pages inline the charts drawn for the side-by-side runs page (the same charts
of several runs, from the same code); the single run and the side-by-side runs draw
their own. With ``OMENSIM_UPDATE_SCREENSHOT=1`` the screenshots
replace ``docs/report.png``, ``docs/report-cards.png`` and ``docs/report-compare.png``.
Skipped, with the reason, only where Chromium, chromedriver or Selenium are not
installed (``.ci/run`` installs Debian's ``chromium`` and ``chromium-driver``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium_page import VIEWPORT, browser_or_skip, chromium, layout_problems, open_page
from conftest import invoke, ok

from sim.analysis import report
from sim.analysis.report import build_report
from sim.data.spec import RunSpec
from sim.run.runner import run

DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"  # the README's screenshots
KER = "Ker of the Battlefield"

# What each kind's folder is made by (small game counts: the layout, not the figures,
# is under test), and how `omensim report` is pointed at it.
KINDS: dict[str, tuple[list[str], list[str]]] = {
    "run": (["run", "--games", "400", "--mix", "dunes", "--seed", "3"], []),
    "compare": (["compare", "--games", "400", "--seed", "3", "--change", f"{KER}.cost=4"], []),
    "sweep": (["sweep", "--games", "100", "--card", "3", "--card", KER], []),
    "tournament": (["tournament", "--bots", "random,greedy", "--games", "100"], []),
    "run-panel": (["run", "--games", "200", "--panel", "greedy,economic"], ["--panel"]),
    "compare-panel": (
        ["compare", "--games", "200", "--change", f"{KER}.cost=4", "--panel", "greedy,economic"],
        ["--panel"],
    ),
    "balance": (
        [
            "balance",
            "--rule",
            "start_coins",
            "--values",
            "3-5",
            "--pilot",
            "200",
            "--max-games",
            "400",
        ],
        [],
    ),
    "balance-set": (
        [
            "balance",
            "--set",
            "--max-edits",
            "1",
            "--measure-games",
            "200",
            "--span",
            "1",
            "--threshold",
            "0.01",
            "--first-bound",
            "40",
            "--pilot",
            "200",
            "--max-games",
            "400",
        ],
        [],
    ),
}


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The module's one headless Chromium, 1,400 px wide, with an empty profile."""
    browser_or_skip()
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``{kind: report.html}`` for every kind of folder, plus ``runs`` (two runs side by side)."""
    browser_or_skip()  # building the folders is wasted where no browser can open them
    root = tmp_path_factory.mktemp("report-kinds")
    pages = {}
    with pytest.MonkeyPatch.context() as mp:
        a, b = root / "standard", root / "emissary"
        run(RunSpec(games=3000, mix="aegean", seed=1), a, threads=1, progress=False)
        run(RunSpec(games=3000, mix="aegean", seed=1, variants=("emissary",)), b, threads=1,
            progress=False)  # fmt: skip
        pages["runs"] = build_report([a, b], root / "report-runs").html
        mp.setattr(report, "draw", _charts_of_several_runs(report.draw))
        for kind, (command, how) in KINDS.items():
            folder = root / kind
            ok(invoke(*command, "--out", str(folder), "-j", "1", "-q"))
            pages[kind] = Path(
                ok(invoke("report", *how, str(folder), "--out", str(root / f"report-{kind}"), "-q"))
                .output.strip()
                .removeprefix("Report: ")
            )
    return pages


def _charts_of_several_runs(draw: Any) -> Any:
    """``draw``, except that a page of several runs gets the charts the first such page
    drew (the side-by-side runs page's)."""
    drawn: dict[str, Any] = {}

    def reuse(tables: Any, top: int, tick: Any) -> Any:
        if tables.outcomes["run"].nunique() < 2:
            return draw(tables, top, tick)
        if not drawn:
            drawn.update(draw(tables, top, tick))
        else:
            for _ in drawn:
                tick()
        return drawn

    return reuse


@pytest.mark.parametrize("kind", [*KINDS, "runs"])
def test_each_report_kind_loads_and_fits_1400_px(
    browser: Any, reports: dict[str, Path], kind: str
) -> None:
    errors = open_page(browser, reports[kind])
    assert errors == [], errors
    assert browser.execute_script("return window.innerWidth") == VIEWPORT
    assert browser.execute_script("return document.querySelectorAll('table').length") >= 1
    assert layout_problems(browser) == []
    # Every inlined chart decoded (a broken data: URI has naturalWidth 0).
    widths = browser.execute_script(
        "return Array.from(document.images).map(function (i) { return i.naturalWidth; })"
    )
    assert all(w > 100 for w in widths), widths


def _control(tmp_path: Path, name: str, body: str) -> Path:
    page = tmp_path / name
    page.write_text(f"<!doctype html><html><body>{body}</body></html>", encoding="utf-8")
    return page


def test_the_fit_check_fails_a_too_wide_table(browser: Any, tmp_path: Path) -> None:
    wide = "<table><tr><th>card</th></tr><tr><td style='white-space:nowrap'>" + "x" * 400
    page = _control(tmp_path, "wide.html", wide + "</td></tr></table>")
    assert open_page(browser, page) == []
    problems = layout_problems(browser)
    assert any(p.startswith("page: scrollWidth") for p in problems), problems
    assert any("spans" in p for p in problems), problems
    # The same table in a scrolling box: the page fits, the table does not.
    boxed = f"<div style='overflow-x:auto'>{wide}</td></tr></table></div>"
    open_page(browser, _control(tmp_path, "boxed.html", boxed))
    assert any("scrolls inside its box" in p for p in layout_problems(browser))


def test_the_blank_column_check_fails_an_empty_column(browser: Any, tmp_path: Path) -> None:
    table = (
        "<table><thead><tr><th>card</th><th>sig</th><th></th></tr></thead><tbody>"
        "<tr><td>a</td><td></td><td>1</td></tr><tr><td>b</td><td> </td><td>2</td></tr>"
        "</tbody></table>"
    )
    open_page(browser, _control(tmp_path, "blank.html", table))
    assert sorted(layout_problems(browser)) == [
        "table 'table 0': column 'sig' is blank in every row",
        "table 'table 0': column 3 has no header",
    ]


def test_console_errors_are_caught(browser: Any, tmp_path: Path) -> None:
    page = _control(tmp_path, "error.html", "<script>undefinedFunction()</script><table></table>")
    errors = open_page(browser, page)
    assert len(errors) == 1 and "undefinedFunction" in errors[0], errors


def _column(driver: Any, index: int) -> list[str]:
    from selenium.webdriver.common.by import By

    rows = driver.find_elements(By.CSS_SELECTOR, "#cards tbody tr")
    return [r.find_elements(By.TAG_NAME, "td")[index].get_attribute("data-v") for r in rows]


def _screenshot(driver: Any, path: Path) -> None:
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000
    if os.environ.get("OMENSIM_UPDATE_SCREENSHOT"):
        DOCS_DIR.mkdir(exist_ok=True)
        shutil.copyfile(path, DOCS_DIR / path.name)


def test_card_table_sorts_and_filters(
    browser: Any, reports: dict[str, Path], tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    assert open_page(browser, reports["runs"]) == []
    assert browser.title == "omensim report"
    assert len(browser.find_elements(By.TAG_NAME, "img")) >= 8

    heads = browser.find_elements(By.CSS_SELECTOR, "#cards thead th")
    names = [h.text.strip() for h in heads]
    cost = names.index("cost")
    heads[cost].click()
    values = [int(v) for v in _column(browser, cost)]
    assert values == sorted(values) and values[0] < values[-1]
    assert heads[cost].get_attribute("aria-sort") == "ascending"
    heads[cost].click()
    assert [int(v) for v in _column(browser, cost)] == sorted(values, reverse=True)

    effect = names.index("card effect (pp)")
    heads[effect].click()
    shown = [v for v in _column(browser, effect) if v != ""]
    assert [float(v) for v in shown] == sorted(float(v) for v in shown)

    rows = browser.find_elements(By.CSS_SELECTOR, "#cards tbody tr")
    first_name = rows[0].find_elements(By.TAG_NAME, "td")[0].text
    browser.find_element(By.ID, "card-filter").send_keys(first_name)
    visible = [r for r in rows if r.is_displayed()]
    assert 1 <= len(visible) < len(rows)
    assert all(first_name.lower() in r.text.lower() for r in visible)
    # Emptying the box (as a user does, so the input event fires) shows every row again.
    box = browser.find_element(By.ID, "card-filter")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    assert all(r.is_displayed() for r in rows)
    # A `field op value` term compares the column's number: `cost>3` keeps the dearer cards.
    box.send_keys("cost>3")
    costs = [int(r.find_elements(By.TAG_NAME, "td")[cost].get_attribute("data-v")) for r in rows]
    shown = [c for r, c in zip(rows, costs, strict=True) if r.is_displayed()]
    assert shown and all(c > 3 for c in shown)
    assert len(shown) == sum(c > 3 for c in costs) < len(rows)
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)

    assert browser.get_log("browser") == []  # nothing logged while clicking either

    # Two screenshots: the top of the page, and the card table sorted by effect.
    browser.execute_script("window.scrollTo(0, 0)")
    _screenshot(browser, tmp_path / "report.png")
    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "cards"))
    browser.execute_script("window.scrollBy(0, -80)")
    _screenshot(browser, tmp_path / "report-cards.png")


def test_compare_report_screenshot(browser: Any, reports: dict[str, Path], tmp_path: Path) -> None:
    """The compare report as the README shows it: what B changed and the paired shifts."""
    from selenium.webdriver.common.by import By

    assert open_page(browser, reports["compare"]) == []
    heads = [h.text for h in browser.find_elements(By.TAG_NAME, "h2")]
    assert heads[:2] == ["What B changed: card fields", "Paired shifts, B - A"], heads
    text = browser.find_element(By.TAG_NAME, "body").text
    assert "first player's VP margin" in text and ", paired t" in text
    _screenshot(browser, tmp_path / "report-compare.png")
