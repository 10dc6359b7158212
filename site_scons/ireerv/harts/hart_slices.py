"""Which bytes of a binding the workgroups of a dispatch read or write.

A hart that runs its share of a dispatch from its own scratchpad
(runtime/runner/hart_local.c) copies in the read-only bindings and writes back
the write-only ones over the cluster's one shared path, about 22 cycles a word.
When the compiler's own distribution shows that workgroup w touches only the
bytes [base + sx*x + sy*y + sz*z, + length) of a binding ((x, y, z) its
workgroup id), the hart copies and writes back only the union of those ranges
over its workgroups (qmatmul64 on 4 harts: a quarter of A and of the result
instead of all of them).

The ranges come from iree-compile's IR right after it distributes each
entry point over workgroups (`iree-codegen-tile-and-distribute-to-workgroups-
using-forall-op`): one `scf.forall` mapped to workgroups x, y, z, its
induction variable k being lb_k + step_k * workgroup_id.  A subspan's range
moves with the workgroup id only in the plain form, which makes the bound
sound: loaded or stored whole, and inside that forall
- read-only: every use of the loaded tensor a `tensor.extract_slice` with
  constant sizes, unit strides and offsets that are constants, induction
  variables or `affine.apply` of one (d0 * a + b: a stride-2 convolution reads
  input row 2y), then the bytes read lie in the slices' bounding range;
- write-only: stored whole from a forall result whose shared output starts as
  `tensor.empty()` and is written only by `tensor.parallel_insert_slice` of
  that form (read back only through `tensor.extract_slice`).
Otherwise the range is the whole subspan: a kernel reaches nothing outside
its subspans.  A range counts from the subspan's offset, a constant or a push
constant (IREE binds whole buffers and passes the offsets as push constants):
its value is added at run time.  A binding with a subspan of unknown offset
or form, and every read-write binding, is copied whole.
The runtime also checks the workgroup counts against the forall's before it
uses the ranges: later passes may still map the loops differently (the
8x16x12 int8 matmul's forall gives (1, 4, 1), its dispatch runs 4x1x1), and
then the bindings are copied whole.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# The pass after which the dump is taken (its `--mlir-print-ir-after` name).
PASS = "iree-codegen-tile-and-distribute-to-workgroups-using-forall-op"

_DUMP = re.compile(r"^// -----// IR Dump After .*$", re.M)
_FUNC = re.compile(r"func\.func @([\w$.]+)\(")
_TOKEN = re.compile(r"%[\w]+(?:#\d+)?")
_CONST = re.compile(r"^\s*(%\w+) = arith\.constant (-?\d+) : index\s*$", re.M)
_SUBSPAN = re.compile(
    r"^\s*(%\w+) = hal\.interface\.binding\.subspan .*?\bbinding\((\d+)\).*?"
    r"\boffset\((%[\w#]+)\).*dispatch\.tensor<(\w+):tensor<([\dx]+)x(\w+)>>\s*$", re.M)
_WHOLE = (r"offsets = \[([^\]]*)\], sizes = \[([^\]]*)\], strides = \[([^\]]*)\]")
_LOAD = re.compile(r"^\s*(%\w+) = iree_tensor_ext\.dispatch\.tensor\.load (%\w+), "
                   + _WHOLE, re.M)
_STORE = re.compile(r"^\s*iree_tensor_ext\.dispatch\.tensor\.store (%[\w#]+), (%\w+), "
                    + _WHOLE, re.M)
_FORALL = re.compile(r"^\s*(?:(%\w+)(?::\d+)? = )?scf\.forall \(([^)]*)\) "
                     r"(?:= \(([^)]*)\) to \(([^)]*)\) step \(([^)]*)\)|in \(([^)]*)\))"
                     r"(?: shared_outs\(([^)]*)\))?", re.M)
_MAPPING = re.compile(r"\{mapping = \[([^\]]*)\]\}")
_WORKGROUP = re.compile(r"#iree_codegen\.workgroup_mapping<([xyz])>$")
_EXTRACT = re.compile(r"tensor\.extract_slice (%[\w#]+)\[([^\]]*)\] \[([^\]]*)\] \[([^\]]*)\]")
_INSERT = re.compile(r"tensor\.parallel_insert_slice %[\w#]+ into (%\w+)\[([^\]]*)\] "
                     r"\[([^\]]*)\] \[([^\]]*)\]")
_EMPTY = re.compile(r"^\s*(%\w+) = tensor\.empty\(\) :", re.M)
_ANY_SUBSPAN = re.compile(r"hal\.interface\.binding\.subspan .*?\bbinding\((\d+)\)")
_PUSH = re.compile(r"^\s*(%\w+) = hal\.interface\.constant\.load .*\bordinal\((\d+)\) : i32\s*$",
                   re.M)
_CAST = re.compile(r"^\s*(%\w+) = arith\.index_castui? (%\w+) : i32 to index\s*$", re.M)
_APPLY = re.compile(r"^\s*(%\w+) = affine\.apply affine_map<\(d0\) -> \(d0(?: \* (\d+))?"
                    r"(?: ([+-]) (\d+))?\)>\((%\w+)\)\s*$", re.M)
# One operand on one line, or several on lines of their own; either ends at " : index".
_ASSUME = re.compile(r"^\s*(%\w+)(?::\d+)? = util\.assume\.int(.*?)\s:\s", re.M | re.S)

# Element sizes in bytes (i1 is packed: not handled).
_BYTES = {"i8": 1, "i16": 2, "f16": 2, "bf16": 2, "i32": 4, "f32": 4, "i64": 8, "f64": 8}
_DIMS = "xyz"


@dataclass(frozen=True)
class Slice:
    """Workgroup (x, y, z) touches bytes [base + steps . (x, y, z), + length) of a binding,
    base counted from push constant `constant` (its value added) when that is not -1."""

    binding: int
    base: int
    steps: tuple[int, int, int]
    length: int
    constant: int = -1
    filled: bool = False  # the workgroup writes every byte of its range
    # Push constants the steps and the length are multiplied by (a board's kernel:
    # harts/kernel_slices.py), at most four each.
    step_terms: tuple[int, ...] = ()
    length_terms: tuple[int, ...] = ()


@dataclass(frozen=True)
class EntrySlices:
    """An entry point's workgroup counts (as its forall gives them) and its bindings' ranges."""

    counts: tuple[int, int, int]
    slices: tuple[Slice, ...]


# An index value linear in the workgroup id (x, y, z): its value at (0, 0, 0), its steps.
_Linear = tuple[int, tuple[int, int, int]]


@dataclass(frozen=True)
class _Forall:
    terms: dict[str, _Linear]  # induction variables, index constants and affine.apply of them
    counts: tuple[int, int, int]
    results: str | None  # the forall's result name
    outs: list[tuple[str, str]]  # shared outputs: (block argument, initial value)


def _ints(text: str) -> list[int] | None:
    items = [t.strip() for t in text.split(",")] if text.strip() else []
    return [int(t) for t in items] if all(re.fullmatch(r"-?\d+", t) for t in items) else None


def _terms(body: str, constants: dict[str, int], ivs: dict[str, _Linear]) -> dict[str, _Linear]:
    """The index values of a function linear in the workgroup id: its index constants
    (IREE writes slice sizes and offsets as %c32 as well as 32), the forall's induction
    variables and `affine.apply` of one of them."""
    terms: dict[str, _Linear] = {name: (v, (0, 0, 0)) for name, v in constants.items()}
    terms.update(ivs)
    for name, scale, sign, shift, operand in _APPLY.findall(body):
        if operand in terms:
            a, b = int(scale or 1), int(shift or 0) * (-1 if sign == "-" else 1)
            base, steps = terms[operand]
            terms[name] = (a * base + b, (a * steps[0], a * steps[1], a * steps[2]))
    return terms


def _forall(body: str, constants: dict[str, int]) -> _Forall | None:
    """The one workgroup-mapped forall of a function, if it is of the plain form
    (`constants`: the function's index constants)."""
    foralls, mappings = _FORALL.findall(body), _MAPPING.findall(body)
    if len(foralls) != 1 or len(mappings) != 1:
        return None
    result, ivs_text, lbs, ubs, steps, extents, outs_text = foralls[0]
    ivs = [v.strip() for v in ivs_text.split(",")]
    if extents:
        lb_list, ub_list, step_list = [0] * len(ivs), _ints(extents), [1] * len(ivs)
    else:
        lb_list, ub_list, step_list = _ints(lbs), _ints(ubs), _ints(steps)
    dims = [_WORKGROUP.match(m.strip()) for m in mappings[0].split(",")]
    if (lb_list is None or ub_list is None or step_list is None or not all(dims)
            or not len(ivs) == len(lb_list) == len(ub_list) == len(step_list) == len(dims)):
        return None
    counts, info = [1, 1, 1], {}
    for iv, lb, ub, step, dim in zip(ivs, lb_list, ub_list, step_list, dims, strict=True):
        d = _DIMS.index(dim.group(1))
        if step <= 0 or ub <= lb or counts[d] != 1:
            return None
        counts[d] = -(-(ub - lb) // step)
        info[iv] = (lb, tuple(step if k == d else 0 for k in range(3)))
    outs = []
    for item in outs_text.split(",") if outs_text else []:
        arg, _, init = item.partition("=")
        outs.append((arg.strip(), init.strip()))
    return _Forall(_terms(body, constants, info), (counts[0], counts[1], counts[2]),
                   result or None, outs)


def _linear(forall: _Forall, text: str) -> list[_Linear] | None:
    """A slice's offsets, sizes or strides, each linear in the workgroup id (None if not)."""
    found = []
    for item in (t.strip() for t in text.split(",")):
        term = (int(item), (0, 0, 0)) if re.fullmatch(r"-?\d+", item) else forall.terms.get(item)
        if term is None:
            return None
        found.append(term)
    return found


def _constants(forall: _Forall, text: str) -> list[int] | None:
    terms = _linear(forall, text)
    return None if terms is None or any(any(s) for _, s in terms) else [v for v, _ in terms]


def _range(forall: _Forall, shape: list[int], size: int, offsets: str, sizes: str,
           strides: str) -> tuple[int, tuple[int, int, int], int] | None:
    """(base, steps, length) in bytes of one slice, or None if not of the plain form."""
    lengths, unit = _constants(forall, sizes), _constants(forall, strides)
    items = _linear(forall, offsets)
    if lengths is None or unit is None or items is None or set(unit) - {1} or \
            not len(items) == len(lengths) == len(shape):
        return None
    base, steps, last = 0, [0, 0, 0], 0
    for i, ((value, moves), length) in enumerate(zip(items, lengths, strict=True)):
        stride = size * math.prod(shape[i + 1:])
        base += value * stride
        steps = [s + m * stride for s, m in zip(steps, moves, strict=True)]
        last += (length - 1) * stride
    if base < 0 or any(s < 0 for s in steps):
        return None
    return base, (steps[0], steps[1], steps[2]), last + size


def _union(ranges: list) -> tuple[int, tuple[int, int, int], int] | None:
    """One range holding all of them, when they move alike with the workgroup id."""
    if not ranges or any(r is None or r[1] != ranges[0][1] for r in ranges):
        return None
    base = min(r[0] for r in ranges)
    return base, ranges[0][1], max(r[0] + r[2] for r in ranges) - base


def _uses(body: str, name: str) -> list[str]:
    """The lines that use `name` (not its definition)."""
    return [line for line in body.splitlines()
            if name in _TOKEN.findall(line) and not line.strip().startswith(f"{name} =")]


def _read_slice(body: str, forall: _Forall, name: str, shape: list[int], size: int):
    loads = [m for m in _LOAD.finditer(body) if m.group(2) == name]
    if len(_uses(body, name)) != 1 or len(loads) != 1 or not _is_whole(loads[0], shape, 3):
        return None
    loaded, ranges = loads[0].group(1), []
    for line in _uses(body, loaded):
        found = _EXTRACT.findall(line)
        if len(found) != 1 or found[0][0] != loaded:
            return None
        ranges.append(_range(forall, shape, size, *found[0][1:]))
    return _union(ranges)


def _write_slice(body: str, forall: _Forall, name: str, shape: list[int], size: int):
    stores = [m for m in _STORE.finditer(body) if m.group(2) == name]
    if len(_uses(body, name)) != 1 or len(stores) != 1 or not _is_whole(stores[0], shape, 3):
        return None
    value, index = stores[0].group(1), 0
    if forall.results is None or value.split("#")[0] != forall.results:
        return None
    if "#" in value:
        index = int(value.split("#")[1])
    elif len(forall.outs) != 1:
        return None
    if index >= len(forall.outs):
        return None
    arg, init = forall.outs[index]
    if init not in _EMPTY.findall(body):
        return None
    ranges, sizes = [], []
    for line in _uses(body, arg):
        if "scf.forall" in line:
            continue  # the forall's own shared_outs(%arg = %init)
        inserted = _INSERT.findall(line)
        if inserted and inserted[0][0] == arg and len(inserted) == 1:
            ranges.append(_range(forall, shape, size, *inserted[0][1:]))
            sizes.append(_constants(forall, inserted[0][2]))
        elif not (_EXTRACT.findall(line) and _EXTRACT.findall(line)[0][0] == arg):
            return None
    reach = _union(ranges)
    return reach and (*reach, len(sizes) == 1 and _fills(sizes[0], shape))


def _fills(lengths: list[int] | None, shape: list[int]) -> bool:
    """Whether a slice of these lengths is one run of bytes: ones, then at most one
    partial dimension, then whole ones (a row of an NHWC output with all its channels)."""
    if lengths is None or len(lengths) != len(shape):
        return False
    first = next((i for i, n in enumerate(lengths) if n != 1), len(lengths))
    return lengths[first + 1:] == shape[first + 1:]


def _is_whole(match: re.Match, shape: list[int], first: int) -> bool:
    offsets, sizes, strides = (_ints(match.group(first + i)) for i in range(3))
    return (offsets is not None and not any(offsets) and sizes == shape
            and strides is not None and not set(strides) - {1})


def index_constants(body: str) -> dict[str, int]:
    """The index constants a function defines: name -> value."""
    return {name: int(value) for name, value in _CONST.findall(body)}


def known_values(body: str, constants: dict[str, int]) -> dict[str, tuple[int, int]]:
    """Index values the IR shows: name -> (literal, push constant added or -1)."""
    known = {name: (value, -1) for name, value in constants.items()}
    pushed = {name: int(ordinal) for name, ordinal in _PUSH.findall(body)}
    for name, source in _CAST.findall(body):
        if source in pushed:
            known[name] = (0, pushed[source])
    for name, operands in _ASSUME.findall(body):
        for k, operand in enumerate(re.findall(r"%\w+", operands)):
            if operand in known:
                known[f"{name}#{k}"] = known[operand]
                if k == 0:
                    known.setdefault(name, known[operand])
    return known


def _entry(body: str) -> EntrySlices:
    """Every subspan of a read-only or write-only binding gets a range: the bytes its
    workgroups touch where the forall shows them, else the whole subspan (a kernel reaches
    nothing outside its subspans).  A binding with a subspan of unknown offset or shape, or
    a read-write one, gets none: it is copied whole."""
    constants = index_constants(body)
    forall = _forall(body, constants)
    offsets = known_values(body, constants)
    found: dict[int, list[Slice]] = {}
    matched = _SUBSPAN.findall(body)
    every = [int(b) for b in _ANY_SUBSPAN.findall(body)]
    # A binding with a subspan not of the form read here is copied whole.
    whole = {b for b in every if every.count(b) != [int(m[1]) for m in matched].count(b)}
    for name, binding, offset, access, shape_text, element in matched:
        size, number = _BYTES.get(element), int(binding)
        shape = [int(s) for s in shape_text.split("x")]
        if offset not in offsets or size is None or access not in ("readonly", "writeonly"):
            whole.add(number)
            continue
        start, constant = offsets[offset]
        reach = None
        if forall is not None:
            slice_of = _read_slice if access == "readonly" else _write_slice
            reach = slice_of(body, forall, name, shape, size)
        if reach is None:
            reach = (0, (0, 0, 0), size * math.prod(shape))
        found.setdefault(number, []).append(
            Slice(number, start + reach[0], reach[1], reach[2], constant,
                  len(reach) > 3 and reach[3]))
    slices = tuple(s for b in sorted(found) if b not in whole for s in found[b])
    return EntrySlices(forall.counts if forall else (0, 0, 0), slices)


def entry_slices(dump: str) -> dict[str, EntrySlices]:
    """Per entry point in iree-compile's dump after PASS: its workgroup counts and the ranges
    of its bindings that have one (counts 0 where no plain forall shows them)."""
    result = {}
    for part in _DUMP.split(dump)[1:]:
        name = _FUNC.search(part)
        entry = _entry(part) if name else None
        if name and entry and entry.slices:
            result[name.group(1)] = entry
    return result
