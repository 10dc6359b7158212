"""The bench table: run records and images against the reference work's figures.

Cycle figures come from synthetic run records (the shape `scons run` writes); image sizes
from a tiny program linked by the cross toolchain, checked against Berkeley `size`.
"""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ireerv.bench.chart import render_svg
from ireerv.bench.output import load, markdown, write
from ireerv.bench.table import MISSING_RUN, SCHEMA, BenchError, collect
from ireerv.inputs.toolchain import Toolchain

SVG = "{http://www.w3.org/2000/svg}"


def record(size: int, runtime: str, calls: list[int], startup: int | None = 426_000,
           **extra: Any) -> dict[str, Any]:  # fmt: skip
    return {
        "model": "matmul", "board": "cluster4", "size": size, "runtime": runtime,
        "passed": True, "problems": [], "reason": "PASSED", "detail": "exit code 0",
        "seconds": 12.3, "startup_cycles": startup,
        "call_cycles": calls, **extra,
    }  # fmt: skip


FULL = [
    record(4, "iree", [3_300_000, 1_650_000]),
    record(4, "none", [70_000], startup=3_000),
    record(16, "iree", [9_000_000, 7_000_000, 6_500_000], startup=426_100),
    record(16, "none", [3_900_000], startup=3_000),
    record(32, "iree", [30_000_000, 25_000_000], startup=426_200),
    record(32, "none", [31_000_000], startup=3_000),
]
FAILED_16 = record(16, "iree", [], startup=None, passed=False, reason="TIMEOUT",
                   problems=["run timeout: no exit after 600 s"])  # fmt: skip


def cell(table: dict[str, Any], size: int, metric: str) -> dict[str, Any]:
    (row,) = [r for r in table["rows"] if r["size"] == size]
    return row["cells"][metric]


