"""The targets a user can ask for: each Tool declares its own, and `SConstruct` and
`scons -h` are made from them (site_tools/ireerv_targets.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

# Groups in the order `scons -h` shows them.
GROUPS = {
    "build": "Build",
    "measure": "Run and measure",
    "inputs": "Inputs and tools",
    "release": "Releases",
}
_KEY = "IREERV_TARGETS"  # where a build environment keeps the declared targets


@dataclass(frozen=True)
class Target:
    name: str
    help: str
    group: str
    build: Callable[[Any, Any], Any]  # (env, request) -> the nodes the target's alias names
    # Run before any target is built, when this one is asked for (a release scrubs the
    # environment before anything reads it).
    prepare: Callable[[Any], None] | None = None

    def __post_init__(self) -> None:
        if self.group not in GROUPS:
            raise ValueError(f"target {self.name!r}: unknown group {self.group!r}")


def declare(env, *targets: Target) -> None:
    """Called by a Tool's generate(): the targets it builds (once per environment)."""
    found = env.setdefault(_KEY, {})
    for target in targets:
        found.setdefault(target.name, target)


def declared(env) -> dict[str, Target]:
    return dict(env.get(_KEY, {}))


def help_text(found: Iterable[Target]) -> str:
    """The targets part of `scons -h`, by group."""
    by_group: dict[str, list[Target]] = {}
    for target in found:
        by_group.setdefault(target.group, []).append(target)
    out = ["Targets:"]
    for group, title in GROUPS.items():
        if by_group.get(group):
            out.append(f"  {title}:")
            out += [f"    {t.name:<16} {t.help}" for t in by_group[group]]
    return "\n".join(out) + "\n"
