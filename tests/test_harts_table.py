"""The harts table of the bench: its plan, the table from run records and the cap table,
its Markdown and its chart (no simulator: the runs are in test_images.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ireerv.bench import cap, harts, harts_chart, harts_layers
from ireerv.bench.plan import PlanError

SVG = "{http://www.w3.org/2000/svg}"


def _record(model: str, size: int | None, runtime: str, harts_: int, cycles: int,
            passed: bool = True) -> dict:
    team = harts_ > 1 and runtime == "iree"
    return {"schema": "ireerv-run/2", "model": model, "board": "cluster4", "size": size,
            "runtime": runtime, "passed": passed, "reason": "passed" if passed else "failed",
            "detail": "", "seconds": 1.0, "call_cycles": [cycles + 600, cycles],
            "harts": harts_, "workgroups": ["16x1x1"] if team else [],
            "hart_cycles": [cycles // 2] * harts_ if team else []}


def _cap_row(kernel: str, softfloat: str | None, limit: float) -> dict:
    return {"kernel": kernel, "label": cap.LABELS[kernel], "softfloat": softfloat,
            "limit": limit, "ipc1": 0.8, "w": 1.0,
            "harts": [{"n": n, "cap": round(min(n, limit), 3)} for n in (1, 2, 3, 4)]}


CAP = {"schema": cap.SCHEMA, "board": "cluster4",
       "rows": [_cap_row("mac", None, 1.34), _cap_row("f32", "rvfplib", 1.30),
                _cap_row("f32", "libgcc", 1.03), _cap_row("divu", None, 6.32)]}

PLAN = harts.HartsPlan(
    board="cluster4", harts=(1, 2, 4), cap={"f32": "f32", "int8": "mac"},
    rows=(harts.HartsRow("matmul", 64, "iree", "f32"), harts.HartsRow("matmul", 64, "none", "f32"),
          harts.HartsRow("mlp", None, "iree", "f32"),
          harts.HartsRow("qmatmul64", None, "iree", "int8")))

RECORDS = [
    _record("matmul", 64, "iree", 1, 25_000_000), _record("matmul", 64, "iree", 2, 22_000_000),
    _record("matmul", 64, "iree", 4, 20_000_000),
    _record("matmul", 64, "none", 1, 26_000_000), _record("matmul", 64, "none", 4, 21_000_000),
    _record("mlp", None, "iree", 1, 90_000), _record("mlp", None, "iree", 4, 95_000, False),
    _record("qmatmul64", None, "iree", 1, 1_800_000),
    _record("qmatmul64", None, "iree", 2, 1_500_000),
    _record("qmatmul64", None, "iree", 4, 1_350_000),
]


def test_the_projects_plan_has_the_issues_rows() -> None:
    plan = harts.load_harts_plan()
    assert plan.board == "cluster4" and plan.harts == (1, 2, 4, harts.AUTO)
    keys = {(r.model, r.size, r.runtime) for r in plan.rows}
    assert {(m, None, "iree") for m in ("kws", "resnet8", "ad", "vww")} <= keys
    assert {("matmul", n, rt) for n in (16, 32, 64) for rt in ("iree", "none")} <= keys
    assert {("mlp", None, "iree"), ("qmatmul64", None, "iree")} <= keys
    assert plan.cap["int8"] == "i8tile" and plan.cap["f32"] == "f32"
    assert {r.kind for r in plan.rows} <= set(plan.cap)


@pytest.mark.parametrize(("body", "message"), [
    ('harts = [2]\ncap = {f32 = "f32"}\nrows = []', "harts must start with 1"),
    ('harts = [1, 4]\ncap = {f32 = "f32"}\n'
     'rows = [{model = "qmatmul64", kind = "int8"}]', "kind 'int8' of 'qmatmul64' has no cap"),
    ('harts = [1, 4]\ncap = {f32 = "f32"}\n'
     'rows = [{model = "matmul", sizes = [4], runtimes = ["c"], kind = "f32"}]',
     "runtime 'c' of 'matmul' is not one of iree, none"),
    ('harts = [1, 4]\nrows = []', "KeyError"),
    ('harts = [1, "all"]\ncap = {}\nrows = []', "neither a whole number nor 'auto'"),
    ('harts = [1, "auto", "auto"]\ncap = {}\nrows = []', "appears twice"),
])
def test_a_bad_plan_is_one_clear_error(tmp_path: Path, body: str, message: str) -> None:
    bad = tmp_path / "plan.toml"
    bad.write_text(f'[harts]\nboard = "cluster4"\n{body}\n')
    with pytest.raises(PlanError, match=message):
        harts.load_harts_plan(bad)


def test_rows_stand_next_to_their_cap() -> None:
    table = harts.collect(RECORDS, PLAN, CAP, "rvfplib")
    iree, plain, mlp, q8 = table["rows"]
    assert table["schema"] == harts.SCHEMA and table["softfloat"] == "rvfplib"
    assert iree["label"] == "matmul 64×64 (IREE)" and plain["label"] == "matmul 64×64 (plain C)"
    assert iree["cells"]["4"]["speedup"] == 1.25 and iree["cells"]["2"]["speedup"] == 1.136
    assert iree["cap"]["softfloat"] == "rvfplib" and iree["cap"]["by_harts"] == {
        "1": 1.0, "2": 1.3, "4": 1.3}
    assert iree["of_cap"] == 96.2 and iree["workgroups"] == ["16x1x1"]
    assert plain["cells"]["2"] == {"cycles": None, "speedup": None, "ran": False,
                                   "passed": False, "workgroups": [], "hart_cycles": []}
    assert plain["workgroups"] == [] and plain["of_cap"] == 95.2
    assert mlp["cells"]["4"]["passed"] is False and mlp["of_cap"] is None
    assert q8["cap"]["kernel"] == "mac" and q8["cap"]["softfloat"] is None
    assert q8["cells"]["4"]["speedup"] == 1.333 and q8["of_cap"] == 99.5
    # the soft-float in use picks the f32 loop; the integer loop is the same for all
    libgcc = harts.collect(RECORDS, PLAN, CAP, "libgcc")["rows"]
    assert libgcc[0]["cap"]["by_harts"]["4"] == 1.03 and libgcc[3]["cap"] == q8["cap"]


def test_without_a_cap_table_the_cap_columns_are_empty() -> None:
    table = harts.collect(RECORDS, PLAN, None)
    assert all(r["cap"] is None and r["of_cap"] is None for r in table["rows"])
    assert "| matmul 64×64 (IREE) | 25,000,000 | 22,000,000 | 20,000,000 | 1.14× | 1.25× " \
           "| 16x1x1 | — | — |" in harts.markdown(table)
    with pytest.raises(cap.CapError):
        harts.collect(RECORDS, PLAN, {"schema": "ireerv-cap/0", "rows": []})


def test_markdown() -> None:
    text = harts.markdown(harts.collect(RECORDS, PLAN, CAP, "rvfplib"))
    lines = text.splitlines()
    assert lines[0] == "# Harts on cluster4: each dispatch shared by 1, 2, 4 harts"
    assert ("| row | 1 hart | 2 harts | 4 harts | speedup 2 | speedup 4 | workgroups | cap 4 "
            "| % of cap 4 |") in lines
    assert ("| matmul 64×64 (IREE) | 25,000,000 | 22,000,000 | 20,000,000 | 1.14× | 1.25× "
            "| 16x1x1 | 1.30× | 96.2 % |") in lines
    assert ("| matmul 64×64 (plain C) | 26,000,000 | — | 21,000,000 | — | 1.24× | — | 1.30× "
            "| 95.2 % |") in lines
    assert "| mlp (IREE) | 90,000 | — | FAILED | — | — | 16x1x1 | 1.30× | — |" in lines
    assert "| qmatmul64 (IREE) | 1,800,000 | 1,500,000 | 1,350,000 | 1.20× | 1.33× " \
           "| 16x1x1 | 1.34× | 99.5 % |" in lines
    assert "- cap of the f32 rows: the loop f32 `a*b+c` (rvfplib)" in lines
    assert "- cap of the int8 rows: the loop int32 multiply-accumulate" in lines
    assert "- qmatmul64 (IREE), 4 harts: 675,000, 675,000, 675,000, 675,000" in lines
    assert "|---|---:|---:|---:|---:|---:|---|---:|---:|" in lines  # workgroups: text
    with pytest.raises(PlanError, match="schema"):
        harts.markdown({"schema": "ireerv-bench-harts/1"})


def test_dispatches_of_one_workgroup_list_no_shares() -> None:
    alone = {**_record("mlp", None, "iree", 2, 113_000), "workgroups": ["1x1x1", "1x1x1"],
             "hart_cycles": [0, 0]}
    text = harts.markdown(harts.collect([*RECORDS, alone], PLAN, CAP, "rvfplib"))
    assert "| mlp (IREE) | 90,000 | 113,000 | FAILED | 0.80× | — | 1x1x1 1x1x1 |" in text
    assert "- mlp (IREE), 2 harts" not in text


def test_chart_is_svg_with_a_bar_and_a_cap_per_hart_count() -> None:
    table = harts.collect(RECORDS, PLAN, CAP, "rvfplib")
    root = ET.fromstring(harts_chart.render_svg(table))
    bars = [e for e in root.iter(f"{SVG}rect") if e.get("class") == "bar"]
    got = {(b.get("data-row"), b.get("data-harts")): float(b.get("data-value")) for b in bars}
    assert got == {("matmul 64×64 (IREE)", "2"): 1.136, ("matmul 64×64 (IREE)", "4"): 1.25,
                   ("matmul 64×64 (plain C)", "4"): 1.238,
                   ("qmatmul64 (IREE)", "2"): 1.2, ("qmatmul64 (IREE)", "4"): 1.333}
    caps = [e for e in root.iter(f"{SVG}line") if e.get("class") == "cap"]
    assert len(caps) == 2 * len(PLAN.rows)  # every row has a cap, failed or not
    # a higher speedup is a taller bar
    height = {k: float(b.get("height")) for k, b in zip(got, bars, strict=True)}
    assert height[("matmul 64×64 (IREE)", "4")] > height[("matmul 64×64 (IREE)", "2")]
    missing = [t for t in root.iter(f"{SVG}text") if t.findtext(f"{SVG}title")]
    assert {t.findtext(f"{SVG}title") for t in missing} == {
        "matmul 64×64 (plain C), 2 harts: no run", "mlp (IREE), 2 harts: no run",
        "mlp (IREE), 4 harts: failed"}


def test_write_declares_three_files(tmp_path: Path) -> None:
    table = harts.collect(RECORDS, PLAN, CAP, "rvfplib")
    harts_chart.write(table, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["harts.json", "harts.md", "harts.svg"]
    assert json.loads((tmp_path / "harts.json").read_text()) == table
    assert (tmp_path / "harts.svg").read_text().startswith("<svg ")


def test_an_auto_column_stands_next_to_the_cap_of_all_harts() -> None:
    plan = harts.HartsPlan(board="cluster4", harts=(1, 4, harts.AUTO), cap={"int8": "mac"},
                           rows=(harts.HartsRow("kws", None, "iree", "int8"),))
    auto = {**_record("kws", None, "iree", 4, 8_000_000), "harts_auto": True}
    records = [_record("kws", None, "iree", 1, 9_600_000),
               _record("kws", None, "iree", 4, 10_000_000), auto]
    table = harts.collect(records, plan, CAP, "rvfplib")
    row = table["rows"][0]
    assert row["cells"]["auto"]["speedup"] == 1.2 and row["cells"]["4"]["speedup"] == 0.96
    assert row["cap"]["by_harts"] == {"1": 1.0, "4": 1.34, "auto": 1.34}
    assert row["of_cap"] == 89.6  # the last column: auto
    lines = harts.markdown(table).splitlines()
    assert lines[0] == ("# Harts on cluster4: each dispatch shared by 1, 4 harts or by as "
                        "many as it chooses (HARTS=auto)")
    assert "| row | 1 hart | 4 harts | HARTS=auto | speedup 4 | speedup auto | workgroups " \
           "| cap auto | % of cap auto |" in lines
    assert "| kws (IREE) | 9,600,000 | 10,000,000 | 8,000,000 | 0.96× | 1.20× | 16x1x1 " \
           "| 1.34× | 89.6 % |" in lines
    assert "- kws (IREE), HARTS=auto: 4,000,000, 4,000,000, 4,000,000, 4,000,000" in lines
    svg = ET.fromstring(harts_chart.render_svg(table))
    assert {b.get("data-harts") for b in svg.iter(f"{SVG}rect") if b.get("class") == "bar"} \
        == {"4", "auto"}


def _layers(total: int, kinds: dict[str, tuple[int, int]]) -> dict:
    return {"total": total, "kinds": [{"kind": k, "macs": m, "cost": c}
                                      for k, (m, c) in kinds.items()]}


def test_a_network_row_shows_each_layer_kind_with_every_hart_count() -> None:
    plan = harts.HartsPlan(board="cluster4", harts=(1, 2, harts.AUTO), cap={"int8": "mac"},
                           rows=(harts.HartsRow("kws", None, "iree", "int8", layers=True),))
    records = [_record("kws", None, "iree", 1, 10_000), _record("kws", None, "iree", 2, 8_000),
               {**_record("kws", None, "iree", 4, 7_900), "harts_auto": True}]
    profiles = {("kws", "1"): _layers(10_000, {"CONV_2D 1x1": (2_000, 6_000),
                                               "DEPTHWISE_CONV_2D": (300, 3_000),
                                               "SOFTMAX": (0, 500)}),
                ("kws", "2"): _layers(8_000, {"CONV_2D 1x1": (2_000, 4_000),
                                              "DEPTHWISE_CONV_2D": (300, 3_000)}),
                ("kws", "auto"): _layers(7_900, {"CONV_2D 1x1": (2_000, 4_000),
                                                 "DEPTHWISE_CONV_2D": (300, 2_900)})}
    table = harts.collect(records, plan, CAP, "rvfplib", profiles)
    kinds = {k["kind"]: k for k in table["layer_kinds"]}
    assert list(kinds) == ["CONV_2D 1x1", "DEPTHWISE_CONV_2D", harts_layers.OTHER]
    assert kinds["CONV_2D 1x1"]["speedup"] == {"1": 1.0, "2": 1.5, "auto": 1.5}
    # layers without MACs and the cycles outside dispatches: the rest of the total
    assert kinds[harts_layers.OTHER]["cycles"] == {"1": 1_000, "2": 1_000, "auto": 1_000}
    assert kinds["CONV_2D 1x1"]["of_cap"] == round(100 * 1.5 / kinds["CONV_2D 1x1"]["cap"], 1)
    lines = harts.markdown(table).splitlines()
    assert "| kws | CONV_2D 1x1 | 2,000 | 6,000 | 4,000 | 4,000 | 1.50× | 1.50× | " \
           f"{kinds['CONV_2D 1x1']['cap']:.2f}× | {kinds['CONV_2D 1x1']['of_cap']:.1f} % |" \
        in lines
    # rows without profiles have no per-kind rows
    assert harts.collect(records, plan, CAP, "rvfplib")["layer_kinds"] == []
