"""Which bytes a board kernel's workgroups touch, for the harts' copies.

A board's own convolution kernels (bsp/cluster4-pulp/conv_sdotp.c, depthwise_q8.c,
brought in by the board's transform spec) are one entry point for every layer they
take: the layer's shapes reach them as push constants, and workgroup x computes output
row x (the depthwise kernel's: output rows [x * rows, x * rows + rows)).  IREE's
distribution does not show their ranges (hart_slices.py reads it), so without these a
hart that takes a share copies every binding whole (vww's arena: 94,464 bytes) and the
runtime keeps them on hart 0.

From iree-compile's executable sources each kernel parameter is a push constant or a
literal (IREE folds a value every call site shares); the rules below then give each
binding's range as a product of them (runner_slice_t's terms):
- the input: rows [x * sh, x * sh + kh) of iw * c bytes (the depthwise kernel's: `span`
  rows from x * rows * sh);
- the weights and the requantisation's columns: whole;
- the output: row x of ow * f elements (the depthwise kernel's: `rows` rows of ow * c),
  every byte written.
"""

from __future__ import annotations

import math
import re

from ireerv.harts.hart_local import ANY_COUNT, entry_bodies
from ireerv.harts.hart_slices import EntrySlices, Slice, index_constants, known_values

# The kernels' parameters, in order (the spec's `func.func private` declarations).
_PARAMETERS = {
    "ireerv_conv_s8": ("in", "in_offset", "w", "w_offset", "out", "out_offset", "iw", "c",
                       "ow", "f", "kh", "kw", "sh", "fill", "row"),
    "ireerv_conv_q8": ("in", "in_offset", "w", "w_offset", "t", "t_offset", "out",
                       "out_offset", "iw", "c", "ow", "f", "kh", "kw", "sh", "sw", "fill",
                       "row"),
    "ireerv_dw_q8": ("in", "in_offset", "w", "w_offset", "t", "t_offset", "out",
                     "out_offset", "iw", "c", "ow", "kh", "kw", "sh", "sw", "rows", "span",
                     "fill", "w_bytes", "row"),
}
_OUT_BYTES = {"ireerv_conv_s8": 4, "ireerv_conv_q8": 1, "ireerv_dw_q8": 1}
_COLUMNS = 6  # requant_q8.h's Q_COLUMNS: words of the table a filter
_DW_COLUMNS = 8  # depthwise_q8.c's DW_COLUMNS: the filter's 3 rows as words, the requantisation's 5

# buffer -> (literal factor, parameters multiplied) for the step of workgroup x and the
# length; `filled`: the workgroup writes all of it.
_RULES = {
    "in": ((1, ("sh", "iw", "c")), (1, ("kh", "iw", "c"))),
    "w": ((0, ()), (1, ("f", "kh", "kw", "c"))),
    "t": ((0, ()), (4 * _COLUMNS, ("f",))),
    "out": ((1, ("ow", "f")), (1, ("ow", "f"))),
}
# The depthwise kernel's outputs are its channels (f is c), its workgroup x is output
# rows [x * rows, x * rows + rows), which read `span` input rows, and its weights binding
# is `w_bytes` long (a word where the table holds the filters).
_DEPTHWISE_RULES = {
    "in": ((1, ("rows", "sh", "iw", "c")), (1, ("span", "iw", "c"))),
    "w": ((0, ()), (1, ("w_bytes",))),
    "t": ((0, ()), (4 * _DW_COLUMNS, ("c",))),
    "out": ((1, ("rows", "ow", "c")), (1, ("rows", "ow", "c"))),
}

_CALL = re.compile(r"\bcall @(" + "|".join(_PARAMETERS) + r")\(([^)]*)\)")
_SUBSPAN = re.compile(r"^\s*(%\w+) = hal\.interface\.binding\.subspan .*?\bbinding\((\d+)\)"
                      r".*?\boffset\((%[\w#]+)\).*:\s*memref<", re.M)
