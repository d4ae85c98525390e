"""The report in a real browser: headless Chromium, driven by Selenium.

It renders without console errors, the card table sorts when a header is
clicked and filters when text is typed, and a screenshot lands in the test's
tmp dir. With ``OMENSIM_UPDATE_SCREENSHOT=1`` the screenshots also replace
``docs/report.png`` and ``docs/report-cards.png`` (the ones in the README).
Skipped, with the reason, only where Chromium, chromedriver or Selenium are
not installed (``.ci/run`` installs Debian's ``chromium`` and ``chromium-driver``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sim.analysis.report import build_report
from sim.data.spec import RunSpec
from sim.run.runner import run

DOCS_DIR = Path(__file__).resolve().parents[2] / "docs"  # report.png, report-cards.png
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1100,1400",
)


def _browser_or_skip() -> tuple[str, str]:
    """Paths of chromium and chromedriver, or skip saying what is missing."""
    pytest.importorskip("selenium", reason="selenium is not installed (pip install selenium)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        missing = [n for n, p in (("chromium", chromium), ("chromedriver", driver)) if p is None]
        pytest.skip(
            f"{' and '.join(missing)} not installed (apt-get install chromium chromium-driver)"
        )
    return chromium, driver


@pytest.fixture()
def browser(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A headless Chromium with a new empty profile, logging the page's console."""
    chromium, driver_path = _browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tmp_path / "chromium-profile"
    profile.mkdir()
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browser-report")
    a, b = root / "standard", root / "emissary"
    run(RunSpec(games=3000, mix="aegean", seed=1), a, threads=1, progress=False)
    run(RunSpec(games=3000, mix="aegean", seed=1, variants=("emissary",)), b, threads=1,
        progress=False)  # fmt: skip
    return build_report([a, b], root / "report").html


def _column(driver, index: int) -> list[str]:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    rows = driver.find_elements(By.CSS_SELECTOR, "#cards tbody tr")
    return [r.find_elements(By.TAG_NAME, "td")[index].get_attribute("data-v") for r in rows]


def test_report_in_chromium(browser, page: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(page.as_uri())
    assert browser.title == "omensim report"
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors

    # Every chart decoded and laid out (a broken data: URI has naturalWidth 0).
    images = browser.find_elements(By.TAG_NAME, "img")
    assert len(images) >= 8
    for img in images:
        width = browser.execute_script("return arguments[0].naturalWidth", img)
        assert width > 100, img.get_attribute("alt")
    # Nothing wider than the window: the runs table scrolls inside its box.
    overflow = browser.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0

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

    assert browser.get_log("browser") == []  # nothing logged while clicking either

    # Two screenshots: the top of the page, and the card table sorted by effect.
    browser.execute_script("window.scrollTo(0, 0)")
    top = tmp_path / "report.png"
    assert browser.save_screenshot(str(top))
    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "cards"))
    browser.execute_script("window.scrollBy(0, -80)")
    cards = tmp_path / "report-cards.png"
    assert browser.save_screenshot(str(cards))
    for shot in (top, cards):
        assert shot.stat().st_size > 10_000
        if os.environ.get("OMENSIM_UPDATE_SCREENSHOT"):
            DOCS_DIR.mkdir(exist_ok=True)
            shutil.copyfile(shot, DOCS_DIR / shot.name)
