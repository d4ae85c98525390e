"""The learned value's weights: ``configs/values/value.toml`` read into one float row.

The file is data, like a card: ``[model]`` names the features it was fitted on (they
must be ``strategies.value_features.FEATURES``, in order), its hidden units and the
weight row (``params``, laid out as ``value_features`` says); ``[provenance]`` records
the command, seed, games, commit and library versions that produced it
(``tools/train_value.py`` writes both tables). A file that does not fit gets one line
naming it and the field.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from sim.base.errors import Error
from sim.data import schema as S
from sim.data.cards import CONFIG_DIR
from strategies.value_features import FEATURES, HIDDEN, N_FEATURES, N_VALUE_PARAMS

VALUE_DIR = CONFIG_DIR / "values"
SHIPPED_VALUE = VALUE_DIR / "value.toml"


class ValueFileError(Error):
    """A value weights file that cannot be used; the message is one line."""


def load_value(path: Path | str) -> np.ndarray:
    """The weight row (float64[N_VALUE_PARAMS]) of the value file at ``path``."""
    path = Path(path)
    try:
        raw = S.read_toml(path, "value weights")
    except S.SchemaError as e:
        raise ValueFileError(str(e)) from None
    model = raw.get("model")
    if not isinstance(model, dict):
        raise ValueFileError(f"{path.name}: missing [model] table")
    if list(model.get("features", [])) != list(FEATURES):
        raise ValueFileError(
            f"{path.name}: field 'model.features': not the features strategies/value_features.py "
            "computes; retrain with tools/train_value.py"
        )
    if model.get("hidden") != HIDDEN:
        raise ValueFileError(f"{path.name}: field 'model.hidden': must be {HIDDEN}")
    try:
        params = np.asarray(model.get("params", []), np.float64)
    except (TypeError, ValueError):
        raise ValueFileError(f"{path.name}: field 'model.params': must be numbers") from None
    if params.shape != (N_VALUE_PARAMS,) or not np.all(np.isfinite(params)):
        raise ValueFileError(
            f"{path.name}: field 'model.params': must be {N_VALUE_PARAMS} finite numbers"
        )
    return params


@cache
def shipped_value() -> np.ndarray:
    """The shipped weights (``configs/values/value.toml``), a read-only row."""
    row = load_value(SHIPPED_VALUE)
    row.flags.writeable = False
    return row


def predict(params: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The value the kernel computes (``strategies.value.position_value``), in numpy."""
    w1 = params[: N_FEATURES * HIDDEN].reshape(HIDDEN, N_FEATURES)
    b1 = params[N_FEATURES * HIDDEN : N_FEATURES * HIDDEN + HIDDEN]
    w2 = params[N_FEATURES * HIDDEN + HIDDEN : N_FEATURES * HIDDEN + 2 * HIDDEN]
    b2 = params[-1]
    z = np.tanh(x @ w1.T + b1) @ w2 + b2
    return 1.0 / (1.0 + np.exp(-z))


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_value(path: Path, params: np.ndarray, provenance: dict[str, object]) -> None:
    """Write the value file ``strategies.value_model.load_value`` reads."""
    lines = [
        "# The learned value of a position (strategies/value.py); written by",
        "# tools/train_value.py. Retrain rather than edit.",
        "[model]",
    ]
    lines.append("features = [" + ", ".join(_toml_str(f) for f in FEATURES) + "]")
    lines.append(f"hidden = {HIDDEN}")
    lines.append("params = [")
    for i in range(0, len(params), 4):
        lines.append("  " + ", ".join(repr(float(v)) for v in params[i : i + 4]) + ",")
    lines.append("]")
    lines.append("")
    lines.append("[provenance]")
    for k, v in provenance.items():
        lines.append(f"{k} = {_toml_str(str(v)) if not isinstance(v, int | float) else v}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)
