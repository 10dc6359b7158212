"""Large constants of the vm-c program go into the image as bytes, not as C text.

iree-compile writes every constant of the program (a model's weights among
them) into the module header as a C array initialiser, one number per byte.
GCC needs several bytes of memory per byte of such text, so a model with tens
of megabytes of weights takes minutes and gigabytes to compile.  Arrays of
LARGE bytes or more are taken out of the header while it is streamed through:
their bytes go into one binary file, and the header places each one with the
assembler's `.incbin` (top-level asm), under the same name and alignment, in
its own read-only section as the C compiler would.  Time and memory grow with
the bytes only; models without such constants compile exactly as before.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NumPy is imported where data is made: a no-op build needs none
    import numpy as np

LARGE = 1 << 20  # bytes: smaller constants stay C (the images of today's models unchanged)
_ARRAY = re.compile(r"iree_alignas\((\d+)\) static const uint8_t (\w+)\[\] = \{(.*)\};\s*\Z",
                    re.S)


class RodataError(ValueError):
    """The module header has a constant that cannot be read."""


def _values(name: str, body: str) -> np.ndarray:
    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        values = np.fromstring(body, dtype=np.int64, sep=",")
    if values.size and (values.min() < 0 or values.max() > 255):
        raise RodataError(f"constant {name}: a value outside 0..255")
    return values.astype(np.uint8)


def split(header: Path, blob: Path, blob_name: str, large: int = LARGE) -> list[tuple[str, int]]:
    """Move the header's large constants into `blob` (named `blob_name` where the compiler
    runs); the header is rewritten in place.  Returns (name, size) of each one moved."""
    moved: list[tuple[str, int]] = []
    tmp = header.with_name(header.name + ".tmp")
    offset = 0
    with header.open() as src, tmp.open("w") as out, blob.open("wb") as data:
        for line in src:
            match = _ARRAY.match(line) if len(line) > 3 * large else None  # ", " between
            values = _values(match.group(2), match.group(3)) if match else None
            if values is None or values.size < large:
                out.write(line)
                continue
            align, name = int(match.group(1)), match.group(2)
            data.write(values.tobytes())
            out.write(_placed(name, align, blob_name, offset, values.size))
            offset += values.size
            moved.append((name, int(values.size)))
    tmp.replace(header)
    return moved


def _placed(name: str, align: int, blob_name: str, offset: int, size: int) -> str:
    asm = (f'.pushsection .rodata.{name},\\"a\\"\\n.balign {align}\\n.globl {name}\\n'
           f'.type {name}, @object\\n{name}:\\n.incbin \\"{blob_name}\\", {offset}, {size}\\n'
           f'.size {name}, {size}\\n.popsection')
    return (f"/* {name}: {size:,} bytes from {blob_name} (ireerv/image/rodata.py) */\n"
            f'__asm__("{asm}");\nextern const uint8_t {name}[{size}];\n')
