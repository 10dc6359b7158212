"""A debugger on an image: the simulator stopped at reset with its GDB stub, gdb-multiarch
with the image's symbols, stopped at main (scons debug).

`break-layer TEXT` breaks in every dispatch function whose name holds TEXT: IREE names
them after the function, the operation kind and its shapes
(`main_dispatch_0_matmul_like_4x4x4_f32`).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
from collections.abc import Sequence
from pathlib import Path

GDB = "gdb-multiarch"


class DebugError(Exception):
    """No debugger can be started."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def gdbinit(port: int) -> str:
    return f"""set pagination off
set confirm off
target remote 127.0.0.1:{port}
define break-layer
  rbreak ^[a-zA-Z0-9_]*dispatch[a-zA-Z0-9_]*$arg0
end
document break-layer
Break in every dispatch function whose name holds the argument (a layer kind or its shapes).
end
break main
continue
"""


def session(simulator_cmd: Sequence[str], elf: Path, init: Path, script: Path | None,
            log: Path) -> int:
    """Run the simulator and gdb on it; gdb's exit status.  Without a script the session is
    interactive (the terminal is gdb's); the simulator's output goes to `log`."""
    gdb = shutil.which(GDB)
    if gdb is None:
        raise DebugError(f"{GDB} is not on PATH (Debian's package {GDB}; ./bootstrap "
                         "installs it)")
    cmd = [gdb, "-nx", "-q", "-x", str(init)]
    if script is not None:
        cmd = [gdb, "-nx", "-q", "-batch", "-x", str(init), "-x", str(script)]
    with log.open("w") as out:
        target = subprocess.Popen(list(simulator_cmd), stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL)
        try:
            return subprocess.call([*cmd, str(elf)])
        finally:
            target.kill()
            target.wait()
