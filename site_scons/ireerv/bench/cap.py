"""The cluster's cap on several harts, from microbench/cap.c: parse, compute, table.

All four cores fetch their instructions through one port that delivers one
32-bit word per cycle to the whole cluster.  A hart alone runs IPC₁
instructions per cycle and needs w fetched words per instruction, so it
uses IPC₁·w of the port; N harts running the same loop can at most go
min(N, 1/(IPC₁·w)) times as fast as one.  The speed-up measured is
N·T₁/T_N, with T_N the cycles of the slowest of N harts.

w, from the cores' counters (one hart alone, the same loop):

    w = (I - I_c/2 + D·X) / I

- I: retired instructions (minstret); I_c: of which compressed (mhpmevent3
  bit 10); each 32-bit instruction is one word, a compressed one half.
- X: taken jumps and branches (bits 7 and 9).  Each costs words no
  counter sees: the word the prefetcher has already requested past the
  transfer when it is taken (thrown away), and on average half a word of
  alignment (the rest of the transfer's own word, the start of the
  target's word).  D = 1.5 words.
- Checked against what the port delivered when it was the bottleneck: at
  N harts, w_port = T_N / (sum of the harts' instructions), meaningful when
  the fetch waits (mhpmcounter3, bit 4) make up the extra cycles.  One hart
  alone never waits for a fetch; the counter counts the contention.

JSON schema "ireerv-cap/1":
    {"schema", "board", "harts", "loops", "elements", "waste_per_transfer",
     "rows": [{"kernel", "label", "softfloat" | null, "cycles", "instret",
               "compressed", "transfers", "ipc1", "w", "w_port", "limit",
               "harts": [{"n", "cycles", "speedup", "cap", "fetch_waits",
                          "extra_cycles"}]}]}
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ireerv.bench.plan import PLAN_FILE

SCHEMA = "ireerv-cap/1"
WASTE_PER_TRANSFER = 1.5  # words fetched per taken jump/branch beyond its instructions (D)
LABELS = {
    "mac": "int32 multiply-accumulate",
    "mac8": "same, unrolled 8×",
    "f32": "f32 `a*b+c`",
    "divu": "`divu` loop",
    "i8tile": "int8 2×4 register tile",
}
SOFT_FLOAT_KERNELS = ("f32",)  # the rows that depend on the soft-float routines


class CapError(ValueError):
    """A program output without the lines it should have, or a bad [cap] plan."""


@dataclass(frozen=True)
class CapPlan:
    board: str
    loops: int
    softfloat: tuple[str, ...]  # one program run per choice


def load_plan(path: Path = PLAN_FILE) -> CapPlan:
    try:
        data = tomllib.loads(path.read_text())["cap"]
        plan = CapPlan(board=str(data["board"]), loops=int(data["loops"]),
                       softfloat=tuple(str(s) for s in data["softfloat"]))
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as err:
        raise CapError(f"{path}: plan 'cap': {err!r}") from None
    if plan.loops <= 0 or not plan.softfloat:
        raise CapError(f"{path}: plan 'cap': loops must be positive and softfloat not empty")
    return plan


# -- the arithmetic ------------------------------------------------------------------------


def words_per_instruction(instret: int, compressed: int, transfers: int,
                          waste: float = WASTE_PER_TRANSFER) -> float:
    """w: fetched 32-bit words per retired instruction (see the module's docstring)."""
    if instret <= 0 or not 0 <= compressed <= instret or transfers < 0:
        raise CapError(f"counters out of range: {instret} instructions, {compressed} "
                       f"compressed, {transfers} taken jumps/branches")
    return (instret - compressed / 2 + waste * transfers) / instret


def cap(n: int, ipc1: float, w: float) -> float:
    """How much faster n harts can run a loop than one: min(n, 1/(IPC₁·w))."""
    return min(float(n), 1.0 / (ipc1 * w))


def speedup(n: int, t1: int, tn: int) -> float:
    """N·T₁/T_N: n harts did n times one hart's work in T_N cycles."""
    return n * t1 / tn


# -- the program's lines ---------------------------------------------------------------------


@dataclass(frozen=True)
class Counts:
    cycles: int
    instret: int
    count: int  # mhpmcounter3 over the loop


@dataclass
class CapOutput:
    softfloat: str
    loops: int
    elements: int
    harts: int
    events: dict[str, dict[str, Counts]] = field(default_factory=dict)  # kernel -> event
    runs: dict[str, dict[int, dict[int, Counts]]] = field(default_factory=dict)  # k -> n -> h


_INFO = re.compile(r"^CAPINFO (\S+) (\d+) (\d+) (\d+)$")
_EVENT = re.compile(r"^CAPEV (\w+) (\w+) (\d+) (\d+) (\d+)$")
_RUN = re.compile(r"^CAP (\w+) (\d+) (\d+) (\d+) (\d+) (\d+)$")


def parse(output: str) -> CapOutput:
    """The CAPINFO, CAPEV and CAP lines of one run; other lines are ignored."""
    info: CapOutput | None = None
    events: dict[str, dict[str, Counts]] = {}
    runs: dict[str, dict[int, dict[int, Counts]]] = {}
    for line in output.splitlines():
        line = line.strip()
        if m := _INFO.match(line):
            info = CapOutput(m[1], int(m[2]), int(m[3]), int(m[4]))
        elif m := _EVENT.match(line):
            events.setdefault(m[1], {})[m[2]] = Counts(int(m[3]), int(m[4]), int(m[5]))
        elif m := _RUN.match(line):
            runs.setdefault(m[1], {}).setdefault(int(m[2]), {})[int(m[3])] = Counts(
                int(m[4]), int(m[5]), int(m[6]))
    if info is None:
        raise CapError("the cap program printed no CAPINFO line")
    if not runs:
        raise CapError("the cap program printed no CAP lines")
    info.events, info.runs = events, runs
    return info


# -- the table -------------------------------------------------------------------------------


def _row(out: CapOutput, kernel: str) -> dict[str, Any]:
    """One loop's figures: IPC₁, w, and per hart count its speed-up beside its cap."""
    runs, events = out.runs[kernel], out.events.get(kernel, {})
    missing = [what for what, ok in (
        ("the one-hart run", 1 in runs and 0 in runs.get(1, {})),
        ("the compressed-instruction count", "compressed" in events),
        ("the jump/branch count", "transfers" in events)) if not ok]
    if missing:
        raise CapError(f"cap: loop {kernel!r} lacks {', '.join(missing)}")
    one = runs[1][0]
    ipc1 = one.instret / one.cycles
    compressed, transfers = events["compressed"].count, events["transfers"].count
    w = words_per_instruction(one.instret, compressed, transfers)
    harts = []
    for n in sorted(runs):
        if set(runs[n]) != set(range(n)):
            raise CapError(f"cap: loop {kernel!r} on {n} harts: lines for harts "
                           f"{sorted(runs[n])}, expected 0..{n - 1}")
        slowest = max(runs[n].values(), key=lambda c: c.cycles)
        harts.append({"n": n, "cycles": slowest.cycles,
                      "speedup": round(speedup(n, one.cycles, slowest.cycles), 3),
                      "cap": round(cap(n, ipc1, w), 3), "fetch_waits": slowest.count,
                      "extra_cycles": slowest.cycles - one.cycles})
    top = max(runs)
    return {
        "kernel": kernel, "label": LABELS.get(kernel, kernel),
        "softfloat": out.softfloat if kernel in SOFT_FLOAT_KERNELS else None,
        "cycles": one.cycles, "instret": one.instret, "compressed": compressed,
        "transfers": transfers, "ipc1": round(ipc1, 4), "w": round(w, 4),
        "w_port": round(max(c.cycles for c in runs[top].values())
                        / sum(c.instret for c in runs[top].values()), 4),
        "limit": round(1.0 / (ipc1 * w), 3), "harts": harts,
    }


def collect(outputs: Iterable[str], board: str) -> dict[str, Any]:
    """The table from the program's outputs on `board`, one per soft-float choice (the
    first one's integer loops stand for all: they do not call soft-float)."""
    parsed = [parse(o) for o in outputs]
    if not parsed:
        raise CapError("cap: no program output")
    first = parsed[0]
    rows = [_row(first, k) for k in first.runs if k not in SOFT_FLOAT_KERNELS]
    rows += [_row(p, k) for p in parsed for k in p.runs if k in SOFT_FLOAT_KERNELS]
    order = list(LABELS)
    rows.sort(key=lambda r: order.index(r["kernel"]) if r["kernel"] in order else len(order))
    return {"schema": SCHEMA, "board": board, "harts": first.harts,
            "loops": first.loops, "elements": first.elements,
            "waste_per_transfer": WASTE_PER_TRANSFER, "rows": rows}


def check_schema(doc: Any) -> None:
    got = doc.get("schema") if isinstance(doc, Mapping) else type(doc).__name__
    if got != SCHEMA:
        raise CapError(f"cap table has schema {got!r}; expected {SCHEMA!r}")


def markdown(doc: Mapping[str, Any]) -> str:
    """The cap section: per loop, IPC₁ and w, then per hart count the speed-up and its cap."""
    check_schema(doc)
    counts = sorted({h["n"] for r in doc["rows"] for h in r["harts"] if h["n"] > 1})
    top = counts[-1] if counts else 1
    head = ["loop", "IPC₁", "w", "1/(IPC₁·w)", *(f"{n} harts: speed-up (cap)" for n in counts),
            f"w_port ({top} harts)", f"fetch waits ({top} harts)"]
    out = ["## The cap on several harts", "",
           f"`microbench/cap.c` on {doc['board']}: each active hart runs the same loop "
           f"({doc['loops']} passes over {doc['elements']} elements) on data in its own "
           "scratchpad, idle harts sleep in `wfi`; speed-up N·T₁/T_N (T_N: cycles of the "
           "slowest hart), cap min(N, 1/(IPC₁·w)).", "",
           "| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    for r in doc["rows"]:
        label = r["label"] + (f" ({r['softfloat']})" if r["softfloat"] else "")
        by_n = {h["n"]: h for h in r["harts"]}
        cells = [f"{by_n[n]['speedup']:.2f}× ({by_n[n]['cap']:.2f}×)" if n in by_n else "—"
                 for n in counts]
        last = by_n.get(top)
        waits = (f"{last['fetch_waits']:,} of {last['extra_cycles']:,} extra cycles"
                 if last else "—")
        out.append(f"| {label} | {r['ipc1']:.3f} | {r['w']:.3f} | {r['limit']:.2f}× | "
                   + " | ".join(cells) + f" | {r['w_port']:.3f} | {waits} |")
    out += ["", "- w: fetched words per instruction from one hart's counters: (I − I_c/2 + "
            f"{doc['waste_per_transfer']}·X)/I with I retired, I_c compressed, X taken "
            "jumps and branches.",
            "- w_port: what the port delivered per instruction with every hart busy, T_N/ΣI "
            "(a check of w where the fetch waits make up the extra cycles).", ""]
    return "\n".join(out)
