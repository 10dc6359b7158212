"""The plain C versions of models (RUNTIME=none): the reference work's comparison point.

A model folder may hold `plain.c`, a hand-written C version of the model.
It gets the model's inputs from a generated header, so both versions compute
on the same numbers and are checked against the same host reference.
Only matmul has one: `plain.c` includes MATMUL_INPUTS, which defines
MATMUL_INPUTS_N and the float arrays matmul_lhs and matmul_rhs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NumPy is imported where data is made: a no-op build needs none
    import numpy as np

SOURCE_NAME = "plain.c"
INPUTS_HEADER = "plain_inputs.h"


def _array(name: str, values: np.ndarray) -> str:
    # C99 hexadecimal literals: exact for every float32.
    text = ", ".join(f"{float(v).hex()}f" for v in values.reshape(-1))
    return f"static const float {name}[{values.size}] = {{{text}}};\n"


def inputs_header(inputs: Sequence[np.ndarray]) -> str:
    """The header of the model's generated inputs (ModelBuild.inputs)."""
    lhs, rhs = inputs
    return (
        "/* Generated: the model's inputs for its plain C version. */\n"
        f"#define MATMUL_INPUTS_N {lhs.shape[0]}\n"
        + _array("matmul_lhs", lhs)
        + _array("matmul_rhs", rhs)
    )


def defines(size: int | None, repeat: int, harts: int = 1) -> list[str]:
    """The plain C build's defines; MATMUL_HARTS only for a team (one hart builds as before)."""
    team = [f"MATMUL_HARTS={harts}"] if harts > 1 else []
    return [f"MATMUL_N={size}", f'MATMUL_INPUTS=\\"{INPUTS_HEADER}\\"', f"MATMUL_REPEAT={repeat}",
            *team]
