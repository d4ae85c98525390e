"""Headless Chromium for the report tests: one browser, and the page-layout checks.

``layout_problems(driver)`` lists, for the page loaded in ``driver``, what a reader
at the report's width would have to fight: the page or a table wider than the
viewport, a table that scrolls inside its box, and a column with no header or
with every cell empty. The checks run in the page (one script), so a test can
call them on any page, including a control built to fail them.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

VIEWPORT = 1400
"""The width (CSS px) every report table must fit without scrolling."""
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)

# Runs in the page; returns one line per problem. A table "scrolls" when an ancestor
# that clips or scrolls it is narrower than the table. A column is blank when its
# header is empty or every body cell of it is empty; tables with spans are checked by
# header only, as their cells do not line up with the header's.
LAYOUT_JS = """
const limit = arguments[0];
const out = [];
const doc = document.scrollingElement || document.documentElement;
if (doc.scrollWidth > limit) { out.push("page: scrollWidth " + doc.scrollWidth + " > " + limit); }
const tables = Array.from(document.querySelectorAll("table"));
tables.forEach(function (t, i) {
  const name = t.id || (t.previousElementSibling && t.previousElementSibling.textContent.trim())
    || (t.closest("div") && t.closest("div").previousElementSibling
        && t.closest("div").previousElementSibling.textContent.trim()) || ("table " + i);
  const label = "table '" + name.slice(0, 60) + "'";
  const box = t.getBoundingClientRect();
  if (box.right > limit + 0.5 || box.left < -0.5) {
    out.push(label + ": spans " + Math.round(box.left) + "-" + Math.round(box.right) + " px");
  }
  for (let el = t.parentElement; el && el !== document.body; el = el.parentElement) {
    const ox = getComputedStyle(el).overflowX;
    if (ox !== "visible" && el.scrollWidth > el.clientWidth + 1) {
      out.push(label + ": scrolls inside its box (" + el.scrollWidth + " > " + el.clientWidth
               + " px)");
      break;
    }
  }
  const rows = Array.from(t.rows);
  const headRow = t.tHead && t.tHead.rows.length ? t.tHead.rows[t.tHead.rows.length - 1]
                                               : rows[0];
  if (!headRow) { return; }
  const heads = Array.from(headRow.cells).map(function (c) { return c.textContent.trim(); });
  heads.forEach(function (h, j) {
    if (h === "") { out.push(label + ": column " + (j + 1) + " has no header"); }
  });
  const spans = Array.from(t.querySelectorAll("td, th")).some(function (c) {
    return c.colSpan > 1;
  });
  const body = rows.filter(function (r) {
    return r !== headRow && !(t.tHead && t.tHead.contains(r)) && r.offsetParent !== null;
  });
  if (spans || body.length === 0) { return; }
  heads.forEach(function (h, j) {
    const empty = body.every(function (r) {
      return !r.cells[j] || r.cells[j].textContent.trim() === "";
    });
    if (empty) { out.push(label + ": column '" + h + "' is blank in every row"); }
  });
});
return out;
"""


def browser_or_skip() -> tuple[str, str]:
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


@contextmanager
def chromium(profile: Path, width: int = VIEWPORT, height: int = 1000) -> Iterator[Any]:
    """A headless Chromium (Selenium driver) with an empty profile in ``profile`` and a
    ``width`` x ``height`` viewport, logging the page's console."""
    binary, driver_path = browser_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile.mkdir(parents=True, exist_ok=True)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        set_viewport(driver, width, height)
        yield driver
    finally:
        driver.quit()


def set_viewport(driver: Any, width: int, height: int) -> None:
    """Make the page's viewport exactly ``width`` x ``height`` CSS px (the window is wider
    than its viewport by the frame, whose size depends on the platform)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def open_page(driver: Any, page: Path) -> list[str]:
    """Load ``page``; return the console's errors logged while it loaded (none expected)."""
    driver.get_log("browser")  # drop what an earlier page logged
    driver.get(page.resolve().as_uri())
    driver.execute_script("return document.readyState")
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def layout_problems(driver: Any, limit: int = VIEWPORT) -> list[str]:
    """What in the loaded page does not fit ``limit`` px, or is a blank column."""
    return list(driver.execute_script(LAYOUT_JS, limit))
