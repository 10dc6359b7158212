"""scons tune for real: qmatmul64 on the cluster model (budget 2), the next build using its
tuning file, and the same tune on a Dask cluster of two workers on 127.0.0.1 writing
the same bytes."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from conftest import need_module, require_input
from scons_helpers import scons

from ireerv.inputs.fetch import Fetcher
from ireerv.paths import PROJECT_ROOT
from ireerv.tune import schedule
from ireerv.tune.measure import Round

NEEDS_INPUTS = ("toolchain",)
TUNE = ("tune", "MODEL=qmatmul64", "BOARD=cluster4", "BUDGET=2")


@pytest.mark.cluster
@pytest.mark.upstream
def test_a_tune_is_used_and_the_same_on_a_dask_cluster(tree: Path, fetcher: Fetcher,
                                                       tmp_path: Path) -> None:
    for needed in ("iree", "flatcc", "iree-compiler", "cluster-tb", "cv32e40p", "verilator"):
        require_input(fetcher, needed)
    folder = tree / "models/qmatmul64/tuning"
    out = scons(tree, *TUNE).stdout
    assert "tune: models/qmatmul64/tuning/cluster4.json" in out, out
    doc = json.loads((folder / "cluster4.json").read_text())
    assert [len(row["candidates"]) for row in doc["dispatches"]] == [2]
    local = {p.name: p.read_bytes() for p in sorted(folder.iterdir())}
    # The simulator is exact, so the tune is too: qmatmul64's first two candidates hold
    # a winner, which later builds compile with.
    assert (folder / "cluster4.mlir").is_file() and doc["tuned"] < doc["untuned"], doc
    # As the tune measures: the later call, harts as default.
    run = scons(tree, "run", "MODEL=qmatmul64", "BOARD=cluster4", "REPEAT=2").stdout
    later = re.search(r"calls [\d,]+, ([\d,]+)\n", run)
    assert later, run
    # The traced call's phase (the tune's figure) ends a few dozen cycles after the
    # runner's own count when harts share it (untuned: 802,398 against 802,340).
    assert 0 <= doc["tuned"] - int(later[1].replace(",", "")) <= 200, run
    assert "PASS" in run

    need_module("distributed")
    from distributed import LocalCluster

    shutil.rmtree(folder)
    (tree / "build/tune/qmatmul64-cluster4/rounds.json").unlink()  # measured again, there
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        out = scons(tree, *TUNE, f"TUNE_SCHEDULER={cluster.scheduler_address}").stdout
    assert "tune: candidates run on the Dask cluster at tcp://127.0.0.1:" in out, out
    assert {p.name: p.read_bytes() for p in sorted(folder.iterdir())} == local


def test_bad_tune_requests_are_one_clear_error(tree: Path) -> None:
    (tree / "build/tune/qmatmul64-cluster4/rounds.json").unlink(missing_ok=True)  # measure
    out = scons(tree, *TUNE, "TUNE_SCHEDULER=tcp://127.0.0.1:9", check=False)
    assert out.returncode != 0
    assert "TUNE_SCHEDULER=tcp://127.0.0.1:9: no scheduler answers" in out.stdout + out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    bad = scons(tree, *TUNE, "TUNE_SCHEDULER=localhost", check=False)
    assert "give a Dask scheduler's address, tcp://<host>:<port>" in bad.stdout + bad.stderr
    path = scons(tree, "tune", "MODEL=models/qmatmul64/model.mlir", check=False)  # a file
    assert path.returncode != 0 and "is a single file: a tune is kept in its model's folder" \
        in path.stdout + path.stderr


def _dies_once(digest: str, archive: bytes, round_data: dict, build_cache: str) -> dict:
    """A round that kills its worker process the first time any worker runs one."""
    marker = Path(build_cache) / "died"
    if not marker.exists():
        marker.write_text("")
        os._exit(1)
    return {"passed": True, "cycles": {}, "total": len(round_data["spec"]), "detail": ""}


def test_a_worker_that_dies_loses_only_its_round(tmp_path: Path) -> None:
    need_module("distributed")
    import cloudpickle
    from distributed import LocalCluster

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers lack tests/
    rounds = [Round(f"round {n}", "m", "b", "x" * n, "models/m/tuning/b.mlir",
                    "build/b/m/profile.json") for n in range(1, 5)]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        runner = schedule.DaskRunner(cluster.scheduler_address, PROJECT_ROOT, tmp_path,
                                     _dies_once)
        results = dict(runner(rounds))
    assert (tmp_path / "died").exists()  # a worker died mid-round ...
    assert sorted(r.total for r in results.values()) == [1, 2, 3, 4]  # ... and every round ran
    assert all(r.passed for r in results.values())
