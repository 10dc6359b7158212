"""IREE's inline HAL: a program that calls its kernels itself.

With `--iree-execution-model=inline-dynamic` the compiled program imports two small
modules instead of the HAL module: hal_inline (buffers and buffer views) and hal_loader
(loads the statically linked kernels and calls them).  No device, no command buffers,
no fences: the 4x4 matmul's call makes 9 calls into them instead of 14 into the HAL
module, and start-up resolves 8 imports instead of 17.  Several harts share a dispatch
as with the full HAL: both call the kernels through the same local executable, whose
dispatch hook the runner sets (runtime/runner/parallel.c).  HAL=full keeps the device.

The pinned compiler cannot inline the loader's operations (its dialects have no
inliner interface), so combining the program's initialisers fails ("failed to inline
into combined initializer").  The compile therefore stops after the HAL phase, each
initialiser's body becomes a private function the initialiser calls (outline), and
the compile goes on from there: calls stay calls, the program is otherwise the same.

The pinned compiler declares the inline module's buffer.allocate imports free of side
effects, so the VM's CSE merged two allocations of the same alignment and size into
one: a program whose results and transients took the same number of bytes wrote its
intermediate values over its results (a QDQ network's layer-check copy, 1,536 bytes
each: 7 of conv0's 288 values wrong).  Between the halves each such repeated
allocation asks for a larger alignment (distinct_allocations): its own call, a few
bytes of slack at most.
"""

from __future__ import annotations

import re

EXECUTION_FLAG = "--iree-execution-model=inline-dynamic"
MODELS = ("inline", "full")  # the HAL variable's values
DEFAULT = "inline"
# The compile's two halves: up to and including the HAL phase, then the rest.
STOP_AFTER = "--compile-to=hal"
GO_ON = "--compile-from=hal"
KEEP_LOCATIONS = "--mlir-print-debuginfo"  # the second half names the model's lines
# The modules compiled with each image, each registering only the functions the program
# imports (as image/hal_exports.py does for the HAL module): (object, source in the
# IREE tree, its export list as the source includes it, the module's import prefix).
MODULE_SOURCES = (
    ("hal_inline_module.o", "runtime/src/iree/modules/hal/inline/module.c",
     "iree/modules/hal/inline/exports.inl", "hal_inline."),
    ("hal_loader_module.o", "runtime/src/iree/modules/hal/loader/module.c",
     "iree/modules/hal/loader/exports.inl", "hal_loader."),
)
_FUNCTION_PREFIX = "__ireerv_initializer_"

# A module-level initialiser, its body and its closing brace's location (if printed).
# hal_inline.buffer.allocate[.initialized] alignment(%a) <the rest of its operands>
_ALLOCATE = re.compile(r"(= hal_inline\.buffer\.allocate(?:\.initialized)? alignment\()"
                       r"(%[\w$.-]+)(\)[^\n]*?)(?: loc\(|$)")
_INDEX_CONSTANT = re.compile(r"^\s*(%[\w$.-]+) = arith\.constant (\d+) : index\b", re.M)
_FUNCTION_START = re.compile(r"^  (?:util\.func|util\.initializer|func\.func)\b", re.M)
_INITIALIZER = re.compile(r"^  util\.initializer \{\n(.*?)^  \}( loc\([^\n]*\))?\n", re.S | re.M)
_STORE = re.compile(r"util\.global\.store [^,]+, (@[\w$.-]+)")


class InlineHalError(Exception):
    """The program after the HAL phase is not in the form the outlining expects."""


def applies(hal: str) -> bool:
    """Whether an image is compiled for the inline HAL (the HAL variable's value)."""
    return hal == "inline"


def phases_flags(flag_list: list[str]) -> list[str]:
    """The flags for stopping iree-compile at a phase before the HAL's (executable sources,
    the dispatches' IR): without the inline execution model, whose pipeline does not stop
    there and would write the static library.  The kernels are the same either way."""
    return [flag for flag in flag_list if flag != EXECUTION_FLAG]


def outline_initializers(text: str) -> str:
    """The HAL phase's output with each module-level initialiser's body moved into a
    private function that the initialiser calls; globals those bodies store to become
    mutable (only an initialiser may store to an immutable one)."""
    count = 0
    stored: set[str] = set()

    def outline(match: re.Match[str]) -> str:
        nonlocal count
        name = f"@{_FUNCTION_PREFIX}{count}"
        count += 1
        stored.update(_STORE.findall(match.group(1)))
        return (f"  util.initializer {{\n    util.call {name}() : () -> ()\n"
                f"    util.return\n  }}\n  util.func private {name}() {{\n"
                f"{match.group(1)}  }}{match.group(2) or ''}\n")

    result = _INITIALIZER.sub(outline, text)
    if len(re.findall(r"^\s*util\.initializer\b", text, re.M)) != count:
        raise InlineHalError("an initialiser of the program is not in the expected form")
    for name in sorted(stored):
        declaration = re.compile(rf"^(  util\.global private) ({re.escape(name)}\b)", re.M)
        result, found = declaration.subn(r"\1 mutable \2", result)
        if not found and not re.search(rf"^  util\.global private mutable {re.escape(name)}\b",
                                       result, re.M):
            raise InlineHalError(f"the global {name} an initialiser stores is not declared")
        result = result.replace(f"util.global.load immutable {name} ",
                                f"util.global.load {name} ")
    return result


def distinct_allocations(text: str) -> str:
    """The HAL phase's output with every allocation that repeats an earlier one of its
    function (the same alignment and operands) given a larger alignment, 64 -> 128 ->
    256 ..., and so a call of its own in the VM program (the module's docstring)."""
    starts = [m.start() for m in _FUNCTION_START.finditer(text)]
    bounds = list(zip([0, *starts], [*starts, len(text)], strict=True))
    return "".join(_distinct_in(text[begin:end]) for begin, end in bounds)


def _distinct_in(body: str) -> str:
    """One function's allocations made distinct (distinct_allocations): the new alignment
    a constant on its own line just before the allocation."""
    constants = {name: int(value) for name, value in _INDEX_CONSTANT.findall(body)}
    seen: set[tuple[str, int, str]] = set()
    lines = []
    for line in body.split("\n"):
        match = _ALLOCATE.search(line)
        alignment = constants.get(match.group(2)) if match else None
        if match is None or alignment is None:  # a dynamic alignment: left as it is
            lines.append(line)
            continue
        op, rest = match.group(1), match.group(3)
        if (op, alignment, rest) in seen:
            while (op, alignment, rest) in seen:
                alignment *= 2
            name = f"%__ireerv_alignment_{len(seen)}"
            indent = line[:len(line) - len(line.lstrip())]
            lines.append(f"{indent}{name} = arith.constant {alignment} : index")
            line = line[:match.start(2)] + name + line[match.end(2):]
        seen.add((op, alignment, rest))
        lines.append(line)
    return "\n".join(lines)
