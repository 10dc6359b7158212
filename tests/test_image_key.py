"""One image key: the build folder, the release folder, release-check's arguments, the
manifest's configuration and the digests' reference check all come from it."""

from __future__ import annotations

import pytest

from ireerv import paths
from ireerv.boards import load_board
from ireerv.formats import load_model
from ireerv.image import key as image_key
from ireerv.image import layout
from ireerv.image.key import ImageKey, Setting
from ireerv.image.model_build import ModelBuild

MATMUL = load_model("matmul")
MLP = load_model("mlp")


def _key(model=MATMUL, runtime: str = "iree", harts: int | str | None = None,
         board: str = "cluster4", placement: str = "default", **env: str) -> ImageKey:
    """None: the board's default HARTS (cluster4: auto for IREE images, 1 for plain C)."""
    spec = load_board(board).with_placement(placement)
    if harts is None:
        harts = image_key.default_harts(spec, runtime)
    return layout.image_key(env, spec, ModelBuild.of(model, None), runtime, harts)


@pytest.mark.parametrize(("env", "runtime", "harts", "folder"), [
    ({}, "iree", None, "matmul-4"),
    ({}, "none", None, "matmul-4-c"),
    ({"SOFTFLOAT": "libgcc"}, "iree", None, "matmul-4-libgcc"),
    ({"TOOLCHAIN_KIND": "source"}, "iree", None, "matmul-4-source"),
    ({}, "iree", 4, "matmul-4-h4"),
    ({}, "iree", 1, "matmul-4-h1"),  # one hart where the board's default is auto
    ({"SHAPES": "dynamic"}, "iree", None, "matmul-4-dynamic"),
    ({"SHAPES": "dynamic"}, "none", None, "matmul-4-c"),  # the C loop has no dynamic form
    ({"PROFILE": "debug"}, "iree", None, "matmul-4-debug"),
    ({"REPEAT": "5"}, "iree", None, "matmul-4-r5"),
    ({"SOFTFLOAT": "libgcc", "TOOLCHAIN_KIND": "source"}, "none", 2, "matmul-4-c-libgcc-source-h2"),
])
def test_build_folders(env: dict, runtime: str, harts: int | None, folder: str) -> None:
    key = _key(runtime=runtime, harts=harts, **env)
    assert key.build_dir() == f"{paths.BUILD}/cluster4/{folder}"
    assert key.release_name("v1") == f"{folder}-cluster4-v1"


def test_shapes_count_only_for_dynamic_models() -> None:
    assert _key(MLP, SHAPES="dynamic").folder_name == "mlp"
    assert _key(MLP, SHAPES="dynamic").is_reference() is False  # MODEL=mlp
    assert _key(MLP, SHAPES="dynamic").reference_differences() == ["MODEL=mlp"]


def test_placement_names_both_folders() -> None:
    key = _key(board="cluster4", placement="large")
    assert key.build_dir() == f"{paths.BUILD}/cluster4.large/matmul-4"
    assert key.release_name("v1") == "matmul-4-cluster4.large-v1"
    assert "PLACEMENT=large" in key.scons_args()
    assert key.reference_differences() == ["PLACEMENT=large"]


@pytest.mark.parametrize(("env", "harts", "differs"), [
    ({"SOFTFLOAT": "libgcc"}, None, "SOFTFLOAT=libgcc"),
    ({}, 4, "HARTS=4"),
    ({}, 1, "HARTS=1"),
    ({"SHAPES": "dynamic"}, None, "SHAPES=dynamic"),
    ({"PROFILE": "debug"}, None, "PROFILE=debug"),
    ({"REPEAT": "5"}, None, "REPEAT=5"),
])
def test_every_setting_reaches_all_five(env: dict, harts: int | None, differs: str) -> None:
    key, default = _key(harts=harts, **env), _key()
    name, value = differs.split("=")
    assert key.build_dir() != default.build_dir()
    assert key.release_name("v") != default.release_name("v")
    assert differs in key.scons_args()
    assert key.config()[name] == value
    assert key.reference_differences() == [differs]


def test_the_toolchain_has_its_own_digest_table() -> None:
    key = _key(TOOLCHAIN_KIND="source")
    assert key.is_reference() and "TOOLCHAIN=source" in key.scons_args()
    assert key.release_name("v") != _key().release_name("v")


def test_the_default_is_the_reference_release() -> None:
    key = _key()
    assert key.is_reference()
    assert key.scons_args() == [
        "MODEL=matmul", "BOARD=cluster4", "PLACEMENT=default", "SIZE=4", "RUNTIME=iree",
        f"SOFTFLOAT={image_key.setting('SOFTFLOAT').default}", "TOOLCHAIN=debian", "HARTS=auto",
        "SHAPES=static", "HAL=inline", "PROFILE=release", "REPEAT=2", "TUNING=model",
        "QUANTIZE=model"]


def test_a_new_setting_needs_only_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A variable added to SETTINGS shows up in all five without touching them."""
    monkeypatch.setattr(image_key, "SETTINGS",
                        (*image_key.SETTINGS, Setting("FOO", "a", lambda v: f"-foo{v}")))
    plain, other = _key(), _key(FOO="b")
    assert plain.build_dir().endswith("/matmul-4") and plain.is_reference()
    assert other.build_dir().endswith("/matmul-4-foob")
    assert other.release_name("v") == "matmul-4-foob-cluster4-v"
    assert "FOO=b" in other.scons_args() and "FOO=a" in plain.scons_args()
    assert other.config()["FOO"] == "b"
    assert other.reference_differences() == ["FOO=b"]


def test_model_paths_rebuild_from_another_folder(tmp_path, monkeypatch) -> None:
    """release-check rebuilds in a fresh checkout: a relative MODEL path must still work."""
    outside = tmp_path / "mine"
    outside.mkdir()
    monkeypatch.chdir(tmp_path)
    assert image_key._portable_model("mine") == str(outside)
    assert image_key._portable_model("matmul") == "matmul"
    inside = paths.PROJECT_ROOT / "models" / "mlp"
    assert image_key._portable_model(str(inside)) == "models/mlp"
