"""scons tune: dispatches read from kernel symbols, candidates, the tuning file's form, its
merge into the board library, the record, and a resumed tune (no build needed here;
tests/test_tune_cluster.py runs real tunes)."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest
from golden_files import check_golden

from ireerv.paths import PROJECT_ROOT
from ireerv.tune import interrupt, measure, record, space, spec, tuner
from ireerv.tune.measure import Result, Round, kernel_cycles

CONV = "main_dispatch_4_conv_2d_nhwc_hwcf_1x25x5x64x1x2x32_i8xi8xi32"
DEPTHWISE = "main_dispatch_3_depthwise_conv_2d_nhwc_hwc_1x25x5x64x3x3_i8xi8xi32"
MATMUL = "qmatmul64_i8i8i32_dispatch_0_matmul_like_64x64x64_i8xi8xi32"
UNPACK = "main_dispatch_3_unpack_elementwise_125x64_i32xi32xi32xi32xi32xi8"  # cluster4-pulp
TUNING, PROFILE = "models/m/tuning/b.mlir", "build/b/m/profile.json"  # in a copy
FILES = (TUNING, PROFILE)


def test_dispatches_are_read_from_kernel_symbols() -> None:
    conv = space.parse_symbol(CONV)
    assert conv == space.Dispatch("conv_2d_nhwc_hwcf", (1, 25, 5, 64, 1, 2, 32), "i8xi8xi32")
    assert conv.key == "conv_2d_nhwc_hwcf_1x25x5x64x1x2x32_i8xi8xi32"
    assert space.parse_key(conv.key) == conv
    assert space.parse_symbol(MATMUL).linalg_op == "linalg.generic"
    assert space.parse_symbol("main_dispatch_2_slow_memcpy") is None
    unpack = space.parse_symbol(UNPACK)
    assert (unpack.dims, unpack.linalg_op, unpack.body, unpack.min_inputs) == (
        (125, 64), "linalg.generic", None, 2)
    assert space.parse_symbol("main_dispatch_14_reduction_320x25_i8xi32") is None
    # A name without all of the op's loops cannot be matched exactly: left alone.
    assert space.parse_symbol("main_dispatch_1_conv_2d_nhwc_hwcf_25x5x64x10x2x2_i8xi8xi32") \
        is None


def test_candidates_divide_the_loops_and_keep_their_sums_in_registers() -> None:
    depthwise = space.parse_symbol(DEPTHWISE)
    found = space.candidates(depthwise, 100)
    assert found == sorted(set(found), key=found.index)  # no repeats
    for tiles in found:
        _, _, width, channels, _, _ = tiles.parallel
        assert 5 % width == 0 and 64 % channels == 0
        assert tiles.reduction[5] in (1, 3)
    assert space.candidates(depthwise, 3) == found[:3]  # a budget is a prefix
    matmul = space.candidates(space.parse_symbol(MATMUL), 100)
    assert all(t.parallel[0] * t.parallel[1] <= space.MAX_SUMS for t in matmul)
    assert {t.distribution[1] for t in found} == {1, 25}  # rows per workgroup: one or all
    # An unpack's steps, peeled, in one workgroup: kws's best by hand (8 x 8) first.
    unpack = space.candidates(space.parse_symbol(UNPACK), 100)
    assert unpack[0] == space.Tiles((128, 64), (8, 8), (), space.PEELED)
    assert len(unpack) == 25 and {t.distribution for t in unpack} == {(128, 64)}


def _chosen(*symbols: str) -> list[tuple[space.Dispatch, space.Tiles]]:
    chosen = map(space.parse_symbol, symbols or (CONV, MATMUL))
    return [(d, space.candidates(d, 1)[0]) for d in chosen]


def test_the_tuning_file_has_the_form_the_build_merges() -> None:
    text = spec.render("Tuned configurations of a test.\n", _chosen(CONV, MATMUL, UNPACK))
    check_golden("tuning-spec.mlir", text)
    library = (PROJECT_ROOT / "bsp/common/iree-tiles.mlir").read_text()
    merged = spec.merge(library, text)
    entries = merged.split("foreach_match in %variant_op\n", 1)[1].split("\n")
    assert [e.strip() for e in entries[:4]] == [
        "@tuned_0 -> @apply_op_config,", "@tuned_1 -> @apply_op_config,",
        "@tuned_2 -> @apply_op_config,",
        "@match_i8_copy -> @apply_op_config,"]  # tuned matchers first: they win
    assert merged.count("transform.named_sequence @tuned_") == 3
    assert merged.index("@tuned_2(") < merged.index("@__kernel_config(")
    # A borrowed tuning goes in renamed beside the board's own: both sets of matchers, the
    # own ahead.
    both = spec.merge(spec.merge(library, spec.renamed(text, spec.BORROWED), spec.BORROWED),
                      text)
    assert both.count("transform.named_sequence @borrowed_") == 3
    assert both.index("@tuned_0 -> ") < both.index("@borrowed_0 -> ")
    with pytest.raises(spec.SpecError, match="no tuned matchers"):
        spec.merge(library, library)
    with pytest.raises(spec.SpecError, match="single @__kernel_config"):
        spec.merge(text.replace("@__kernel_config", "@other"), text)


def test_kernel_cycles_sum_the_dispatches_of_one_shape() -> None:
    profile = {"phases": [{"name": "call 0", "total": 1000, "functions": [
        {"name": CONV, "component": "kernel", "inclusive": 300},
        {"name": CONV.replace("_4_", "_7_"), "component": "kernel", "inclusive": 310},
        {"name": "main_dispatch_2_slow_memcpy", "component": "kernel", "inclusive": 5},
        {"name": "memset", "component": "bsp", "inclusive": 9}]}]}
    result = kernel_cycles(profile)
    assert result.cycles == {space.parse_symbol(CONV).key: 610} and result.total == 1000


def test_kernel_cycles_are_a_dispatchs_wall_cycles_where_the_harts_share_it() -> None:
    """With several harts hart 0's kernel runs only its share; the profile's dispatch
    window is the dispatch from start to end (waiting for the other harts included)."""
    profile = {"phases": [{"name": "call 1", "total": 1000, "functions": [
        {"name": CONV, "component": "kernel", "inclusive": 300},
        {"name": DEPTHWISE, "component": "kernel", "inclusive": 200}],
        "dispatches": {CONV: 420}}]}
    result = kernel_cycles(profile)
    assert result.cycles == {space.parse_symbol(CONV).key: 420,
                             space.parse_symbol(DEPTHWISE).key: 200}


class FakeRunner:
    """Rounds answered from a table of cycles per (dispatch, tiles); a candidate in FAILS
    makes its round fail, as a configuration the compiler rejects does."""

    def __init__(self, fails: set[space.Tiles]) -> None:
        self.fails, self.rounds = fails, []

    def __call__(self, rounds):
        conv, matmul = (d for d, _ in _chosen())
        for rnd in rounds:
            self.rounds.append(rnd.name)
            cycles = {conv.key: 1000, matmul.key: 2000}
            failed = False
            for d in (conv, matmul):
                for i, tiles in enumerate(space.candidates(d, 4)):
                    if matcher_present(rnd.spec, d, tiles):
                        cycles[d.key] = 900 + 10 * i if d is conv else 2100
                        failed |= tiles in self.fails
            yield rnd, Result(not failed, {} if failed else cycles,
                              0 if failed else sum(cycles.values()))


def matcher_present(text: str, d: space.Dispatch, tiles: space.Tiles) -> bool:
    return f"// {d.key}: {tiles.label()}\n" in text


def test_a_tune_keeps_winners_only_and_resumes(tmp_path: Path) -> None:
    conv, _ = (d for d, _ in _chosen())
    bad = space.candidates(conv, 4)[0]
    runner = FakeRunner({bad})
    store = tuner.Store(tmp_path / "rounds.json", "context")
    said: list[str] = []
    outcome = tuner.tune("m", "b", 4, runner, store, tuner.Progress(said.append), FILES)
    # round 1 failed with two candidates in it: each was run alone
    assert any("alone" in name for name in runner.rounds)
    assert [d.key for d, _ in outcome.chosen] == [conv.key]  # the matmul never beat 2000
    assert outcome.chosen[0][1] == space.candidates(conv, 4)[1]  # the fastest that passed
    doc = record.document("m", "b", 4, outcome)
    verdicts = [c["verdict"] for c in doc["dispatches"][0]["candidates"]]
    assert verdicts[0] == "failed" and "faster" in verdicts
    assert doc["untuned"] == 3000 and doc["tuned"] == 2910
    assert "left" in said[-1]
    again = FakeRunner({bad})  # a second tune finds every round done
    assert tuner.tune("m", "b", 4, again, tuner.Store(store.path, "context"),
                      tuner.Progress(said.append), FILES).chosen == outcome.chosen
    assert again.rounds == []
    written = record.write(tmp_path / "tuning", "m", "b", 4, outcome)
    assert [p.name for p in written] == ["b.mlir", "b.json"]
    assert json.loads(written[1].read_text()) == doc
    assert "% fewer" in record.summary(doc)


def test_round_digests_follow_the_spec_and_the_source() -> None:
    one = Round("round 1", "kws", "cluster4", "spec", "t", "p")
    assert one.digest("a") == Round("other name", "kws", "cluster4", "spec", "t", "p").digest("a")
    assert one.digest("a") != one.digest("b")
    assert one.digest("a") != Round("round 1", "kws", "cluster4", "spec2", "t", "p").digest("a")


def test_a_budget_beyond_the_candidates_is_capped_and_said(tmp_path: Path) -> None:
    conv, matmul = (d for d, _ in _chosen())
    most = max(len(space.candidates(d, 10**9)) for d in (conv, matmul))
    said: list[str] = []
    done = threading.Event()

    def tune() -> None:
        outcome = tuner.tune("m", "b", 10**9, FakeRunner(set()),
                             tuner.Store(tmp_path / "rounds.json", "c"),
                             tuner.Progress(said.append), FILES)
        assert outcome.budget == most
        done.set()

    threading.Thread(target=tune, daemon=True).start()
    assert done.wait(30), "the tune did not finish: it counts through BUDGET"
    assert f"tune: BUDGET=1,000,000,000 is more than the {most} candidates of any " \
           f"dispatch: {most} rounds" in said


class InterruptedRunner(FakeRunner):
    """Rounds whose builds a Ctrl-C stopped: the first round's child says it was interrupted."""

    def __call__(self, rounds):
        for rnd in rounds:
            if rnd.name != "untuned":
                raise interrupt.Interrupted
            yield from super().__call__([rnd])


