"""The models bench: its plan, one row per model and board, Markdown (golden) and chart."""

from __future__ import annotations

import xml.dom.minidom
from pathlib import Path

import pytest
from golden_files import check_golden

from ireerv.bench import models, models_chart

REFERENCES = [{"label": "DSP core", "source": "published elsewhere", "clock_hz": 60_000_000,
               "extra": False,
               "results": [{"task": "keyword spotting", "cycles": 4_790_000}]},
              {"label": "other core", "source": "published too", "clock_hz": None,
               "extra": True,
               "results": [{"task": "keyword spotting", "cycles": 23_950_000},
                           {"task": "image classification", "cycles": 84_500_000}]}]


def _size(data: int, heap: int = 0) -> dict:
    sections = [{"name": ".bss", "size": data - heap}]
    if heap:
        sections.append({"name": ".heap", "size": heap})
    return {"totals": {"code": 50_000, "data": data}, "sections": sections}


MEMORY = {"heap_peak": 12_340, "largest_allocation": 4096, "stacks": [10_660],
          "regions": [{"region": "shared", "size": 1 << 26, "static": 87_508, "stack": 0,
                       "heap": 0, "peak": 87_508},
                      {"region": "spm0", "size": 1 << 18, "static": 17_356, "stack": 10_660,
                       "heap": 12_340, "peak": 40_356}]}


def _run(calls: list[int], passed: bool = True) -> dict:
    return {"passed": passed, "reason": "passed" if passed else "cycle-limit",
            "startup_cycles": 40_000, "call_cycles": calls, "memory": MEMORY if passed else {}}


PROFILE = {"phases": [
    {"name": "startup", "total": 10, "components": []},
    {"name": "call 0", "total": 1000, "components": [{"name": "soft-float", "self": 500}]},
    {"name": "call 1", "total": 1000, "components": [{"name": "soft-float", "self": 25},
                                                     {"name": "kernel", "self": 975}]}]}

LAYERS = {"rows": [
    {"layers": [{"name": "conv;fused"}], "kind": "CONV_2D", "cost": 600, "percent": 60.0,
     "per_mac": 4.2},
    {"layers": [{"name": "dw"}], "kind": "DEPTHWISE_CONV_2D", "cost": 300, "percent": 30.0,
     "per_mac": 6.25},
    {"layers": [{"name": "fc"}], "kind": "FULLY_CONNECTED", "cost": 50, "percent": 5.0,
     "per_mac": 3.8},
    {"layers": [{"name": "pool"}], "kind": "AVERAGE_POOL_2D", "cost": 10, "percent": 1.0,
     "per_mac": None},
    {"layers": [], "kind": "-", "cost": 40, "percent": 4.0, "per_mac": None}]}


def sample_table() -> dict:
    measured = [
        models.Measured("kws", "keyword spotting", "qemu-virt", "default", "instructions",
                        _run([9_000_000, 8_900_000]), _size(60_000), PROFILE, LAYERS,
                        2_656_768),
        models.Measured("kws", "keyword spotting", "cluster4", "default", "cycles",
                        _run([12_000_000, 11_975_000]), _size(60_000), macs=2_656_768),
        models.Measured("vww", None, "cluster4", "large", "cycles", _run([], passed=False),
                        _size(16_900_000, heap=16_777_216)),
    ]
    return models.table(measured, REFERENCES)


def test_rows() -> None:
    rows = sample_table()["rows"]
    assert rows[0]["inference"] == 8_900_000 and rows[0]["soft_float_share"] == 2.5
    assert rows[0]["references"] == []  # instructions are not set beside cycles
    assert rows[1]["references"] == [
        {"label": "DSP core", "cycles": 4_790_000, "ratio": 2.5},
        {"label": "other core", "cycles": 23_950_000, "ratio": 0.5}]
    assert rows[1]["per_mac"] == 4.51 and rows[2]["per_mac"] is None
    assert [c["kind"] for c in rows[0]["costliest"]] == ["CONV_2D", "DEPTHWISE_CONV_2D",
                                                         "FULLY_CONNECTED"]
    assert rows[0]["costliest"][0]["name"] == "conv"
    assert rows[2]["ram"] == 16_900_000 - 16_777_216 and rows[2]["inference"] is None
    assert not rows[2]["passed"] and rows[2]["reason"] == "cycle-limit"
    assert (rows[1]["heap_peak"], rows[1]["stack_peak"]) == (12_340, 10_660)
    assert (rows[1]["peak_region"], rows[1]["peak"]) == ("spm0", 40_356)  # the busiest
    assert rows[2]["peak"] is None


