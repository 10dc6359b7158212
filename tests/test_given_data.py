"""INPUT= and OUTPUT=: the user's own inputs, checked before anything is built, and the
outputs written by name and compared with the framework's for the same inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import needs_qemu, require_input
from scons_helpers import scons

from ireerv import formats
from ireerv.formats import given_data
from ireerv.formats.base import ModelError
from ireerv.image.key import ImageKey

NEEDS_INPUTS = ("iree",)  # for the `tree` fixture (conftest.py)


def _mlp_inputs(tmp_path: Path) -> list[Path]:
    model = formats.load_model("mlp")
    paths = []
    for index, array in enumerate(model.generate_inputs(None)):
        paths.append(tmp_path / f"x{index}.npy")
        np.save(paths[-1], array + 1)
    return paths


def test_npy_files_in_order_become_the_inputs(tmp_path: Path) -> None:
    model = formats.load_model("mlp")
    paths = _mlp_inputs(tmp_path)
    given = given_data.with_inputs(model, paths, None)
    for path, array in zip(paths, given.generate_inputs(None), strict=True):
        assert np.array_equal(np.load(path), array)
    assert not np.array_equal(given.generate_inputs(None)[0], model.generate_inputs(None)[0])


def test_one_npz_by_input_name(tmp_path: Path) -> None:
    model = formats.load_model("mlp")
    arrays = {f"input{i}": a * 2 for i, a in enumerate(model.generate_inputs(None))}
    np.savez(tmp_path / "x.npz", **dict(reversed(arrays.items())))
    given = given_data.with_inputs(model, [tmp_path / "x.npz"], None)
    assert all(np.array_equal(a, b) for a, b in
               zip(arrays.values(), given.generate_inputs(None), strict=True))


@pytest.mark.parametrize("problem", ["count", "shape", "dtype", "names", "not numpy"])
def test_wrong_inputs_are_refused_in_one_line(tmp_path: Path, problem: str) -> None:
    model = formats.load_model("mlp")
    paths = _mlp_inputs(tmp_path)
    if problem == "count":
        paths = paths[:2]
    elif problem == "shape":
        np.save(paths[1], np.zeros((16, 31), np.float32))
    elif problem == "dtype":
        np.save(paths[0], np.zeros((1, 16), np.float64))
    elif problem == "names":
        np.savez(tmp_path / "x.npz", x=np.zeros(3))
        paths = [tmp_path / "x.npz"]
    else:
        paths[2].write_text("32 floats\n")
    with pytest.raises(ModelError) as err:
        given_data.with_inputs(model, paths, None)
    message = str(err.value)
    assert "\n" not in message and "INPUT" in message
    if problem != "not numpy":
        assert ("model mlp takes 5 inputs: input0 float32 [1,16], input1 float32 [16,32], "
                "input2 float32 [32]") in message


def _key(**values: str) -> ImageKey:
    return ImageKey.of(model="mlp", variant="mlp", board="qemu-virt", placement="default",
                       size=None, default_size=None, values=values)


def test_the_input_files_are_part_of_the_image_key(tmp_path: Path) -> None:
    first, second = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(first, np.zeros(3, np.float32))
    np.save(second, np.ones(3, np.float32))
    plain, one, other = _key(), _key(INPUT=str(first)), _key(INPUT=str(second))
    assert len({plain.build_dir(), one.build_dir(), other.build_dir()}) == 3
    assert one.build_dir().endswith(f"/mlp-in{given_data.digest([first])}")
    assert "INPUT" not in plain.config() and not any("INPUT" in a for a in plain.scons_args())
    assert one.config()["INPUT"] == f"sha256:{given_data.digest([first])}"
    assert f"INPUT={first.resolve()}" in one.scons_args()
    assert not one.is_reference()


def test_outputs_are_written_by_name(tmp_path: Path) -> None:
    model = formats.load_model("mlp")
    out = tmp_path / "deep" / "y.npz"
    given_data.write_outputs(out, model, [np.arange(10, dtype=np.float32)])
    with np.load(out) as data:
        assert data.files == ["output0"] and data["output0"][3] == 3


@pytest.mark.upstream
@needs_qemu
def test_kws_round_trip_on_qemu(tree: Path, tmp_path: Path, fetcher) -> None:
    """The user's sample in, the image's outputs out: those LiteRT gives for that sample."""
    require_input(fetcher, "mlperf-tiny")
    sample = np.random.default_rng(65).integers(-128, 128, (1, 49, 10, 1)).astype(np.int8)
    np.savez(tmp_path / "sample.npz", input_1=sample)
    bad = scons(tree, "run", "MODEL=kws", "BOARD=qemu-virt", f"INPUT={tmp_path}/sample.npz,"
                f"{tmp_path}/sample.npz", check=False)
    assert bad.returncode != 0 and "model kws takes 1 input: input_1 int8 [1,49,10,1]" \
        in bad.stderr and "IREE " not in bad.stdout  # refused before anything is built
    out_file = tmp_path / "out.npz"
    out = scons(tree, "run", "MODEL=kws", "BOARD=qemu-virt", f"INPUT={tmp_path}/sample.npz",
                f"OUTPUT={out_file}").stdout
    assert "PASS:" in out and "match LiteRT" in out, out[-2000:]
    model = given_data.with_inputs(formats.load_model("kws"), [tmp_path / "sample.npz"], None)
    litert = formats.model_format(model.format).reference.compute(model, [sample], 600)
    with np.load(out_file) as data:
        assert data.files == ["Identity"]
        got = data["Identity"]
    assert got.dtype == np.int8 and got.shape == litert[0].shape
    assert np.abs(got.astype(int) - litert[0].astype(int)).max() <= 1  # the run's own rule
    again = scons(tree, "run", "MODEL=kws", "BOARD=qemu-virt",
                  f"INPUT={tmp_path}/sample.npz").stdout
    assert "IREE " not in again and "LINK" not in again  # the same file: the same image


@pytest.mark.upstream
@needs_qemu
def test_matmul_from_two_npy_files(tree: Path, tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    lhs, rhs = (rng.integers(-8, 8, (4, 4)).astype(np.float32) for _ in range(2))
    np.save(tmp_path / "lhs.npy", lhs)
    np.save(tmp_path / "rhs.npy", rhs)
    out = scons(tree, "run", "MODEL=matmul", "BOARD=qemu-virt",
                f"INPUT={tmp_path}/lhs.npy,{tmp_path}/rhs.npy", f"OUTPUT={tmp_path}/y.npz").stdout
    assert "PASS:" in out, out[-2000:]
    with np.load(tmp_path / "y.npz") as data:
        assert np.array_equal(data["output0"], lhs @ rhs)
