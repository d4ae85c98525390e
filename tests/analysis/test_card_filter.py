"""The report's card filter: text, or ``field op value`` terms, checked in Node.

The filter is the page's one piece of logic beyond sorting; its row test
(``sim.analysis.report_html.FILTER_JS``) runs here without a browser.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from sim.analysis.report_html import FILTER_JS

NAMES = ["name", "set", "type", "cost", "strength", "play rate", "card effect (pp)"]
ROWS = [
    ["Talos, Bronze Guardian", "aegean", "soldier", "5", "6", "23.4%", "+1.20"],
    ["Ker of the Spoils", "aegean", "ker", "3", "2", "48.0%", "-0.40"],
    ["Jackal Warden", "dunes", "follower", "2", "3", "9.9%", ""],
]


def matches(tmp_path: Path, query: str) -> list[str]:
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("node is not installed")
    script = tmp_path / "filter.js"
    script.write_text(
        FILTER_JS
        + f"var rows = {json.dumps(ROWS)}, names = {json.dumps(NAMES)};\n"
        + f"console.log(JSON.stringify(rows.filter(function (r) {{"
        f" return cardRowMatches(r, names, {json.dumps(query)}); }}).map(function (r) {{"
        " return r[0]; })));\n"
    )
    out = subprocess.run([node, str(script)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    ("query", "want"),
    [
        ("", ["Talos, Bronze Guardian", "Ker of the Spoils", "Jackal Warden"]),
        ("ker", ["Ker of the Spoils"]),
        ("cost>3", ["Talos, Bronze Guardian"]),
        ("cost >= 3", ["Talos, Bronze Guardian", "Ker of the Spoils"]),
        ("cost<3", ["Jackal Warden"]),
        ("type=soldier", ["Talos, Bronze Guardian"]),
        ("set!=aegean", ["Jackal Warden"]),
        ("play rate>20, cost<5", ["Ker of the Spoils"]),
        ("card effect (pp)>0", ["Talos, Bronze Guardian"]),
        ("strength=6", ["Talos, Bronze Guardian"]),
        ("cost>9", []),
    ],
)
def test_filter_terms(tmp_path: Path, query: str, want: list[str]) -> None:
    assert matches(tmp_path, query) == want
