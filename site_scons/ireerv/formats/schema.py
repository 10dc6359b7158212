"""The declared schema of `model.toml`, and its validation.

Every key is known: an unknown one (a typo such as `tolerence`) is an error that
suggests the nearest known key, so a misspelt setting never silently falls back
to a default.  Each message names the file, the table and the key.
"""

from __future__ import annotations

import difflib
import math
import re
from pathlib import Path
from typing import Any

from ireerv.boards import BoardError, list_boards, load_board

# MLIR element type -> NumPy dtype: what the runner and the bare-metal runtime handle.
ELEMENT_TYPES: dict[str, str] = {
    "f32": "float32",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
}
# What iree-compile demotes by default (--iree-input-demote-f64-to-f32): the model
# declares the first, the compiled program takes and gives the second.  Inputs are
# made as the model declares them and passed converted; outputs are compared as the
# program gives them.
DEMOTED: dict[str, str] = {"f64": "f32"}
MODEL_TYPES: dict[str, str] = {**ELEMENT_TYPES, "f64": "float64"}
# The signed integer types' widths: their ranges, without importing NumPy to load a model.
_SIGNED_BITS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}

TOP_KEYS = ("description", "function", "sizes", "tolerance", "placement", "inputs")
INPUT_KEYS = ("shape", "dtype", "generator")
GENERATOR_KEYS = {"randint": ("kind", "low", "high", "seed"), "values": ("kind", "values")}
RANDINT_DEFAULTS = {"low": -4, "high": 5, "seed": 0}


class SchemaError(Exception):
    """model.toml does not follow the schema; the message names file, table and key."""


class _Place:
    def __init__(self, path: Path, table: str) -> None:
        self.path, self.table = path, table

    def error(self, key: str | None, msg: str) -> SchemaError:
        where = f"{self.table}" + (f", key '{key}'" if key else "")
        return SchemaError(f"{self.path}: {where}: {msg}")

    def check_keys(self, data: dict[str, Any], known: tuple[str, ...]) -> None:
        for key in data:
            if key not in known:
                near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
                hint = f"did you mean '{near[0]}'?" if near else f"known keys: {', '.join(known)}"
                raise self.error(key, f"unknown key; {hint}")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """The checked, completed description: every default filled in."""
    top = _Place(path, "top level")
    top.check_keys(data, TOP_KEYS)
    function = data.get("function")
    if not isinstance(function, str) or not function:
        raise top.error("function", "required: the name of the entry function in model.mlir")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise top.error("description", f"must be a string, not {description!r}")
    tolerance = data.get("tolerance", 0.0)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) \
            or not math.isfinite(tolerance) or tolerance < 0:
        raise top.error("tolerance", f"must be a number >= 0 (an absolute difference allowed "
                                     f"in float outputs), not {tolerance!r}")
    sizes = data.get("sizes", [])
    if not isinstance(sizes, list) or not all(_whole(s) and s > 0 for s in sizes):
        raise top.error("sizes", f"must be a list of positive whole numbers (the values of the "
                                 f"symbolic dimensions), not {sizes!r}")
    inputs = data.get("inputs")
    if inputs is None:
        raise top.error("inputs", "required: one [[inputs]] table per argument of "
                                  f"@{function}")
    if not isinstance(inputs, list) or not all(isinstance(i, dict) for i in inputs):
        raise top.error("inputs", "must be an array of tables, written [[inputs]] (double "
                                  "brackets), one per argument")
    checked = [_input(path, index, item) for index, item in enumerate(inputs)]
    if any(isinstance(d, str) for item in checked for d in item["shape"]) and not sizes:
        raise top.error("sizes", "required: the shapes name a symbolic dimension, so give "
                                 "the values it takes, e.g. sizes = [4, 16]")
    return {"function": function, "description": description, "tolerance": float(tolerance),
            "sizes": sizes, "inputs": checked, "placement": placement(top, data)}


def placement(top: _Place, data: dict[str, Any]) -> str | dict[str, str]:
    """`placement`: the board placement the model asks for (a board that has no such
    placement holds it in its default one), or a table of them by board name; "" for the
    default."""
    value = data.get("placement", "")
    if isinstance(value, dict):
        return {board: _board_placement(top, board, name) for board, name in value.items()}
    return _placement_name(top, "placement", value)


