"""Which format a file or folder holds: light checks on names and text, so that finding a
model's format imports only that format's module (and none of NumPy, ONNX or TFLite for a
model that needs none of them)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

from ireerv.formats.base import read_text

# What only importers write: the torch dialect, IREE's util.func, a quoted entry name.
IMPORTER_MARKS = ("!torch.", "torch.operator", "util.func", 'func.func @"',
                  'func.func public @"')


def is_importer_mlir(text: str) -> bool:
    """True when the file needs the compiler to be read and lowering before iree-compile."""
    return any(mark in text for mark in IMPORTER_MARKS)


def has_tflite(folder: Path) -> bool:
    """Whether a model folder is a TFLite one: model.tflite, or [tflite] in model.toml."""
    if (folder / "model.tflite").is_file():
        return True
    toml = folder / "model.toml"
    try:
        return toml.is_file() and "tflite" in tomllib.loads(read_text(toml))
    except tomllib.TOMLDecodeError:
        return False


def mlir(path: Path) -> bool:
    """A folder with model.mlir, or a .mlir file as written by hand (not by an importer)."""
    if path.is_dir():
        return (path / "model.mlir").is_file()
    return path.suffix == ".mlir" and not is_importer_mlir(read_text(path))


def importer_mlir(path: Path) -> bool:
    return path.suffix == ".mlir" and path.is_file() and is_importer_mlir(read_text(path))


def has_onnx_table(folder: Path) -> bool:
    """Whether model.toml's [onnx] table names the file to write as ONNX (tflite_onnx.py)."""
    toml = folder / "model.toml"
    try:
        return toml.is_file() and "onnx" in tomllib.loads(read_text(toml))
    except tomllib.TOMLDecodeError:
        return False


def onnx(path: Path) -> bool:
    return path.suffix == ".onnx" or (path.is_dir() and (
        (path / "model.onnx").is_file() or has_onnx_table(path)))


def tflite(path: Path) -> bool:
    return path.suffix == ".tflite" or (path.is_dir() and has_tflite(path))


# Each format's name and its claim (formats.FORMAT_MODULES names the module behind it).
CLAIMS: dict[str, Callable[[Path], bool]] = {
    "mlir": mlir,
    "importer-mlir": importer_mlir,
    "onnx": onnx,
    "tflite": tflite,
}
