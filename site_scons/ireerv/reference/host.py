"""Host reference: the same MLIR compiled for the host and run with IREE's Python runtime.

This works for every model, bare `.mlir` files included, without a
hand-written NumPy twin that could drift from the model.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from ireerv.util.mlir_tools import SINGLE_THREADED, CompileError, run_tool

# The reference must compute what the device computes, on every host: the device
# (no FPU, soft float) rounds every multiply and add on its own.  `host` would let
# LLVM fuse them into FMA instructions where the host CPU has them, so one model
# would pass on one host and fail on another.  A generic CPU without FMA (the
# x86-64 baseline) keeps every operation separately rounded, as on the device,
# and makes the reference the same bytes on every host of that architecture.
HOST_FLAGS = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--iree-llvmcpu-target-cpu=generic",
    "--iree-llvmcpu-reassociate-fp-reductions=false",
)


class ReferenceError(Exception):
    """The host reference could not be computed."""


def compile_for_host(iree_compile: Path, mlir: Path, vmfb: Path) -> None:
    vmfb.parent.mkdir(parents=True, exist_ok=True)
    tmp = vmfb.with_suffix(".vmfb.tmp")
    cmd = [str(iree_compile), SINGLE_THREADED, *HOST_FLAGS, str(mlir), "-o", str(tmp)]
    try:
        proc = run_tool(cmd)
    except CompileError as err:
        raise ReferenceError(f"host compile of {mlir}: {err}") from None
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise ReferenceError(f"host compile of {mlir} failed:\n{proc.stderr.strip()}")
    tmp.replace(vmfb)


def run_on_host(vmfb: Path, function: str, inputs: list[np.ndarray],
                module: str = "module") -> list[np.ndarray]:
    """Call `function` in the compiled module, in this process, and return its results."""
    import iree.runtime as rt  # imported late: only runs and tests need it

    config = rt.Config("local-sync")
    vm_module = rt.VmModule.copy_buffer(config.vm_instance, vmfb.read_bytes())
    context = rt.SystemContext(config=config)
    context.add_vm_module(vm_module)
    results = getattr(context.modules, module)[function](*inputs)
    if not isinstance(results, (tuple, list)):
        results = (results,)
    return [np.asarray(r.to_host() if hasattr(r, "to_host") else r) for r in results]


# The child: a model that divides by zero or reads out of bounds kills the process
# that runs it (SIGFPE, SIGSEGV); that must be this child, never the build.
_CHILD = """
import sys
from pathlib import Path
import numpy as np
sys.path.insert(0, sys.argv[1])
from ireerv.reference.host import run_on_host
folder, function, module = Path(sys.argv[2]), sys.argv[3], sys.argv[4]
with np.load(folder / "inputs.npz") as data:
    inputs = [data[f"a{i}"] for i in range(len(data.files))]
try:
    outputs = run_on_host(folder / "model.vmfb", function, inputs, module)
except Exception as err:
    text = " ".join(f"{type(err).__name__}: {err}".split())
    sys.stderr.write(text[:600] + "\\n")
    sys.exit(3)
np.savez(folder / "outputs.npz", **{f"a{i}": a for i, a in enumerate(outputs)})
"""


def compute(vmfb: Path, function: str, inputs: list[np.ndarray], *, module: str = "module",
            timeout: float = 600) -> list[np.ndarray]:
    """The host reference, computed in a child process with a time limit.

    Every way it can fail (the model crashes, raises, or runs too long) is one
    ReferenceError whose message says what happened."""
    import tempfile

    where = f"the host reference (@{function} of {vmfb.name})"
    with tempfile.TemporaryDirectory(prefix="ireerv-ref-") as tmp:
        folder = Path(tmp)
        (folder / "model.vmfb").write_bytes(vmfb.read_bytes())
        return run_child(_CHILD, folder, inputs, [function, module], where, timeout)


# A framework's reference as a child program: argv[2] is the work folder, argv[3] the model
# file, argv[4:] more arguments; the body computes `outputs` from `inputs`.
_FRAME = """
import sys
from pathlib import Path
import numpy as np
folder, model, names = Path(sys.argv[2]), sys.argv[3], sys.argv[4:]
with np.load(folder / "inputs.npz") as data:
    inputs = [data[f"a{i}"] for i in range(len(data.files))]
try:
%s
except Exception as err:
    text = " ".join(f"{type(err).__name__}: {err}".split())
    sys.stderr.write(text[:600] + "\\n")
    sys.exit(3)
np.savez(folder / "outputs.npz", **{f"a{i}": np.asarray(a) for i, a in enumerate(outputs)})
"""


def framework_child(body: str) -> str:
    """The child program that runs `body` (indented code setting `outputs`) in run_child's
    frame: inputs loaded, any exception one line on stderr and exit code 3."""
    return _FRAME % body.strip("\n")


def package_identity(distribution: str) -> str:
    """A Python package's version (requirements.txt pins it): a reference depends on it."""
    from importlib import metadata

    try:
        return f"{distribution}=={metadata.version(distribution)}"
    except metadata.PackageNotFoundError:
        return f"{distribution} (not installed)"


def run_child(script: str, folder: Path, inputs: list[np.ndarray], args: list[str],
              where: str, timeout: float) -> list[np.ndarray]:
    """Run `script` on `inputs` in a child process: its argv is the site_scons folder, the
    work folder (inputs.npz in, outputs.npz out) and `args`; exit 3 means it failed."""
    import signal
    import sys

    np.savez(folder / "inputs.npz", **{f"a{i}": a for i, a in enumerate(inputs)})
    cmd = [sys.executable, "-c", script, str(Path(__file__).parents[2]), str(folder), *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ReferenceError(f"{where} did not finish in {timeout:.0f} s") from None
    if proc.returncode < 0:
        sig = signal.Signals(-proc.returncode)
        what = {signal.SIGFPE: "an arithmetic fault such as an integer division by zero",
                signal.SIGSEGV: "an out-of-bounds memory access",
                signal.SIGBUS: "a bad memory access"}.get(sig, "a fatal signal")
        raise ReferenceError(f"{where} crashed with {sig.name} ({what}): the model is "
                             "not defined for these inputs; change the inputs or the model")
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise ReferenceError(f"{where} failed: {last}")
    with np.load(folder / "outputs.npz") as data:
        return [data[f"a{i}"] for i in range(len(data.files))]
