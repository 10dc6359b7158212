"""Judging runs: exact and toleranced comparison, and verdicts on real and broken runs."""

from __future__ import annotations

import numpy as np
import pytest

from ireerv import simulators
from ireerv.run import check
from ireerv.simulators.base import CYCLE_LIMIT, PASSED, RunResult

OUTPUT = "OUTPUT 0 f32 2x2: 0x3f800000 0x40000000 0x40400000 0x80000000\nSTATUS OK\n"
EXPECTED = [np.array([[1.0, 2.0], [3.0, -0.0]], dtype=np.float32)]


def result(program_output: str, reason: str = PASSED) -> RunResult:
    return RunResult(reason, 0, 0, program_output, program_output, 0.1, "exit code 0")


def test_matching_run_passes() -> None:
    verdict = check.judge(result(OUTPUT), EXPECTED)
    assert verdict.passed, verdict.problems


def test_a_wrong_reference_fails_and_says_where() -> None:
    wrong = [EXPECTED[0] + np.float32(1)]
    verdict = check.judge(result(OUTPUT), wrong)
    assert not verdict.passed
    assert verdict.problems == [
        "output 0: 4 of 4 elements differ: [0,0] np.float32(1.0) != np.float32(2.0), "
        "[0,1] np.float32(2.0) != np.float32(3.0), [1,0] np.float32(3.0) != np.float32(4.0), "
        "[1,1] np.float32(-0.0) != np.float32(1.0)"
    ]


def test_bit_for_bit_unless_a_tolerance_is_stated() -> None:
    zero = [np.zeros((2, 2), dtype=np.float32)]
    got = [np.array([[0.0, 0.0], [0.0, -0.0]], dtype=np.float32)]
    assert check.compare(got, zero) == [
        "output 0: 1 of 4 elements differ: [1,1] np.float32(-0.0) != np.float32(0.0)"]
    assert check.compare(got, zero, tolerance=1e-6) == []
    near = [np.full((2, 2), 1e-7, dtype=np.float32)]
    assert check.compare(near, zero, tolerance=1e-6) == []
    assert check.compare(near, zero) != []


def test_integers_shapes_and_counts() -> None:
    ints = [np.array([1, 2, 3], dtype=np.int32)]
    assert check.compare(ints, [np.array([1, 2, 3], dtype=np.int32)]) == []
    assert "shape (3,), reference (1, 3)" in check.compare(ints, [ints[0].reshape(1, 3)])[0]
    assert "type int32, reference float32" in check.compare(ints, [ints[0].astype(np.float32)])[0]
    assert "printed 1 outputs, the reference has 2" in check.compare(ints, ints * 2)[0]


def test_runs_that_never_count_as_passed() -> None:
    silent = check.judge(result(""), EXPECTED)
    assert not silent.passed
    assert "the program printed no STATUS line" in silent.problems
    assert "the program printed no outputs" in silent.problems
    failed = check.judge(result(OUTPUT.replace("STATUS OK", "STATUS RESOURCE_EXHAUSTED")),
                         EXPECTED)
    assert failed.problems == ["the program reported RESOURCE_EXHAUSTED"]
    limit = check.judge(RunResult(CYCLE_LIMIT, None, 1, OUTPUT, OUTPUT, 9.0,
                                  "cycle limit 100 reached"), EXPECTED)
    assert limit.problems == [
        "run cycle-limit: cycle limit 100 reached (MAXCYCLES=<cycles> raises it)"]
    cut = OUTPUT.replace("STATUS OK", "").rstrip() + "[90000050]\n"  # the limit mid-line
    cut_short = check.judge(RunResult(CYCLE_LIMIT, None, 1, cut, cut, 9.0,
                                      "cycle limit 100 reached"), EXPECTED)
    assert not cut_short.passed and any("cut short" in p for p in cut_short.problems)


def test_limits_from_the_command_line() -> None:
    """Unset, the board's limits hold; set, they are numbers for the run."""
    assert simulators.limits({"TIMEOUT": "", "MAXCYCLES": ""}) == {
        "timeout": None, "maxcycles": None}
    assert simulators.limits({"TIMEOUT": "30000", "MAXCYCLES": "6000000000"}) == {
        "timeout": 30000.0, "maxcycles": 6_000_000_000}


def test_run_record_round_trip(tmp_path) -> None:
    from types import SimpleNamespace

    from ireerv.run.record import SCHEMA, RecordError, RunRecord, load

    result = RunResult(PASSED, 0, 0, "", "", 1.23456, "exit code 0")
    verdict = check.judge(result, [])
    image = SimpleNamespace(model=SimpleNamespace(name="m"), board=SimpleNamespace(name="b"),
                            size=4, runtime="iree")
    record = RunRecord.of(image, verdict, result)
    record.write(tmp_path / "run.json")
    assert load(tmp_path / "run.json") == record
    data = record.to_json()
    assert data["schema"] == SCHEMA and data["seconds"] == 1.235 and not data["passed"]
    with pytest.raises(RecordError, match="schema"):
        RunRecord.from_json({**data, "schema": "other/9"})
    with pytest.raises(RecordError, match="unexpected keyword"):
        RunRecord.from_json({**data, "cycles": 3})
    assert data["harts"] == 1 and data["harts_auto"] is False
    key = SimpleNamespace(value={"HARTS": "auto"}.__getitem__)
    auto = RunRecord.of(SimpleNamespace(**vars(image), harts=4, key=key), verdict, result)
    assert auto.harts == 4 and auto.harts_auto is True


@pytest.mark.parametrize("rule", [check.Rule(), check.Rule(atol=1e-3, rtol=1e-3)])
def test_nan_matches_nan_and_infinities_only_themselves(rule: check.Rule) -> None:
    inf, nan = np.inf, np.nan
    want = np.array([nan, inf, -inf, 1.0, nan], dtype=np.float32)
    quiet = np.array([0x7FC00001], dtype=np.uint32).view(np.float32)[0]  # another payload
    assert check.compare([np.array([quiet, inf, -inf, 1.0, nan], np.float32)], [want], rule) == []
    wrong = np.array([1.0, -inf, inf, nan, 0.0], dtype=np.float32)
    (problem,) = check.compare([wrong], [want], rule)
    assert problem.startswith("output 0: 5 of 5 elements differ")
