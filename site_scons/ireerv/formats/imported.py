"""What imported models (ONNX, TFLite, importers' MLIR) share: where their MLIR goes, and
the model.toml settings every one of them may give."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

from ireerv.formats.base import ModelError, read_text
from ireerv.formats.schema import _Place, placement
from ireerv.paths import PROJECT_ROOT

INPUT_KEYS = ("generator",)  # what [[inputs]] may say of an imported model's input

# The comparison with ONNX Runtime for f32 outputs: |got - want| <= ATOL + RTOL * |want|.
# The device computes in soft float with its own order of operations and its own
# exp(); ONNX Runtime uses the host's vector units: equal results are not expected.
DEFAULT_ATOL = 1e-4
DEFAULT_RTOL = 1e-3


def imported_mlir(name: str) -> Path:
    """Where the importer's MLIR for model `name` goes in the build tree."""
    return PROJECT_ROOT / "build" / "imported" / name / "model.mlir"


def _tolerance(top: _Place, data: dict[str, Any], key: str, default: float) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not value >= 0:
        raise top.error(key, f"must be a finite number >= 0, not {value!r}")
    return float(value)


def read_toml(toml: Path) -> dict[str, Any]:
    """model.toml beside an imported file, or {} when there is none."""
    if not toml.is_file():
        return {}
    try:
        return tomllib.loads(read_text(toml))
    except tomllib.TOMLDecodeError as err:
        raise ModelError(f"{toml}: {err}") from None


def imported_settings(toml: Path, data: dict[str, Any], top_keys: tuple[str, ...]
                      ) -> dict[str, Any]:
    """What every imported model's model.toml may set (ONNX and TFLite alike), checked."""
    top = _Place(toml, "top level")
    top.check_keys(data, top_keys)
    given = data.get("inputs", [])
    if not isinstance(given, list) or not all(isinstance(i, dict) for i in given):
        raise top.error("inputs", "must be an array of tables, written [[inputs]]")
    for index, item in enumerate(given):
        _Place(toml, f"[[inputs]] {index}").check_keys(item, INPUT_KEYS)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise top.error("description", f"must be a string, not {description!r}")
    return {"inputs": given, "description": description,
            "tolerance": _tolerance(top, data, "tolerance", DEFAULT_ATOL),
            "rtol": _tolerance(top, data, "rtol", DEFAULT_RTOL),
            "placement": placement(top, data)}
