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
from strategies.value_features import FEATURES, HIDDEN, N_VALUE_PARAMS

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
