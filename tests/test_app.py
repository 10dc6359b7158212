"""Applications (APP=): the folder's sources with the BSP and the ireerv runtime in place
of the runner; kws and ad in one image give their runner images' outputs, bit for bit."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_qemu, require_input
from scons_helpers import scons
from shared_runs import SharedRuns

from ireerv import formats
from ireerv.image.model_build import ModelBuild
from ireerv.inputs.fetch import Fetcher
from ireerv.library import app

NEEDS_INPUTS = ("iree",)  # for the `tree` fixture (conftest.py)
TWO_MODELS = Path(__file__).parent / "data" / "two_models_app"
SHARED_RAM = Path(__file__).parent / "data" / "shared_ram_app"  # ad and qmatmul
WORKERS = Path(__file__).parent / "data" / "workers_app"


def test_app_toml_lists_the_models(tmp_path: Path) -> None:
    assert app.load(TWO_MODELS, "matmul").models == ("kws", "ad")
    (tmp_path / "main.c").write_text("int main(void) { return 0; }\n")
    assert app.load(tmp_path, "mlp").models == ("mlp",)  # no app.toml: MODEL


@pytest.mark.parametrize(("toml", "message"), [
    ('model = ["kws"]\n', "unknown key(s) model; known: models"),
    ("models = []\n", "models must be a list of model names"),
    ('models = ["kws", "kws"]\n', "a model is listed twice"),
    ("models = [\n", "app.toml"),
])
def test_bad_app_toml_is_one_clear_error(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / "main.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "app.toml").write_text(toml)
    with pytest.raises(app.AppError, match=re.escape(message)):
        app.load(tmp_path, "kws")


def test_a_folder_without_sources_is_refused(tmp_path: Path) -> None:
    with pytest.raises(app.AppError, match=r"no C sources"):
        app.load(tmp_path, "kws")
    with pytest.raises(app.AppError, match=r"no such folder"):
        app.load(tmp_path / "nothing", "kws")


def _runner(tree: Path, tmp_path: Path, model: str, *samples: np.ndarray) -> list[int]:
    names = []
    for i, sample in enumerate(samples):
        names.append(f"{tmp_path}/{model}{i}.npy")
        np.save(names[-1], sample)
    out = scons(tree, "run", f"MODEL={model}", "BOARD=qemu-virt", f"INPUT={','.join(names)}",
                f"OUTPUT={tmp_path}/{model}.npz").stdout
    assert "PASS:" in out, out[-2000:]
    with np.load(tmp_path / f"{model}.npz") as data:
        return [int(v) for name in data.files for v in data[name].reshape(-1)]


def _printed(out: str) -> dict[str, list[int]]:
    return {m: [int(v) for v in values.split()]
            for m, values in re.findall(r"^(\w+):((?: -?\d+)+)$", out, re.M)}


def _pattern(count: int, step: int) -> np.ndarray:
    """The applications' inputs: element i is i * step, wrapped to int8."""
    return (np.arange(count) * step % 256).astype(np.uint8).view(np.int8)


def _same_as_the_runners(tree: Path, tmp_path: Path, out: str) -> None:
    """The application's printed outputs are the runner images' for the same inputs."""
    got = _printed(out)
    assert got["kws"] == _runner(tree, tmp_path, "kws", _pattern(490, 7).reshape(1, 49, 10, 1))
    assert got["ad"] == _runner(tree, tmp_path, "ad", _pattern(640, 3).reshape(1, 640))


@pytest.mark.upstream
@needs_qemu
def test_kws_and_ad_in_one_application(tree: Path, tmp_path: Path, fetcher) -> None:
    require_input(fetcher, "mlperf-tiny")
    out = scons(tree, "run", f"APP={TWO_MODELS}", "BOARD=qemu-virt").stdout
    assert "PASS: the application's main returned 0" in out, out[-3000:]
    _same_as_the_runners(tree, tmp_path, out)
    size = scons(tree, "size-report", f"APP={TWO_MODELS}", "BOARD=qemu-virt").stdout
    assert "app-two_models_app" in size or "image.elf" in size, size[-2000:]
    again = scons(tree, "image", f"APP={TWO_MODELS}", "BOARD=qemu-virt").stdout
    assert "LINK" not in again and "CC " not in again  # a no-op rebuild does nothing


@pytest.mark.upstream
@pytest.mark.cluster
def test_two_models_in_one_application_in_shared_ram_on_the_cluster(tree: Path, tmp_path: Path,
                                                                   fetcher) -> None:
    """On cluster4 with PLACEMENT=shared (hart 0 alone, all data in shared RAM, where ad's
    weights fit without the runner's staging), ad and the int8 matmul qmatmul in one image
    give the runner images' outputs.  Not kws: a call of it in shared RAM takes over a
    minute on the simulator, and the library's arena probe makes three."""
    require_input(fetcher, "mlperf-tiny")
    out = scons(tree, "run", f"APP={SHARED_RAM}", "BOARD=cluster4", "PLACEMENT=shared").stdout
    assert "PASS: the application's main returned 0" in out, out[-3000:]
    got = _printed(out)
    assert got["ad"] == _runner(tree, tmp_path, "ad", _pattern(640, 3).reshape(1, 640))
    assert got["qmatmul"] == _runner(tree, tmp_path, "qmatmul", _pattern(128, 5).reshape(8, 16),
                                     _pattern(192, 11).reshape(16, 12))


def _input_header(sample: np.ndarray) -> str:
    values = ", ".join(str(int(v)) for v in sample.reshape(-1))
    return f"static const int8_t kws_input[KWS_INPUT0_BYTES] = {{{values}}};\n"


def _output0(out: str) -> list[int]:
    found = re.search(r"^OUTPUT 0(?: \S+ \S+)?:((?: -?\d+)+)$", out, re.M)
    assert found, out[-2000:]
    return [int(v) for v in found.group(1).split()]


def _later_call(out: str) -> int:
    return int(re.findall(r"^CYCLES call \d+ (\d+)$", out, re.M)[-1])


@pytest.mark.upstream
@pytest.mark.cluster
def test_workers_share_kws_as_harts_auto_does(shared_runs: SharedRuns, fetcher: Fetcher,
                                              tmp_path: Path) -> None:
    """On cluster4, with harts 1..3 in ireerv_worker, kws through the API gives the
    runner's outputs with HARTS=auto (the board's default) bit for bit, and its later call
    takes the runner's cycles within 1 %.  Both images come from the session's one copy
    of the project, so the application reuses the runner's compiled model."""
    for needed in ("mlperf-tiny", "cluster-tb", "cv32e40p", "verilator"):
        require_input(fetcher, needed)
    runner = shared_runs.run("MODEL=kws", "BOARD=cluster4")
    sample = ModelBuild.of(formats.load_model("kws", fetcher.path), None).device_inputs()[0]
    folder = tmp_path / "workers_app"
    folder.mkdir()
    shutil.copy(WORKERS / "main.c", folder)
    (folder / "kws_input.h").write_text(_input_header(sample))
    out = shared_runs.once("run", f"APP={folder}", "MODEL=kws", "BOARD=cluster4")
    assert "PASS: the application's main returned 0" in out, out[-3000:]
    assert _output0(out) == _output0(runner.stdout)
    ours, theirs = _later_call(out), runner.record["call_cycles"][-1]
    assert abs(ours - theirs) <= theirs / 100, (ours, theirs)