def test_markdown_and_chart() -> None:
    table = sample_table()
    check_golden("models-bench.md", models.markdown(table))
    svg = models_chart.render_svg(table)
    xml.dom.minidom.parseString(svg)  # well-formed
    assert "kws on cluster4" in svg and "DSP core" in svg and "other core" in svg
    check_golden("models-bench.svg", svg)


def test_the_shipped_plan_loads(tmp_path: Path) -> None:
    plan = models.load_plan()
    assert plan.boards == ("qemu-virt", "cluster4", "cluster4-pulp")
    assert plan.profile_board == "qemu-virt"
    assert plan.models and all(isinstance(m, str) for m, _, _ in plan.models)
    bad = tmp_path / "models.toml"
    bad.write_text("boards = ['qemu-virt']\n")
    with pytest.raises(models.ModelsPlanError, match="models.toml"):
        models.load_plan(bad)
    broken = tmp_path / "published.toml"
    broken.write_text("[[references]]\nlabel = 'x'\n")
    with pytest.raises(models.ModelsPlanError, match="published.toml"):
        models.load_plan(published=broken)
    with pytest.raises(models.ModelsPlanError, match="not a models bench table"):
        models.markdown({"schema": "other"})


def test_the_published_figures_are_the_best_per_core_class() -> None:
    refs = {r["label"]: r for r in models.load_references()}
    main = [label for label, r in refs.items() if not r["extra"]]
    assert main == ["best Cortex-M4", "best Cortex-M33", "Andes D45",
                    "best Cortex-M7 (X-CUBE-AI)", "Cortex-M85, Helium"]
    for label in main:  # every class has all four networks
        assert len(refs[label]["results"]) == 4, label
    kws = {label: next(r["cycles"] for r in refs[label]["results"]
                       if r["task"] == "keyword spotting") for label in refs}
    assert kws["best Cortex-M7 (X-CUBE-AI)"] == 3_168_998  # 280 MHz / 88.356
    assert kws["best Cortex-M4"] == 5_182_466  # 120 MHz / 23.155
    assert kws["best Cortex-M33"] == 4_639_160  # 160 MHz / 34.489
    assert refs["v0.5 reference (Cortex-M4F)"]["extra"]
    assert kws["v0.5 reference (Cortex-M4F)"] == 21_830_089  # 120 MHz / 5.497
    assert refs["Cortex-M85, Helium"]["clock_hz"] == 480_000_000


def test_one_board_of_the_plan() -> None:
    plan = models.load_plan()
    assert models.select_boards(plan, None) == plan.boards
    assert models.select_boards(plan, "cluster4-pulp") == ("cluster4-pulp",)
    with pytest.raises(models.ModelsPlanError, match="BOARD=nowhere is not one"):
        models.select_boards(plan, "nowhere")


def test_a_tuned_model_shows_its_untuned_build_beside_it() -> None:
    record = {"dispatches": [
        {"dispatch": "conv_2d_nhwc_hwcf_1x25x5x64x1x2x32_i8xi8xi32", "untuned": 600,
         "tuned": 500},
        {"dispatch": "conv_2d_nhwc_hwcf_1x1x1x12x1x1x64_i8xi8xi32", "untuned": 100,
         "tuned": 100},
        {"dispatch": "depthwise_conv_2d_nhwc_hwc_1x25x5x64x3x3_i8xi8xi32", "untuned": 200,
         "tuned": 190}]}
    tuned = models.Measured("kws", "keyword spotting", "cluster4", "default", "cycles",
                            _run([1000, 900]), _size(60_000), untuned=_run([1100, 1000]),
                            tuning=record)
    table = models.table([tuned], REFERENCES)
    row = table["rows"][0]
    assert row["untuned"] == 1000 and row["inference"] == 900
    assert row["tuning_kinds"] == [{"kind": "convolution", "untuned": 700, "tuned": 600},
                                   {"kind": "depthwise", "untuned": 200, "tuned": 190}]
    text = models.markdown(table)
    assert ("| kws | cluster4 | 1,000 | 900 | 0.900 | convolution 700 → 600; "
            "depthwise 200 → 190 |") in text
    assert "untuned" not in models.markdown(sample_table())  # only tuned models