_EXPORT = re.compile(r"hal\.executable\.export public @([\w$.]+) [^\n]*\{\n(.*?)\n\s*\}", re.S)
_RETURN = re.compile(r"hal\.return %[\w#]+, (%\w+), (%\w+) :")
_METADATA = re.compile(r"^\s*(%\w+), (%\w+), %\w+, %\w+ = "
                       r"iree_codegen\.extract_strided_metadata (%\w+) :", re.M)


def _product(literal: int, names: tuple[str, ...], values: dict[str, tuple[int, int]],
             scale: int) -> tuple[int, tuple[int, ...]] | None:
    """literal * scale times the named parameters: (literal, push constants), or None
    when one is neither a literal nor a push constant."""
    known = [values.get(n) for n in names]
    if any(k is None or (k[1] >= 0 and k[0] != 0) for k in known):
        return None
    constants = tuple(k[1] for k in known if k[1] >= 0)
    return literal * scale * math.prod(k[0] for k in known if k[1] < 0), constants


def _entry(body: str) -> tuple[tuple[int, int], tuple[Slice, ...]] | None:
    """The masks (read-only, write-only) and the slices of one entry point that calls a
    board kernel, or None."""
    call = _CALL.search(body)
    if not call:
        return None
    kernel, names = call.group(1), _PARAMETERS[call.group(1)]
    arguments = [a.strip() for a in call.group(2).split(",")]
    if len(arguments) != len(names):
        return None
    known = known_values(body, index_constants(body))
    values = {n: known[a] for n, a in zip(names, arguments, strict=True) if a in known}
    subspans = {name: (int(b), o) for name, b, o in _SUBSPAN.findall(body)}
    bases = {base: subspans.get(view) for base, _, view in _METADATA.findall(body)}
    slices, read, written = [], set(), set()
    rules = _DEPTHWISE_RULES if kernel == "ireerv_dw_q8" else _RULES
    for buffer, (step, length) in rules.items():
        if buffer not in names:
            continue
        where = bases.get(arguments[names.index(buffer)])
        scale = _OUT_BYTES[kernel] if buffer == "out" else 1
        steps, lengths = _product(*step, values, scale), _product(*length, values, scale)
        if where is None or where[1] not in known or steps is None or lengths is None:
            return None
        (written if buffer == "out" else read).add(where[0])
        start, constant = known[where[1]]
        slices.append(Slice(where[0], start, (steps[0], 0, 0), lengths[0], constant,
                            buffer == "out", steps[1], lengths[1]))
    every = {b for b, _ in subspans.values()}
    if read & written or every - read - written:
        return None  # a binding the rules do not account for: copied whole
    return ((sum(1 << b for b in read), sum(1 << b for b in written)),
            tuple(sorted(slices, key=lambda s: s.binding)))


def _rows_only(sources: str) -> set[str]:
    """The entry points whose workgroups are (n, 1, 1): the rules' workgroup x is a row,
    and the runner resolves them for any n in x alone (RUNNER_ANY_COUNT)."""
    rows = set()
    for name, region in _EXPORT.findall(sources):
        ones = set(re.findall(r"(%\w+) = arith\.constant 1 : index", region))
        ret = _RETURN.search(region)
        if ret and {ret.group(1), ret.group(2)} <= ones:
            rows.add(name)
    return rows


def entry_slices(sources: str) -> dict[str, tuple[tuple[int, int], tuple[Slice, ...]]]:
    """Per entry point of iree-compile's executable sources that calls a board kernel, one
    workgroup an output row: the masks of its read-only and write-only bindings, and the
    ranges of each."""
    rows = _rows_only(sources)
    found = {name: _entry(body) for name, body in entry_bodies(sources).items()
             if name in rows}
    return {name: entry for name, entry in found.items() if entry}


def add_entries(sources: str, masks: dict[str, tuple[int, int]],
                slices: dict[str, EntrySlices]) -> None:
    """Give the entry points that call a board kernel their masks and slices (in place of
    what hart_local.entry_bindings and hart_slices.entry_slices found: all bindings
    read-write, no slices)."""
    for name, (found_masks, found) in entry_slices(sources).items():
        masks[name] = found_masks
        slices[name] = EntrySlices((ANY_COUNT, 1, 1), found)
