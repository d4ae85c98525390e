"""``docs/architecture.md`` names every module of ``sim/`` and ``strategies/``."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_module_is_named_in_the_architecture_page() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    modules = [
        p.relative_to(ROOT).as_posix()
        for folder in ("sim", "strategies")
        for p in sorted((ROOT / folder).rglob("*.py"))
    ]
    missing = [m for m in modules if f"`{m}`" not in doc]
    assert modules and not missing, "modules docs/architecture.md does not name:\n" + "\n".join(
        missing
    )