def _board_placement(top: _Place, board: str, name: Any) -> str:
    """One entry of a `placement` table: a board there is, a placement it has."""
    try:
        known = list_boards()
        if board not in known:
            raise top.error("placement", f"no board is called {board!r}; boards: "
                                         f"{', '.join(known)}")
        name = _placement_name(top, f"placement.{board}", name)
        if name and name not in load_board(board).placements:
            raise top.error(f"placement.{board}", f"board {board} has no placement {name!r}")
    except BoardError as err:
        raise SchemaError(str(err)) from None
    return name


def _placement_name(top: _Place, key: str, value: Any) -> str:
    if not isinstance(value, str) or (value and not re.fullmatch(r"[a-z][a-z0-9_]*", value)):
        raise top.error(key, f"must be the name of a board placement such as \"large\" (or "
                             f"a table of them by board), not {value!r}")
    if not value:
        return value
    try:
        known = placement_names()
    except BoardError as err:
        raise SchemaError(str(err)) from None
    if value not in known:
        near = difflib.get_close_matches(value, known, n=1, cutoff=0.6)
        hint = f"did you mean {near[0]!r}?" if near else f"placements: {', '.join(known)}"
        raise top.error(key, f"no board has a placement {value!r}; {hint}")
    return value


def placement_names() -> list[str]:
    """Every placement some board has, besides its default."""
    return sorted({name for board in list_boards() for name in load_board(board).placements})


def _input(path: Path, index: int, item: dict[str, Any]) -> dict[str, Any]:
    place = _Place(path, f"[[inputs]] {index}")
    place.check_keys(item, INPUT_KEYS)
    if "shape" not in item:
        raise place.error("shape", "required: a list of dimensions, e.g. shape = [4, 4] "
                                   "or [\"N\", \"N\"]")
    shape = item["shape"]
    if not isinstance(shape, list) or not all(
            (_whole(d) and d > 0) or (isinstance(d, str) and d.isidentifier()) for d in shape):
        raise place.error("shape", f"must list positive whole numbers or symbolic names such "
                                   f"as \"N\", not {shape!r}")
    dtype = item.get("dtype")
    if dtype not in ELEMENT_TYPES:
        raise place.error("dtype", f"must be one of {', '.join(ELEMENT_TYPES)}, not {dtype!r}")
    generator = _generator(path, index, item.get("generator", {}), tuple(shape), dtype)
    return {"shape": tuple(shape), "dtype": dtype, "generator": generator}


def _generator(path: Path, index: int, gen: Any, shape: tuple, dtype: str) -> dict[str, Any]:
    place = _Place(path, f"[[inputs]] {index}, generator")
    if not isinstance(gen, dict):
        raise place.error(None, f"must be a table such as {{ kind = \"randint\", low = -4, "
                                f"high = 5, seed = 1 }}, not {gen!r}")
    kind = gen.get("kind", "randint")
    if kind not in GENERATOR_KEYS:
        raise place.error("kind", f"unknown generator {kind!r}; use "
                                  f"{' or '.join(repr(k) for k in GENERATOR_KEYS)}")
    place.check_keys(gen, GENERATOR_KEYS[kind])
    if kind == "values":
        values = gen.get("values")
        if not isinstance(values, list) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise place.error("values", "required: a flat list of numbers, one per element")
        if all(_whole(d) for d in shape) and len(values) != math.prod(shape):
            raise place.error("values", f"gives {len(values)} values, but shape "
                                        f"{list(shape)} has {math.prod(shape)} elements")
        return {"kind": kind, "values": values}
    out = {"kind": kind, **RANDINT_DEFAULTS}
    for key in ("low", "high", "seed"):
        value = gen.get(key, out[key])
        if not _whole(value):
            raise place.error(key, f"must be a whole number, not {value!r}")
        out[key] = value
    if out["seed"] < 0:
        raise place.error("seed", f"must be >= 0, not {out['seed']}")
    if out["low"] >= out["high"]:
        raise place.error("high", f"must be greater than low ({out['low']}): values are drawn "
                                  f"from low to high - 1, not {out['high']}")
    bits = _SIGNED_BITS.get(MODEL_TYPES[dtype])
    if bits:
        least, most = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        if out["low"] < least or out["high"] - 1 > most:
            raise place.error("low", f"{out['low']}..{out['high'] - 1} does not fit {dtype} "
                                     f"({least}..{most})")
    return out
