"""Call stacks, phases and the profile of one traced run.

Call stacks come from the instruction stream: a linking jump (jal/jalr) pushes a frame for
the function it lands in, with the return address after the jump; reaching the return
address of a frame on the stack pops down to it (this also covers tail calls and returns
through another register).  Each instruction's cost goes to its folded stack: the frames'
functions, then the symbol holding the instruction when it differs from the innermost
frame's (a tail-called or fallen-into function).

Phases follow the runner's counter reads: every entry into `bsp_cycles` starts a window;
the runner measures each figure between two reads, so its N-th "CYCLES" line is window 2N
(start-up, inputs, call 0, call 1, ...).  A window's total is therefore the runner's figure
give or take the few instructions of one counter read.

Attribution rules: exclusive ("self") cost goes to the symbol holding the instruction and to
the component of the input section holding it (the size report's rules); inclusive cost goes
once to every function on the stack.  So self costs add up to the window's total, and so do
component costs.

Dispatches: each call of DISPATCH (one per dispatch of the inline HAL) costs, in all, what its
instructions cost, and that goes to the kernel function that ran longest in it (its entry
point; a dispatch of several harts also asks the kernel library for its export names).
With several harts hart 0 runs only its share of a dispatch's workgroups and waits for the
others in a barrier outside the kernel: the kernel's inclusive cost is its share, the
dispatch's cost the wall time the layer took.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .program import Program

MARKER = "bsp_cycles"
DISPATCH = "iree_hal_loader_module_executable_dispatch"
KERNEL = "kernel"  # the component of the model's kernels


def is_soft_float(component: str) -> bool:
    """libgcc's routines ("libgcc soft-float") or the SOFTFLOAT choice's ("soft-float")."""
    return component.endswith("soft-float")


class ProfileError(Exception):
    """The trace does not fit the program (no counter reads, too few windows)."""


@dataclass
class Window:
    stacks: Counter = field(default_factory=Counter)  # folded stack tuple -> cost
    components: Counter = field(default_factory=Counter)  # component -> self cost
    calls: Counter = field(default_factory=Counter)  # callee function -> calls
    soft_float_calls: int = 0  # calls into soft-float from outside it
    instructions: int = 0
    dispatches: Counter = field(default_factory=Counter)  # first kernel -> its dispatches' cost

    @property
    def total(self) -> int:
        return sum(self.stacks.values())


@dataclass
class _Dispatch:
    """The call of DISPATCH in progress: its depth on the stack, its cost so far, and its
    kernel functions' own."""

    depth: int = 0  # 0: none in progress
    cost: int = 0
    kernels: Counter = field(default_factory=Counter)

    def enter(self, name: str, depth: int) -> None:
        if name == DISPATCH and not self.depth:
            self.depth, self.cost, self.kernels = depth, 0, Counter()

    def step(self, name: str, component: str, cost: int) -> None:
        if self.depth:
            self.cost += cost
            if component == KERNEL:
                self.kernels[name] += cost

    def leave(self, depth: int, window: Window) -> None:
        if self.depth and depth < self.depth:
            if self.kernels:
                window.dispatches[self.kernels.most_common(1)[0][0]] += self.cost
            self.depth = 0


def walk(instructions: Iterable[tuple[int, int]], program: Program,
         marker: str = MARKER) -> list[Window]:
    """Split the stream into windows at each call of `marker`; the first is before any."""
    marker_at = program.address_of(marker)
    if marker_at is None:
        raise ProfileError(f"the image has no function {marker}: no phase markers")
    sizes, calls = program.sizes, program.calls
    symbol_cache: dict[int, tuple[str, str]] = {}
    frames: list[tuple[int, str]] = []  # (return address, function)
    returns: Counter = Counter()  # return addresses on the stack
    stack: tuple[str, ...] = ()
    windows = [Window()]
    window = windows[0]
    pending: int | None = None  # return address when the last instruction was a call
    caller_pc = 0
    dispatch = _Dispatch()
    for pc, cost in instructions:
        info = symbol_cache.get(pc)
        if info is None:
            info = symbol_cache[pc] = (program.symbol(pc), program.component(pc))
        name, component = info
        if pending is not None:
            if pc == marker_at:
                window = Window()
                windows.append(window)
            frames.append((pending, name))
            dispatch.enter(name, len(frames))
            returns[pending] += 1
            stack = (*stack, name)
            window.calls[name] += 1
            if is_soft_float(component) and not is_soft_float(program.component(caller_pc)):
                window.soft_float_calls += 1
        elif returns[pc]:
            while frames:
                ret, _ = frames.pop()
                returns[ret] -= 1
                if ret == pc:
                    break
            stack = tuple(f for _, f in frames)
            dispatch.leave(len(frames), window)
        if pc in calls:
            pending, caller_pc = pc + sizes.get(pc, 4), pc
        else:
            pending = None
        key = stack if stack and stack[-1] == name else (*stack, name)
        window.stacks[key] += cost
        window.components[component] += cost
        dispatch.step(name, component, cost)
        window.instructions += 1
    return windows


def phase_windows(windows: Sequence[Window], labels: Sequence[str]) -> list[tuple[str, Window]]:
    """The runner's figures as (label, window): label i is window 2i + 1 (window 0 is the
    time before the first counter read)."""
    out = []
    for i, label in enumerate(labels):
        index = 2 * i + 1
        if index >= len(windows) - 1:  # the window must be closed by the next read
            raise ProfileError(
                f"the trace has {len(windows) - 1} counter reads, too few for "
                f"{len(labels)} figures ({', '.join(labels)}): did the run end early?")
        out.append((label, windows[index]))
    return out


def functions(window: Window, program: Program) -> list[dict]:
    """Per function: self and inclusive cost, calls, component; by self cost, largest first."""
    own: Counter = Counter()
    inclusive: Counter = Counter()
    for key, cost in window.stacks.items():
        own[key[-1]] += cost
        for name in set(key):
            inclusive[name] += cost
    rows = []
    for name in inclusive:
        address = program.address_of(name)
        rows.append({
            "name": name,
            "component": program.component(address) if address is not None else "(other)",
            "self": own.get(name, 0),
            "inclusive": inclusive[name],
            "calls": window.calls.get(name, 0),
        })
    rows.sort(key=lambda r: (-r["self"], -r["inclusive"], r["name"]))
    return rows
