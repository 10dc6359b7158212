"""One measurement of a tune: build the model with one tuning file and profile a call.

A round runs in a workspace, a private copy of the project, so rounds run side by side
and never touch the user's own build.  Each round is an ordinary `scons profile` there, of
the image the board builds by default (its harts as `HARTS` defaults) and of its later
call (REPEAT=2: with HARTS=auto the first call decides which harts run each dispatch);
each dispatch's cycles from its start to its end come from that profile's JSON record
(profile/report.py), read where the round's image keeps it.  A round that
fails (the compiler rejects a configuration, the run exceeds its cycle limit, or the
outputs differ from the reference) says so in its result; the tune decides what that
means for the candidates in it.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ireerv.profile import report
from ireerv.tune import interrupt, space

ROUND_TIMEOUT = 1800  # seconds: a build and a traced run of one network
REPEAT = 2  # calls a round runs; the last is measured
POLL = 0.2  # seconds between looks at whether the tune was interrupted
# How a child scons says it was stopped by a signal (Ctrl-C, SIGTERM).
_STOPPED = "Build interrupted"
SCONS = [sys.executable, "-c", "import SCons.Script; SCons.Script.main()"]


@dataclass(frozen=True)
class Round:
    """One build and run: the model with `spec` as its tuning file ("": untuned)."""

    name: str
    model: str
    board: str
    spec: str
    # Paths in the copy of the project: the model's tuning file for the board, and the
    # profile's record as the image of `model` on `board` built by default keeps it.
    tuning: str
    profile: str

    def digest(self, context: str) -> str:
        """What identifies its result: the spec and everything else it was built from."""
        text = "\0".join([self.model, self.board, self.spec, context])
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Result:
    passed: bool
    cycles: dict[str, int] = field(default_factory=dict)  # dispatch key -> cycles
    total: int = 0  # the call's cycles
    detail: str = ""  # why it failed: shown, never recorded (it names this machine)

    def as_json(self) -> dict[str, object]:
        return {"passed": self.passed, "cycles": self.cycles, "total": self.total}

    @classmethod
    def from_json(cls, data: dict) -> Result:
        return cls(bool(data["passed"]), {str(k): int(v) for k, v in data["cycles"].items()},
                   int(data["total"]))


def kernel_cycles(profile: dict) -> Result:
    """Cycles per distinct dispatch in a profile's last phase (the measured call): each
    dispatch's wall cycles where the profile has them (with several harts the kernel's
    inclusive cycles are hart 0's share only), else its kernel's inclusive cycles."""
    phase = profile["phases"][-1]
    costs = {f["name"]: int(f["inclusive"]) for f in phase["functions"]
             if f["component"] == "kernel"}
    costs.update({name: int(cost) for name, cost in (phase.get("dispatches") or {}).items()})
    cycles: dict[str, int] = {}
    for name, cost in costs.items():
        dispatch = space.parse_symbol(name)
        if dispatch is not None:
            cycles[dispatch.key] = cycles.get(dispatch.key, 0) + cost
    return Result(True, dict(sorted(cycles.items())), int(phase["total"]))


def _failure(out: str) -> str:
    lines = [line for line in out.splitlines() if line.strip()]
    wanted = [line for line in lines if "***" in line or "error" in line.lower()]
    return "\n".join((wanted or lines)[-3:])


class Workspace:
    """A private copy of the project at `tree`, built with a shared build cache."""

    def __init__(self, tree: Path, build_cache: Path | None) -> None:
        self.tree, self.build_cache = tree, build_cache

    def run(self, rnd: Round) -> Result:
        spec_file = self.tree / rnd.tuning
        if rnd.spec:
            spec_file.parent.mkdir(parents=True, exist_ok=True)
            if not spec_file.is_file() or spec_file.read_text() != rnd.spec:
                spec_file.write_text(rnd.spec)
        else:
            spec_file.unlink(missing_ok=True)
        # The board's cycle limit: a candidate that reaches it fails, recorded as such.
        # The image as built by default, harts included: on one hart kws's depthwise layers
        # won with all rows in one workgroup by 0.08 %, which HARTS=auto cannot share
        # (7,778,355 -> 7,987,291 cycles a call).
        args = ["profile", f"MODEL={rnd.model}", f"BOARD={rnd.board}", f"REPEAT={REPEAT}",
                *([f"BUILD_CACHE={self.build_cache}"] if self.build_cache else [])]
        record = self.tree / rnd.profile
        record.unlink(missing_ok=True)  # an earlier round's profile is no result of this one
        interrupt.check()
        try:
            proc = _scons(self.tree, args)
        except subprocess.TimeoutExpired:
            return Result(False, detail=f"no result within {ROUND_TIMEOUT} s")
        if proc.returncode in (-signal.SIGINT, -signal.SIGTERM) or \
                _STOPPED in proc.stdout + proc.stderr:
            raise interrupt.Interrupted
        if proc.returncode != 0 or not record.is_file():
            return Result(False, detail=_failure(proc.stdout + "\n" + proc.stderr))
        try:
            return kernel_cycles(report.load(record))
        except report.ProfileRecordError as err:
            return Result(False, detail=str(err))


def _scons(tree: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """scons in `tree`, within ROUND_TIMEOUT; sent Ctrl-C's signal as soon as the tune is
    interrupted, and never left running behind the tune."""
    proc = subprocess.Popen([*SCONS, *args], cwd=tree, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    deadline = time.monotonic() + ROUND_TIMEOUT
    try:
        while True:
            try:
                out, err = proc.communicate(timeout=POLL)
                return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
            except subprocess.TimeoutExpired:
                if interrupt.STOP.is_set():
                    proc.send_signal(signal.SIGINT)
                    proc.communicate()
                    raise interrupt.Interrupted from None
                if time.monotonic() > deadline:
                    raise
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
