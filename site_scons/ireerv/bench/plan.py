"""The bench plan, as data (bench/plan.toml): the model, board, sizes and reference figures."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PLAN_FILE = Path(__file__).with_name("plan.toml")
RUNTIMES = ("iree", "none")


class PlanError(ValueError):
    """plan.toml is not what the bench needs."""


@dataclass(frozen=True)
class Reference:
    source: str
    cycles: dict[int, dict[str, int]]  # size -> {"startup", "iree_call", "plain_c"}
    image: dict[str, int]  # {"code_and_data", "bss"}
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Plan:
    """One [table] of plan.toml: every (size, runtime) image of `model` runs on `board`."""

    name: str  # the table's name
    model: str  # a model under models/
    board: str
    sizes: tuple[int, ...]  # values of the model's symbolic dimension
    runtimes: tuple[str, ...]  # among RUNTIMES
    reference: Reference  # the figures set beside ours


def load_plan(name: str = "matmul", path: Path = PLAN_FILE) -> Plan:
    try:
        data = tomllib.loads(path.read_text())[name]
        ref = data["reference"]
        plan = Plan(
            name=name, model=str(data["model"]), board=str(data["board"]),
            sizes=tuple(int(n) for n in data["sizes"]), runtimes=tuple(data["runtimes"]),
            reference=Reference(
                source=str(ref["source"]),
                cycles={int(c["size"]): {k: int(v) for k, v in c.items() if k != "size"}
                        for c in ref["cycles"]},
                image={k: int(v) for k, v in ref["image"].items()},
                notes=tuple(str(n) for n in ref["notes"])))
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as err:
        raise PlanError(f"{path}: plan {name!r}: {err!r}") from None
    if not set(plan.runtimes) <= set(RUNTIMES):
        raise PlanError(f"{path}: plan {name!r}: runtimes must be among {', '.join(RUNTIMES)}")
    return plan


def reference_json(plan: Plan) -> dict[str, Any]:
    """The reference figures as the bench table carries them."""
    ref = plan.reference
    return {"source": ref.source,
            "cycles": [{"size": n, **figs} for n, figs in sorted(ref.cycles.items())],
            "image": dict(ref.image), "notes": list(ref.notes)}
