"""Optimisation flags of the runner's own sources, on top of the runtime's (-Os in release).

- The control program (`model_module`, vm-c) runs on every call and at start-up: -O2.
  GCC then also folds its many small import shims into their callers, so the object is no
  larger than at -Os.  With staged constants each constant is a resource of its own, and
  the initialiser releases every live one on each error path: vww's is 55,913 lines, on
  which GCC at -O2 or -Os ran for over 20 minutes and at -O1 for 53 s.  Those images take
  -O1 (a few cycles a call, beside kernels of millions), and not at link time either (LTO).
- The files that run for every dispatch (the team and its plans, the harts' copies, the
  staging of constants, the weight cache): -O2, as the runtime's hot sources
  (runtime/config.toml).  kws with HARTS=auto on cluster4: 8,145,318 cycles a call,
  8,155,253 at -Os, and its first call 12,000 fewer.  vww's call pays for
  hart_local.c at -O2: 27,294,182 cycles against 27,112,777 at -Os.

Debug builds keep the profile's flags for every file.
"""

from __future__ import annotations

CONTROL_PROGRAM = "model_module"
PER_DISPATCH = frozenset({"parallel", "hart_local", "hart_plan", "staging", "weight_cache"})


def extra_cflags(source: str, profile: str, staged: bool) -> list[str]:
    """Flags appended for the runner source named `source` (its object's stem)."""
    if profile != "release":
        return []
    if source == CONTROL_PROGRAM:
        return ["-O1" if staged else "-O2"]
    return ["-O2"] if source in PER_DISPATCH else []


def without_lto(source: str, profile: str, staged: bool) -> bool:
    """Whether `source` is compiled without the profile's link-time optimisation."""
    return profile == "release" and staged and source == CONTROL_PROGRAM
