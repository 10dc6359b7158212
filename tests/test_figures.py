"""The published figures guarded: representative rows of docs/figures/*.json measured
again and compared exactly.  The simulators are deterministic, so any difference is a
regression or a new figure, to be committed with `scons docs-figures`; a failure says per
row what moved and by how much.  Runs are shared with other modules (shared_runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import require_input
from shared_runs import SharedRuns

from ireerv.bench.table import startup_cycles
from ireerv.inputs.fetch import Fetcher
from ireerv.paths import PROJECT_ROOT
from ireerv.run.record import later_call
from ireerv.size.analysis import analyze

CLUSTER = ("cluster-tb", "cv32e40p", "verilator")
NEEDS = ("toolchain", "iree", "flatcc", "iree-compiler", *CLUSTER)
FIGURES = PROJECT_ROOT / "docs" / "figures"
# What a figure counts on each board.
UNITS = {"cluster4": "cycles", "qemu-virt": "instructions"}


def published(name: str) -> dict:
    return json.loads((FIGURES / f"{name}.json").read_text())


def moved(row: str, pairs: list[tuple[str, int | float | None, int | float | None]]) -> str:
    """One line per figure that differs: published -> measured, by how much."""
    lines = []
    for what, was, now in pairs:
        if was == now:
            continue
        if isinstance(was, int | float) and isinstance(now, int | float) and was:
            change = f" ({now - was:+,}, {100 * (now - was) / was:+.3g} %)"
            was, now = f"{was:,}", f"{now:,}"
        else:
            change = ""
        lines.append(f"{row}: {what} {was} -> {now}{change}")
    return "\n".join(lines)


def check(row: str, pairs: list[tuple[str, int | float | None, int | float | None]]) -> None:
    text = moved(row, pairs)
    assert not text, (f"published figures moved (docs/figures):\n{text}\n"
                      "a regression, or a new figure to commit with `scons docs-figures`")


def code_and_data(folder: Path) -> int:
    return analyze(folder / "image.elf", None, top=0).to_json()["totals"]["code"]


def needs(fetcher: Fetcher, *names: str) -> None:
    for name in (*NEEDS, *names):
        if name == "toolchain":
            fetcher.toolchain()
        else:
            require_input(fetcher, name)


def test_moved_says_what_moved_and_by_how_much() -> None:
    assert moved("kws on cluster4", [("later call", 7_778_235, 7_778_235)]) == ""
    assert moved("kws on cluster4", [("later call", 7_778_235, 7_778_529)]) == \
        "kws on cluster4: later call 7,778,235 -> 7,778,529 (+294, +0.00378 %)"
    assert moved("mul+add", [("cycles", 102.2, None)]) == "mul+add: cycles 102.2 -> None"


@pytest.mark.upstream
@pytest.mark.cluster
@pytest.mark.parametrize("size", [4, 32])
def test_matmul_figures(shared_runs: SharedRuns, fetcher: Fetcher, size: int) -> None:
    needs(fetcher)
    bench = published("bench")
    cells = next(r for r in bench["rows"] if r["size"] == size)["cells"]
    run = shared_runs.run("MODEL=matmul", f"SIZE={size}", "BOARD=cluster4")
    pairs = [("later call", cells["later_call"]["ours"], later_call(run.record))]
    if size == 4:
        image = next(i for i in bench["images"] if i["key"] == f"{size}-iree")
        pairs += [("start-up", cells["startup"]["ours"], startup_cycles(run.record)),
                  ("code and data bytes", image["code_and_data"], code_and_data(run.folder))]
    check(f"matmul {size}x{size} on cluster4", pairs)


def _model_row(model: str, board: str) -> dict:
    return next(r for r in published("models")["rows"]
                if r["model"] == model and r["board"] == board)


@pytest.mark.upstream
@pytest.mark.cluster
@pytest.mark.parametrize("model", ["kws", "ad"])
def test_network_figures(shared_runs: SharedRuns, fetcher: Fetcher, model: str) -> None:
    needs(fetcher, "mlperf-tiny")
    row = _model_row(model, "cluster4")
    run = shared_runs.run(f"MODEL={model}", "BOARD=cluster4")
    check(f"{model} on cluster4", [
        ("inference", row["inference"], later_call(run.record)),
        ("start-up", row["startup"], startup_cycles(run.record)),
        ("code and data bytes", row["code_and_data"], code_and_data(run.folder))])


@pytest.mark.upstream
@pytest.mark.cluster
@pytest.mark.parametrize("harts", ["1", "2", "4"])
def test_harts_figures_of_kws(shared_runs: SharedRuns, fetcher: Fetcher, harts: str) -> None:
    """The harts table's kws row (its auto cell is the models row above)."""
    needs(fetcher, "mlperf-tiny")
    row = next(r for r in published("harts")["rows"] if r.get("model") == "kws")
    run = shared_runs.run("MODEL=kws", "BOARD=cluster4", f"HARTS={harts}")
    check(f"kws on cluster4, HARTS={harts}",
          [("later call", row["cells"][harts]["cycles"], later_call(run.record))])


@pytest.mark.upstream
@pytest.mark.cluster
def test_softfloat_figures(shared_runs: SharedRuns, fetcher: Fetcher) -> None:
    needs(fetcher)
    shared_runs.once("softfloat-bench")
    measured = json.loads((shared_runs.tree / "build/bench/softfloat.json").read_text())
    expected = published("softfloat")
    check("soft-float multiply + add (rvfplib)",
          [(f"{UNITS[b]} on {b}", _madd(expected, b), _madd(measured, b)) for b in UNITS])


def _madd(table: dict, board: str) -> float:
    return table["per_call"][board]["rvfplib"]["normal"]["madd"]