def test_an_interrupted_tune_stops_and_keeps_only_finished_rounds(tmp_path: Path) -> None:
    store = tuner.Store(tmp_path / "rounds.json", "context")
    with pytest.raises(interrupt.Interrupted):
        tuner.tune("m", "b", 4, InterruptedRunner(set()), store, tuner.Progress(print), FILES)
    assert [r.passed for r in tuner.Store(store.path, "context").done.values()] == [True]


def test_a_round_in_flight_is_stopped_by_the_interrupt(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A real child process (standing in for a round's scons) is sent Ctrl-C's signal as soon
    as the tune is interrupted, and its round has no result."""
    child = "import signal, sys, time; signal.signal(signal.SIGINT, lambda *a: sys.exit(" \
            "'scons: Build interrupted.')); time.sleep(60)"
    monkeypatch.setattr(measure, "SCONS", [sys.executable, "-c", child])
    workspace = measure.Workspace(tmp_path, None)
    timer = threading.Timer(0.5, interrupt.STOP.set)
    timer.start()
    start = time.monotonic()
    try:
        with pytest.raises(interrupt.Interrupted):
            workspace.run(Round("round 1", "m", "b", "", TUNING, PROFILE))
    finally:
        interrupt.STOP.clear()
    assert time.monotonic() - start < 30


def _profile_doc(cycles: int) -> dict:
    kernel = {"name": CONV, "component": "kernel", "self": cycles, "inclusive": cycles,
              "calls": 1}
    phase = {"name": "call 1", "total": cycles, "measured": cycles, "instructions": cycles,
             "soft_float_calls": 0, "components": [{"name": "kernel", "self": cycles,
                                                    "percent": 100.0}],
             "functions": [kernel], "stacks": [{"frames": [CONV], "cost": cycles}]}
    return {"schema": "ireerv-profile/1", "model": "m", "board": "b", "unit": "cycles",
            "phases": [phase]}


@pytest.mark.parametrize("exit_code", [0, 1])
def test_a_round_reads_the_profile_record_its_build_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exit_code: int) -> None:
    """The cycles come from the profile's JSON record where the round's image keeps it,
    never from what the child prints; a failed build's round fails, even where an earlier
    round's record lies."""
    record = tmp_path / PROFILE
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps(_profile_doc(1)))  # an earlier round's
    child = ("import json, sys; from pathlib import Path; "
             f"Path({PROFILE!r}).write_text(json.dumps({_profile_doc(777)!r}))"
             f" if {exit_code} == 0 else None; print('profile: elsewhere/profile.json, x');"
             f" sys.exit({exit_code})")
    monkeypatch.setattr(measure, "SCONS", [sys.executable, "-c", child])
    workspace = measure.Workspace(tmp_path, None)
    result = workspace.run(Round("round 1", "m", "b", "", TUNING, PROFILE))
    assert result.passed == (exit_code == 0)
    assert result.total == (777 if exit_code == 0 else 0)
