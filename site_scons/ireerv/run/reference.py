"""Host reference: the same MLIR compiled for the host and run with IREE's Python runtime.

This works for every model, bare `.mlir` files included, without a
hand-written NumPy twin that could drift from the model.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

HOST_FLAGS = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=host",
)


class ReferenceError(Exception):
    """The host reference could not be computed."""


def compile_for_host(iree_compile: Path, mlir: Path, vmfb: Path) -> None:
    vmfb.parent.mkdir(parents=True, exist_ok=True)
    tmp = vmfb.with_suffix(".vmfb.tmp")
    cmd = [str(iree_compile), *HOST_FLAGS, str(mlir), "-o", str(tmp)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise ReferenceError(f"host compile of {mlir} failed:\n{proc.stderr.strip()}")
    tmp.replace(vmfb)


def run_on_host(vmfb: Path, function: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Call `function` in the compiled module and return its results as arrays."""
    import iree.runtime as rt  # imported late: only runs and tests need it

    config = rt.Config("local-sync")
    module = rt.VmModule.copy_buffer(config.vm_instance, vmfb.read_bytes())
    context = rt.SystemContext(config=config)
    context.add_vm_module(module)
    results = context.modules.module[function](*inputs)
    if not isinstance(results, (tuple, list)):
        results = (results,)
    return [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in results]
