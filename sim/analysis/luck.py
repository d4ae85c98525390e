"""Luck-adjusted estimates: a run's rates with the luck of the draws subtracted.

A run that counts luck (``RunSpec(luck=True)``, ``--luck-adjusted``) has each seat's
luck in its rows (``luck_*_p0``, ``luck_*_p1``, declared in
``sim.base.layout.LUCK_NAMES``; see ``sim.kernel.luck``): sums, over the cards the
seat took from a deck, of a feature of the card in the position it came into minus
the feature's mean over that deck. Each game's luck has mean zero whatever the bots
do, so it is a control variate: for a rate whose per-game (delta-method) term is
``t``, the adjusted estimate is the plain one minus ``mean(beta . X)``, where ``X`` are
the game's luck features and ``beta`` the regression of ``t`` on them (the weights of
a value of the position linear in the features), and its interval comes from the
variance of ``t - beta . X``, smaller by the share of ``t`` the luck explains. A plain
run writes no luck column.

Unbiased by construction, not only for large runs: ``beta`` is cross-fitted.
Games are split into two folds by deal (``game_id // 2``, so a duplicate pair
stays together) and each fold's ``beta`` is fitted on the other fold, so the
correction of a game is its mean-zero luck times a coefficient independent of it.
The features are the luck of each seat, alone and times the sign of the game's
parity (+1 for even ``game_id``, -1 for odd): known before any card is drawn, so
the products keep mean zero, and with seats alternating who goes first the
parity is who starts. Nothing decided during a game (who held a card, who went
first after an Emissary) multiplies the luck, which would break the zero mean.

Below :data:`MIN_GAMES_PER_FEATURE` games per feature and fold the fit would add
more noise than it removes: a smaller run is adjusted with :data:`CORE_FEATURES`
only, and below that the estimate is the plain one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sim.base import layout as L
from sim.base.errors import Error
from sim.run import io

Z95 = 1.959963984540054
LUCK_COLUMNS: tuple[str, ...] = tuple(
    f"{c.name}_p{p}" for c in L.OUT_COLUMNS if c.dtype == "luck" for p in range(2)
)
"""The row columns holding luck, as the kernel writes them (seat 0's then seat 1's)."""
MIN_GAMES_PER_FEATURE = 10
"""Games per luck feature each fold needs before ``beta`` is fitted (else no adjustment)."""


def has_luck(columns: list[str] | tuple[str, ...]) -> bool:
    """Whether rows with these column names carry every luck column."""
    return all(c in columns for c in LUCK_COLUMNS)


def luck_matrix(
    frame: pd.DataFrame | pa.Table, order: np.ndarray | slice | None = None
) -> np.ndarray:
    """The luck columns of a run's rows as a float array ``[n, len(LUCK_COLUMNS)]``,
    in ``order`` (positions) when given."""
    cols = []
    for name in LUCK_COLUMNS:
        col = frame[name] if isinstance(frame, pd.DataFrame) else frame.column(name)
        v = np.asarray(col.to_numpy(), np.float64)
        cols.append(v if order is None else v[order])
    return np.column_stack(cols) if cols else np.zeros((0, 0))


CORE_FEATURES = ("luck_strength", "luck_cost", "luck_strength_tiles")
"""The features a run too small for all of them is adjusted with (they remove the most
of the first-player rate's variance in dunes+aegean greedy games, docs/luck.md)."""
_CORE = [i for i, c in enumerate(LUCK_COLUMNS) if c.rsplit("_p", 1)[0] in CORE_FEATURES]


def features(luck: np.ndarray, game_id: np.ndarray) -> np.ndarray:
    """The regressors of a game: its luck columns, alone and times the parity sign."""
    sign = np.where(np.asarray(game_id) % 2 == 0, 1.0, -1.0)[:, None]
    return np.hstack([luck, luck * sign])


def regressors(lucks: list[np.ndarray], game_id: np.ndarray) -> np.ndarray:
    """The :func:`features` of one or more runs' luck (a paired compare has two), side by
    side: every luck column if each fold has :data:`MIN_GAMES_PER_FEATURE` games per
    regressor, else only :data:`CORE_FEATURES` (rows with exactly the kernel's
    :data:`LUCK_COLUMNS`). Chosen from the fold sizes alone, never from the outcomes, so
    the cross-fit stays unbiased."""
    fold = folds(game_id)
    smaller = min(int((fold == 0).sum()), int((fold == 1).sum()))
    x = np.hstack([features(luck, game_id) for luck in lucks])
    full = all(luck.shape[1] == len(LUCK_COLUMNS) for luck in lucks)
    if smaller >= MIN_GAMES_PER_FEATURE * x.shape[1] or not full:
        return x
    return np.hstack([features(luck[:, _CORE], game_id) for luck in lucks])


def folds(game_id: np.ndarray) -> np.ndarray:
    """Each game's fold (0 or 1), by deal, independent of everything played."""
    return ((np.asarray(game_id) // 2) % 2).astype(np.int8)


def cross_fit(term: np.ndarray, x: np.ndarray, fold: np.ndarray) -> np.ndarray:
    """``beta . X`` of every game, ``beta`` fitted (least squares with an intercept that
    is not applied) on the other fold; zeros when a fold is too small to fit.

    ``term`` is ``[n]`` or ``[n, K]`` (K rates at once); the result has its shape.
    """
    t = np.asarray(term, np.float64)
    t2 = t.reshape(len(t), -1)
    pred = np.zeros_like(t2)
    need = MIN_GAMES_PER_FEATURE * x.shape[1]
    if x.shape[1] == 0 or min(int((fold == 0).sum()), int((fold == 1).sum())) < need:
        return pred.reshape(t.shape)
    for f in (0, 1):
        train = fold != f
        xt, tt = x[train], t2[train]
        xc = xt - xt.mean(0)
        beta, *_ = np.linalg.lstsq(xc, tt - tt.mean(0), rcond=None)
        pred[~train] = x[~train] @ beta
    return pred.reshape(t.shape)


@dataclass(frozen=True)
class Adjusted:
    """One rate, plain and luck-adjusted, with their 95% (or ``z``) intervals."""

    games: int
    rate: float
    se: float
    rate_adj: float
    se_adj: float
    z: float = Z95

    @property
    def lo(self) -> float:
        return self.rate - self.z * self.se

    @property
    def hi(self) -> float:
        return self.rate + self.z * self.se

    @property
    def lo_adj(self) -> float:
        return self.rate_adj - self.z * self.se_adj

    @property
    def hi_adj(self) -> float:
        return self.rate_adj + self.z * self.se_adj

    @property
    def variance_ratio(self) -> float:
        """Plain variance over adjusted: how many times fewer games the same interval needs."""
        return self.se**2 / self.se_adj**2 if self.se_adj > 0 else float("nan")


def _terms(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ratio ``sum(num)/sum(den)`` per column and each game's delta-method term."""
    num = np.asarray(num, np.float64)
    den = np.asarray(den, np.float64)
    n = len(num)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = den.sum(0)
        rate = num.sum(0) / total
        term = (num - rate * den) / (total / n)
    return rate, term, total


def adjusted_ratio(
    num: np.ndarray, den: np.ndarray, luck: np.ndarray, game_id: np.ndarray, z: float = Z95
) -> Adjusted:
    """The ratio ``sum(num) / sum(den)`` over games, plain and luck-adjusted."""
    rate, term, _ = _terms(num, den)
    n = len(term)
    pred = cross_fit(term, regressors([luck], game_id), folds(game_id))
    ddof = 1 if n > 1 else 0
    return Adjusted(
        games=n,
        rate=float(rate),
        se=float(np.sqrt(np.var(term, ddof=ddof) / n)),
        rate_adj=float(rate - pred.mean()),
        se_adj=float(np.sqrt(np.var(term - pred, ddof=ddof) / n)),
        z=z,
    )


def adjusted_mean(y: np.ndarray, luck: np.ndarray, game_id: np.ndarray, z: float = Z95) -> Adjusted:
    """The mean of a per-game outcome ``y``, plain and luck-adjusted."""
    return adjusted_ratio(y, np.ones(len(y)), luck, game_id, z)


def adjusted_ratio_diff(
    num_a: np.ndarray,
    den_a: np.ndarray,
    num_b: np.ndarray,
    den_b: np.ndarray,
    luck_a: np.ndarray,
    luck_b: np.ndarray,
    game_id: np.ndarray,
    z: float = Z95,
) -> dict[str, np.ndarray]:
    """The paired change ``B - A`` of ratio(s) over the same games, luck-adjusted.

    Both runs' luck are the regressors of the paired term (B's term minus A's), so the
    luck a change leaves alike in both runs cancels already and the rest is removed.
    Returns arrays per column: ``diff``, ``se``, ``diff_adj``, ``se_adj``, ``lo_adj``,
    ``hi_adj``, ``variance_ratio`` (paired variance over adjusted paired variance).
    """
    ra, ta, _ = _terms(num_a, den_a)
    rb, tb, _ = _terms(num_b, den_b)
    n = len(ta)
    d = tb - ta
    pred = cross_fit(d, regressors([luck_a, luck_b], game_id), folds(game_id))
    ddof = 1 if n > 1 else 0
    var = np.var(d, axis=0, ddof=ddof)
    var_adj = np.var(d - pred, axis=0, ddof=ddof)
    diff = rb - ra
    diff_adj = diff - pred.mean(0)
    se_adj = np.sqrt(var_adj / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(var_adj > 0, var / var_adj, np.nan)
    return {
        "diff": diff,
        "se": np.sqrt(var / n),
        "diff_adj": diff_adj,
        "se_adj": se_adj,
        "lo_adj": diff_adj - z * se_adj,
        "hi_adj": diff_adj + z * se_adj,
        "variance_ratio": ratio,
    }


def first_of_decisive(
    winner: np.ndarray, first: np.ndarray, luck: np.ndarray, game_id: np.ndarray
) -> Adjusted:
    """The first player's share of the games someone won outright, plain and adjusted."""
    winner = np.asarray(winner)
    decisive = (winner >= 0).astype(np.float64)
    return adjusted_ratio((winner == np.asarray(first)) * decisive, decisive, luck, game_id)


def frame_first_of_decisive(frame: pd.DataFrame | pa.Table) -> Adjusted:
    """:func:`first_of_decisive` of a run's rows (``game_id``, ``winner``,
    ``first_player`` and the luck columns)."""

    def col(name: str) -> np.ndarray:
        c = frame[name] if isinstance(frame, pd.DataFrame) else frame.column(name)
        return np.asarray(c.to_numpy(), np.int64)

    return first_of_decisive(col("winner"), col("first_player"), luck_matrix(frame), col("game_id"))


def summary_line(label: str, a: Adjusted) -> str:
    """``label  56.90% (95% CI ..), luck-adjusted 56.81% (95% CI ..); 1.10x fewer games``."""
    return (
        f"{label}  {a.rate:.2%} (95% CI {a.lo:.2%} to {a.hi:.2%}), luck-adjusted "
        f"{a.rate_adj:.2%} (95% CI {a.lo_adj:.2%} to {a.hi_adj:.2%}): the same interval "
        f"in {a.variance_ratio:.2f}x fewer games"
    )


RUN_COLUMNS = ("game_id", "winner", "first_player", *LUCK_COLUMNS)
"""What :func:`run_first_of_decisive` reads from a run directory."""


def run_first_of_decisive(run_dir: str | Path, exclude_capped: bool = False) -> Adjusted:
    """:func:`first_of_decisive` of a written run directory (its complete parts).

    With ``exclude_capped`` the games that ended at the turn cap are left out.

    Raises:
        sim.Error: the run's rows have no luck columns (written before they existed).
    """
    run_dir = Path(run_dir)
    manifest = io.verify_run(run_dir)
    files = [str(run_dir / p["file"]) for p in manifest["parts"]]
    names = pq.read_schema(files[0]).names if files else []
    if not has_luck(names):
        raise Error(
            f"{run_dir} has no luck columns: play it with --luck-adjusted (RunSpec(luck=True))"
        )
    table = pq.read_table(files, columns=[*RUN_COLUMNS, "end_reason"])
    if exclude_capped:
        capped = pc.equal(pc.cast(table.column("end_reason"), pa.string()), "turn_cap")
        table = table.filter(pc.invert(pc.fill_null(capped, False)))
    return frame_first_of_decisive(table)
