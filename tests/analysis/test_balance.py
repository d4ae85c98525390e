"""`omensim balance`'s race: the statistics, the candidates, a planted card recovered."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tamper import cut_job

from sim.analysis import balance as B
from sim.analysis import balance_checks as C
from sim.analysis import balance_question as Q
from sim.analysis import race as R
from sim.analysis.sweep import parse_numbers
from sim.data.changes import Changes
from sim.data.spec import RunSpec, SpecError
from sim.run import jobs
from sim.run import stats as S
from sim.run.runner import RunError

KER = "Ker of the Battlefield"  # aegean kind 11, cost 3: its holders win ~62% at cost 3
SPEC = RunSpec(games=1, mix="aegean", seed=5)


def test_schedule_doubles_up_to_the_ceiling() -> None:
    assert R.schedule(1000, 1000) == [1000]
    assert R.schedule(1000, 5000) == [1000, 2000, 4000, 5000]
    with pytest.raises(ValueError):
        R.schedule(100, 50)


def test_normal_quantile_inverts_the_tail() -> None:
    assert R.normal_quantile(0.975) == pytest.approx(R.Z95, abs=1e-8)
    assert R.normal_quantile(0.5) == pytest.approx(0, abs=1e-8)


def test_holm_steps_down() -> None:
    assert R.holm({0: 0.01, 1: 0.02, 2: 0.5}, 0.05) == {0, 1}
    # 0.03 > 0.05 / 2 at the first step: Holm stops, nothing after it is rejected.
    assert R.holm({0: 0.03, 1: 0.04}, 0.05) == set()
    assert R.holm({}, 0.05) == set()


def _bernoulli(rng: np.random.Generator, p: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    return (rng.random(n) < p).astype(np.int8), np.ones(n, np.int8)


def test_decide_drops_the_far_candidate_and_keeps_the_leader() -> None:
    rng = np.random.default_rng(0)
    rows = {0: _bernoulli(rng, 0.70, 4000), 1: _bernoulli(rng, 0.505, 4000)}
    look = R.decide(1, rows, ["far", "near"], 0.5, 0.0025, 0.05 / 4)
    assert look.dropped.keys() == {0}
    assert "near is closer" in look.dropped[0]
    assert look.settled is None  # 'near' is alone but its interval is still wide


def test_decide_settles_the_last_narrow_candidate() -> None:
    rng = np.random.default_rng(1)
    rows = {0: _bernoulli(rng, 0.9, 20000), 1: _bernoulli(rng, 0.5, 20000)}
    look = R.decide(1, rows, ["a", "b"], 0.5, 0.01, 0.05)
    assert look.dropped.keys() == {0}
    assert look.settled is not None and "only candidate" in look.settled


def test_a_rival_nearly_tied_with_the_leader_rests() -> None:
    """Two candidates that differ in a few games: neither can be shown closer, but the rival
    is shown at most `precision` closer than the leader, so it rests (and the race settles
    once the leader is narrow) long before the two could be told apart."""
    rng = np.random.default_rng(3)
    num, den = _bernoulli(rng, 0.51, 20000)
    twin = num.copy()
    twin[:40] = 1 - twin[:40]
    rows = {0: (num, den), 1: (twin, den.copy()), 2: _bernoulli(rng, 0.8, 20000)}
    look = R.decide(1, rows, ["a", "b", "far"], 0.5, 0.01, 0.05 / 4)
    assert look.dropped.keys() == {2}
    assert look.resting == [1 - look.leader]
    assert look.settled is not None and "more than 1.00 points closer" in look.settled
    # With a precision finer than the gap's interval the rival must play on.
    strict = R.decide(1, rows, ["a", "b", "far"], 0.5, 0.0001, 0.05 / 4)
    assert strict.resting == [] and strict.settled is None


class _TwinsPlayer:
    """Stands in for the engine: candidates 0 and 1 differ in one game of 500 (a field that
    barely moves the rate), candidate 2 is far from the target."""

    key = {"digest": "twins"}
    n = 200_000

    def __init__(self, *args: object) -> None:
        rng = np.random.default_rng(7)
        num, den = _bernoulli(rng, 0.52, self.n)
        twin = num.copy()
        twin[::500] = 1 - twin[::500]
        self.rows = [(num, den), (twin, den), _bernoulli(rng, 0.7, self.n)]
        self.played = [0, 0, 0]

    def play(self, j: int, start: int, stop: int, bar: object) -> B.Rows:
        self.played[j] += stop - start
        margin = np.zeros(stop - start, np.int16)
        return self.rows[j][0][start:stop], self.rows[j][1][start:stop], margin


def test_a_resting_rival_plays_fewer_games_than_the_leader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(B, "CandidatePlayer", _TwinsPlayer)
    q = Q.rule_question(SPEC, ["start_coins"], [(3, 4, 5)])
    result = B.race(q, SPEC, tolerance=0.0025, pilot=1000, ceiling=_TwinsPlayer.n, progress=False)
    t = result.table
    assert result.settled is not None and "closer to the target than" in result.settled
    assert any(lk.resting for lk in result.looks)
    games = dict(zip(t.candidate, t.games, strict=True))
    assert result.chosen in (0, 1)
    assert games[1 - result.chosen] < games[result.chosen] / 2, B.format_result(result)
    assert t.status[2] == "dropped"
    # The leader's interval is narrow; telling the twins apart would take far more games.
    assert float(t.hi[result.chosen] - t.lo[result.chosen]) / 2 <= 0.0025


@settings(max_examples=30, deadline=None)
@given(st.floats(0.3, 0.7), st.integers(0, 2**31))
def test_decide_never_drops_the_leader(p: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = {j: _bernoulli(rng, p + 0.02 * j, 500) for j in range(4)}
    look = R.decide(1, rows, list("abcd"), 0.5, 0.0025, 0.05)
    rates = {j: R.estimate(*rows[j]).rate for j in rows}
    leader = min(rates, key=lambda j: (abs(rates[j] - 0.5), j))
    assert leader not in look.dropped
    assert len(look.dropped) < len(rows)


def test_distance_diff_is_signed_by_side_of_target() -> None:
    n = 1000
    low = (np.r_[np.ones(400), np.zeros(600)].astype(np.int8), np.ones(n, np.int8))
    high = (np.r_[np.ones(700), np.zeros(300)].astype(np.int8), np.ones(n, np.int8))
    d, se = S.distance_diff(0.5, low, high)  # |0.7-0.5| - |0.4-0.5|
    assert d == pytest.approx(0.1)
    assert se > 0


def test_parse_values() -> None:
    assert parse_numbers("1-4", "--values") == (1, 2, 3, 4)
    assert parse_numbers("2, 5,3", "--values") == (2, 5, 3)
    assert parse_numbers("-1", "--values") == (-1,)
    for bad, text in [("1,1", "twice"), ("x", "not a whole number"), ("4-1", "empty")]:
        with pytest.raises(SpecError, match=text):
            parse_numbers(bad, "--values")
    # The widest legal list (a rule of 0..999) is read; one more value, or a range of
    # billions, is refused before it is built.
    assert parse_numbers("0-999", "--values") == tuple(range(1000))
    for bad in ("0-1000", "0-499,500-1000", "3-99999999999999"):
        with pytest.raises(SpecError, match="more than 1,000 values"):
            parse_numbers(bad, "--values")
    with pytest.raises(SpecError, match="998 is given twice"):
        parse_numbers("0-998,998", "--values")


def test_card_question_candidates_are_the_schema_window() -> None:
    q = Q.card_question(SPEC, KER, ["cost"])
    assert q.shipped == (3,) and q.card_kind == 11
    assert q.candidates == tuple((v,) for v in range(0, 8))  # 3 +/- 4 inside 0..99
    two = Q.card_question(SPEC, KER, ["cost", "strength"], [(2, 3), (1, 2)])
    assert len(two.candidates) == 5  # 2 x 2, and the shipped (3, 3) added
    assert q.label(3) == "cost=3"
    with pytest.raises(SpecError, match=r"outside its legal range 0\.\.99"):
        Q.card_question(SPEC, KER, ["cost"], [(-1, 2)])
    with pytest.raises(SpecError, match="valid fields"):
        Q.card_question(SPEC, KER, ["speed"])
    with pytest.raises(SpecError, match="no unit of that name"):
        Q.card_question(SPEC, "Nobody", ["cost"])
    with pytest.raises(SpecError, match="at most 40"):
        Q.card_question(SPEC, KER, ["cost", "strength", "offering"], span=3)


def test_rule_and_variant_questions() -> None:
    q = Q.rule_question(SPEC, ["start_coins"], [(3, 5)])
    assert q.shipped == (4,) and q.candidates == ((3,), (4,), (5,))
    with pytest.raises(SpecError, match="numeric rule parameters"):
        Q.rule_question(SPEC, ["war_tie_break"])
    v = Q.variant_question(SPEC, "Emissary")
    assert v.candidates == ((0,), (1,)) and v.shipped == (0,)
    assert v.labels() == ["emissary off", "emissary on"]
    with pytest.raises(SpecError, match="known variants"):
        Q.variant_question(SPEC, "nope")


def test_race_refuses_bad_numbers() -> None:
    q = Q.rule_question(SPEC, ["start_coins"], [(3, 4)])
    for kw, text in [
        ({"target": 1.5}, "--target"),
        ({"tolerance": 0}, "--tolerance"),
        ({"pilot": 10}, "--pilot"),
        ({"pilot": 1000, "ceiling": 500}, "--max-games"),
        ({"alpha": 0.9}, "--alpha"),
        ({"alpha": 1e-20}, "--alpha"),
    ]:
        with pytest.raises(SpecError, match=text):
            B.race(q, SPEC, progress=False, **kw)


def test_planted_card_is_recovered() -> None:
    """Ker of the Battlefield moved from cost 3 to cost 6; the target is its holders' rate at
    cost 3 measured on another seed; the race must find cost 3 again."""
    truth = C.rates_of(*C.play_set(RunSpec(games=1, mix="aegean", seed=99), Changes(), 12_000))[0]
    target = float(truth.set_index("card").rate[KER])
    moved = Changes.parse([f"{KER}.cost=6"])
    q = Q.card_question(SPEC, KER, ["cost"], [(1, 2, 3, 4, 5, 6)], base=moved)
    assert q.shipped == (6,)
    result = B.race(
        q, SPEC, base=moved, target=target, tolerance=0.01, pilot=2000, ceiling=16_000,
        progress=False,
    )  # fmt: skip
    assert q.candidates[result.chosen] == (3,), B.format_result(result)
    t = result.table
    # The far values were raced out early: dropped or rested after the pilot's games alone.
    early = t[(t.status != "chosen") & (t.games == 2000)]
    assert len(early) >= 3, t[["label", "status", "games"]]
    assert set(early.status) <= {"dropped", "rested"}
    assert result.games < 6 * 16_000  # cheaper than playing every value to the ceiling
    shipped = t[t.shipped].iloc[0]
    assert shipped.label == "cost=6"
    # The cheaper the card, the stronger its holders: the shift from cost 6 is positive at 3.
    assert t.set_index("label")["shift"]["cost=3"] > 0


def test_race_writes_its_data_and_resumes_to_the_same_result(tmp_path: Path) -> None:
    out = tmp_path / "race"
    q = Q.rule_question(SPEC, ["start_coins"], [(2, 4, 6)])
    kw = dict(pilot=500, ceiling=2000, progress=False)
    whole = B.race(q, SPEC, out=out, **kw)  # type: ignore[arg-type]
    looks = [json.loads(line) for line in (out / B.DECISIONS).read_text().splitlines()]
    assert len(looks) == len(whole.looks) and looks[0]["games"] == 500
    table = pd.read_csv(out / B.TABLE)
    assert list(table.label) == ["start_coins=2", "start_coins=4", "start_coins=6"]
    rows = pd.read_parquet(out / B.ROWS)
    assert set(rows.columns) >= {"game_id", "candidate", "num", "den"}
    assert (
        rows.groupby("candidate").game_id.nunique().to_dict()
        == table.set_index("candidate").games.to_dict()
    )
    saved = json.loads((out / B.RESULT).read_text())
    assert saved["format"] == "omensim-balance" and saved["games"] == whole.games

    # Cut it short as a kill leaves it: no result, and the last rows file and its log line gone.
    cut_job(out, B.RESULT)
    log = (out / jobs.LOG_NAME).read_text().splitlines(keepends=True)
    (out / json.loads(log[-1])["entry"]["file"]).unlink()
    (out / jobs.LOG_NAME).write_text("".join(log[:-1]))
    resumed = B.resume_balance(out, progress=False)
    pd.testing.assert_frame_equal(resumed.table, whole.table)
    assert [lk.to_dict() for lk in resumed.looks] == [lk.to_dict() for lk in whole.looks]
    with pytest.raises(RunError, match="already complete"):
        B.resume_balance(out)
    with pytest.raises(RunError, match="holds no balance run"):
        B.resume_balance(tmp_path)


def test_closer_needs_the_distance_to_shrink_not_the_rate_to_move() -> None:
    rng = np.random.default_rng(4)
    n = 20_000
    before = _bernoulli(rng, 0.60, n)
    near = _bernoulli(rng, 0.52, n)
    overshoot = _bernoulli(rng, 0.35, n)  # moved toward 50% and 15 points past it
    same = (before[0].copy(), before[1].copy())
    assert C.closer(0.5, before, near)
    assert not C.closer(0.5, before, overshoot)
    assert not C.closer(0.5, before, same)


def test_panel_check_names_each_bot() -> None:
    q = Q.variant_question(SPEC, "emissary")
    result = B.race(q, SPEC, pilot=300, ceiling=300, progress=False)
    panel = C.panel_check(result, ["greedy", "random"], 300)
    assert list(panel.bot) == ["greedy", "random"]
    assert panel.rate.between(0, 1).all() and panel.holds.dtype == bool
    assert all(math.isfinite(x) for x in panel["shift"])
    result.panel = panel
    assert "holds under" in B.format_result(result)
