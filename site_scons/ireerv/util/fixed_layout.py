"""Run a compiler with the same process layout on every machine and every run.

iree-compile's output for some models (several results, large constants)
depends on where its heap objects lie: the vm-c program's reference-counting
calls come out in another order when address-space randomisation moves them.
A child that runs with randomisation off (as `setarch -R` does) and a fixed
stack limit (which places the memory-mapped area) lays out its memory the
same way each time, so such models compile to the same bytes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import resource

ADDR_NO_RANDOMIZE = 0x0040000  # <linux/personality.h>
STACK_LIMIT = 8 << 20  # bytes: Linux's usual default; the mmap base follows from it


def enter() -> None:
    """In the child before exec: randomisation off, the stack limit fixed."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    current = libc.personality(0xFFFFFFFF)  # query
    if current != -1:
        libc.personality(current | ADDR_NO_RANDOMIZE)
    _, hard = resource.getrlimit(resource.RLIMIT_STACK)
    soft = STACK_LIMIT if hard == resource.RLIM_INFINITY else min(STACK_LIMIT, hard)
    resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The child's whole environment: its size moves the stack, so nothing of the user's."""
    return {"LC_ALL": "C", **(extra or {})}