def bars(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    return [e for e in root.iter(f"{SVG}rect") if e.get("class") == "bar"]


# --------------------------------------------------------------------------- cycles


def test_collect_schema_and_values() -> None:
    table = collect(FULL, [])
    assert table["schema"] == SCHEMA
    assert set(table) >= {"schema", "rows", "images", "reference"}
    assert [r["size"] for r in table["rows"]] == [4, 16, 32]
    assert [m["key"] for m in table["metrics"]] == [
        "startup", "first_call", "later_call", "plain_c"]  # fmt: skip

    assert cell(table, 4, "startup") == {
        "ours": 426_000, "reference": 492_851, "ratio": round(426_000 / 492_851, 4),
        "note": None}  # fmt: skip
    assert cell(table, 4, "first_call")["ours"] == 3_300_000
    assert cell(table, 4, "first_call")["reference"] == 1_202_005
    assert cell(table, 4, "first_call")["ratio"] == pytest.approx(2.7454, abs=1e-4)
    assert cell(table, 16, "later_call")["ours"] == 6_500_000  # the last call
    assert cell(table, 16, "later_call")["reference"] == 6_535_215
    assert cell(table, 32, "plain_c") == {
        "ours": 31_000_000, "reference": 30_996_521, "ratio": round(31e6 / 30_996_521, 4),
        "note": None}  # fmt: skip
    assert cell(table, 16, "startup")["reference"] == 492_856
    assert cell(table, 32, "first_call")["reference"] == 23_898_480
    assert cell(table, 16, "plain_c")["reference"] == 3_904_653
    # The plain C start-up (BSP only) is kept with its run, not compared.
    row4 = table["rows"][0]
    assert row4["runs"]["none"]["startup_cycles"] == 3_000
    assert row4["runs"]["iree"]["call_cycles"] == [3_300_000, 1_650_000]
    assert all(not r["notes"] for r in table["rows"])

    ref = table["reference"]
    assert ref["image"] == {"code_and_data": 1_105_394, "bss": 11_536}
    assert ref["cycles"][0] == {"size": 4, "startup": 492_851, "iree_call": 1_202_005,
                                "plain_c": 64_461}  # fmt: skip
    assert json.loads(json.dumps(table)) == table


def test_records_of_other_models_and_boards_are_left_out() -> None:
    other = [{**FULL[0], "board": "qemu-virt", "call_cycles": [1, 1]},
             {**FULL[0], "model": "mlp", "call_cycles": [2, 2]}]  # fmt: skip
    table = collect([FULL[0], *other], [])
    assert cell(table, 4, "first_call")["ours"] == 3_300_000


def test_markdown_has_reference_and_ours() -> None:
    text = markdown(collect(FULL, []))
    for figure in ("492,851", "492,856", "1,202,005", "6,535,215", "23,898,480",
                   "64,461", "3,904,653", "30,996,521", "1,105,394", "11,536"):  # fmt: skip
        assert figure in text
    for figure in ("426,000", "3,300,000", "1,650,000", "6,500,000", "31,000,000", "2.75×"):
        assert figure in text
    (row,) = [line for line in text.splitlines() if line.startswith("| 4×4 |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:7] == ["4×4", "426,000", "492,851", "0.86×", "3,300,000", "1,202,005",
                         "2.75×"]  # fmt: skip


def test_svg_is_xml_with_one_bar_per_value() -> None:
    table = collect(FULL, [])
    svg = render_svg(table)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    found = bars(svg)
    assert len(found) == 3 * 4 * 2  # three sizes, four metrics, ours and the reference
    values = sorted(int(b.get("data-value", "")) for b in found)
    expected = sorted(v for r in table["rows"] for c in r["cells"].values()
                      for v in (c["ours"], c["reference"]))  # fmt: skip
    assert values == expected
    texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    for label in ("cycles (log scale)", "matrix size", "runtime start-up", "first IREE call",
                  "later IREE call", "plain C triple loop", "ours", "reference", "3.30M",
                  "492.9k", "N = 32"):  # fmt: skip
        assert label in texts
    # Log scale: a bar ten times as high in value is a fixed step taller, bars share a base.
    heights = {int(b.get("data-value", "")): float(b.get("height", "")) for b in found}
    bases = {round(float(b.get("y", "")) + float(b.get("height", "")), 1) for b in found}
    assert len(bases) == 1
    assert heights[30_996_521] > heights[3_904_653] > heights[64_461] > 0


# --------------------------------------------------------------------------- failures


def test_failed_and_missing_runs_are_shown_not_crashed() -> None:
    records = [r for r in FULL if r["size"] != 16] + [FAILED_16]  # 16 plain C: missing
    table = collect(records, [])
    row = table["rows"][1]
    assert row["size"] == 16
    assert row["runs"]["iree"]["status"] == "failed"
    assert row["runs"]["none"]["status"] == "missing"
    for metric in ("startup", "first_call", "later_call", "plain_c"):
        c = cell(table, 16, metric)
        assert c["ours"] is None and c["ratio"] is None and c["reference"] is not None
    assert "run timeout: no exit after 600 s" in cell(table, 16, "first_call")["note"]
    assert cell(table, 16, "plain_c")["note"] == MISSING_RUN
    assert len(row["notes"]) == 2

    text = markdown(table)
    (line,) = [x for x in text.splitlines() if x.startswith("| 16×16 |")]
    assert "—" in line and "run timeout: no exit after 600 s" in line
    assert "no run result" in line
    assert "6,535,215" in line  # the reference still shows

    svg = render_svg(table)
    assert len(bars(svg)) == 3 * 4 * 2 - 4
    root = ET.fromstring(svg)
    marks = [t for t in root.iter(f"{SVG}text") if t.get("class") == "missing"]
    assert len(marks) == 4
    tips = [t.findtext(f"{SVG}title") or "" for t in marks]
    assert any("run timeout" in t for t in tips)
    assert any("— failed" in "".join(t.itertext()) for t in marks)


def test_nothing_at_all() -> None:
    table = collect([], [])
    assert all(c["ours"] is None for r in table["rows"] for c in r["cells"].values())
    assert "—" in markdown(table)
    assert len(bars(render_svg(table))) == 3 * 4  # the reference bars only


def test_passed_run_without_all_figures() -> None:
    table = collect([record(4, "iree", [3_300_000], startup=None),
                     record(4, "none", [])], [])  # fmt: skip
    assert cell(table, 4, "first_call")["ours"] == 3_300_000
    later = cell(table, 4, "later_call")
    assert later["ours"] is None and later["ratio"] is None
    assert later["note"] == "only one call was made"
    assert cell(table, 4, "startup")["note"] == "no start-up cycle count printed"
    assert cell(table, 4, "plain_c")["note"] == "no call cycle count printed"


def test_sizes_beyond_the_reference() -> None:
    table = collect([*FULL, record(8, "iree", [2_000_000, 1_000_000])], [])
    assert [r["size"] for r in table["rows"]] == [4, 8, 16, 32]
    assert cell(table, 8, "first_call") == {
        "ours": 2_000_000, "reference": None, "ratio": None, "note": None}
    assert len(bars(render_svg(table))) == 24 + 3  # start-up, two calls; no reference
    assert "| 8×8 | 426,000 | — | — | 2,000,000 |" in markdown(table)


def test_bad_input_is_refused_clearly() -> None:
    with pytest.raises(BenchError, match="runtime 'tvm'"):
        collect([record(4, "tvm", [1])], [])
    with pytest.raises(BenchError, match="no valid size"):
        collect([record(0, "iree", [1])], [])
    with pytest.raises(BenchError, match="not a JSON object"):
        collect([[1, 2]], [])  # type: ignore[list-item]
    with pytest.raises(BenchError, match="image 4-tvm"):
        collect([], [(4, "tvm", "app.elf")])
    with pytest.raises(BenchError, match="schema"):
        markdown({"schema": "ireerv-bench/0"})


# --------------------------------------------------------------------------- files


def test_write_and_load(tmp_path: Path) -> None:
    table = collect(FULL, [(4, "iree", tmp_path / "nowhere" / "app.elf")])
    out = tmp_path / "bench"
    write(table, out)
    assert sorted(p.name for p in out.iterdir()) == ["bench.json", "bench.md", "bench.svg"]
    assert load(out / "bench.json") == table
    assert (out / "bench.md").read_text(encoding="utf-8") == markdown(table)
    ET.parse(out / "bench.svg")
    assert str(tmp_path) not in (out / "bench.json").read_text()  # base names only
    (tmp_path / "bad.json").write_text('{"schema": "other"}')
    with pytest.raises(BenchError, match="'other'"):
        load(tmp_path / "bad.json")


# --------------------------------------------------------------------------- image size


PROGRAM = r"""
int counter = 3;                /* initialised data */
const int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
int scratch[100];               /* bss */
int main(void) {
    for (int i = 0; i < 100; i++) scratch[i] = counter * table[i & 7];
    return scratch[5];
}
"""


@pytest.fixture(scope="module")
def tiny_elf(toolchain: Toolchain, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("bench")
    (work / "tiny.c").write_text(PROGRAM)
    elf = work / "app.elf"
    subprocess.run(
        [toolchain.tool("gcc"), "-march=rv32imc", "-mabi=ilp32", "-O1", "-nostdlib",
         "-nostartfiles", "-Wl,-e,main", "tiny.c", "-o", elf],
        cwd=work, check=True,
    )  # fmt: skip
    return elf


def test_image_sizes_match_berkeley_size(toolchain: Toolchain, tiny_elf: Path,
                                         tmp_path: Path) -> None:  # fmt: skip
    out = subprocess.run([toolchain.tool("size"), tiny_elf], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    text, data, bss = (int(v) for v in out.splitlines()[1].split()[:3])
    not_elf = tmp_path / "garbage.elf"
    not_elf.write_text("not an ELF")
    table = collect(FULL, [(4, "none", tiny_elf), (4, "iree", tiny_elf),
                           (16, "iree", tmp_path / "missing.elf"), (16, "none", not_elf)])
    images = {i["key"]: i for i in table["images"]}
    assert list(images) == ["4-iree", "4-none", "16-iree", "16-none"]

    iree = images["4-iree"]
    assert iree["status"] == "ok" and iree["elf"] == "app.elf"
    assert iree["code_and_data"] == text + data > 0
    assert iree["bss"] == bss >= 400
    names = [s["name"] for s in iree["sections"]]
    assert ".text" in names and ".bss" in names
    assert sum(s["size"] for s in iree["sections"]) == text + data + bss
    assert iree["reference"] == {"code_and_data": 1_105_394, "bss": 11_536}
    assert iree["ratio"]["code_and_data"] == round((text + data) / 1_105_394, 4)
    assert images["4-none"]["reference"] is None  # the reference image is an IREE image

    assert images["16-iree"]["status"] == "missing"
    assert images["16-iree"]["reason"] == "image not built: missing.elf"
    assert images["16-none"]["status"] == "error"
    assert str(tmp_path) not in images["16-none"]["reason"]

    md = markdown(table)
    assert f"| N=4 IREE | {text + data:,} | 1,105,394 |" in md
    assert "| `.text` | code |" in md and "| `.bss` | data |" in md
    assert "image not built: missing.elf" in md
    assert "not a valid ELF" in md


# --------------------------------------------------------------------------- per-call columns


def profile_doc(size: int, soft_float_calls: int) -> dict[str, Any]:
    from ireerv.profile import report

    phase = {"name": "call 1", "total": 100, "measured": 100, "instructions": 80,
             "soft_float_calls": soft_float_calls,
             "components": [{"name": "libgcc soft-float", "self": 60, "percent": 60.0},
                            {"name": "kernel", "self": 30, "percent": 30.0},
                            {"name": "bsp", "self": 6, "percent": 6.0},
                            {"name": "libc", "self": 4, "percent": 4.0}],
             "functions": [{"name": "f", "component": "kernel", "self": 100,
                            "inclusive": 100, "calls": 1}],
             "stacks": [{"frames": ["f"], "cost": 100}]}  # fmt: skip
    return report.document({"model": "matmul", "board": "cluster4", "size": size,
                            "runtime": "iree", "unit": "cycles", "source": "test",
                            "elf": "image.elf"}, [phase])  # fmt: skip


def test_per_call_columns() -> None:
    from ireerv.bench import calls as bench_calls

    table = bench_calls.attach(collect(FULL, []), [profile_doc(4, 128), profile_doc(16, 9000)])
    by_size = {c["size"]: c for c in table["calls"]}
    assert by_size[4]["overhead"] == 1_650_000 - 70_000
    assert (by_size[4]["soft_float_calls"], by_size[4]["soft_float_needed"]) == (128, 128)
    assert by_size[4]["top_components"] == [["libgcc soft-float", 60], ["kernel", 30],
                                            ["bsp", 6]]
    assert by_size[32]["soft_float_calls"] is None and by_size[32]["top_components"] == []
    text = markdown(table)
    assert "| 4×4 | 1,650,000 | 70,000 | 1,580,000 | 128 | 128 | libgcc soft-float 60" in text
    assert "| 32×32 | 25,000,000 | 31,000,000 | -6,000,000 | — | 65,536 | — |" in text
    broken = profile_doc(16, 1)
    broken["phases"][0]["total"] = 7  # does not add up: ignored, not trusted
    assert bench_calls.attach(collect(FULL, []), [broken])["calls"][1]["soft_float_calls"] is None
