"""What the Tools share while SCons reads the build files: one object, made once per build
(site_tools/ireerv_setup.py), passed in the environment as SERVICES.

It holds what is costly or must be unique: the fetcher, the cross toolchain, a board's
cross environment, a runtime build, a soft-float choice's objects."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KEY = "SERVICES"


@dataclass
class Services:
    fetcher: Any = None  # ireerv.inputs.fetch.Fetcher, made on first use
    toolchain: Any = None  # ireerv.inputs.toolchain.Toolchain, found or built on first use
    board_envs: dict[str, Any] = field(default_factory=dict)  # board folder -> environment
    runtimes: dict[str, Any] = field(default_factory=dict)  # runtime folder -> its libraries
    runtime_dbs: dict[str, Any] = field(default_factory=dict)  # runtime folder -> CMake's db
    softfloat: dict[tuple[str, str], Any] = field(default_factory=dict)  # (folder, choice)

    def __semi_deepcopy__(self) -> Services:
        return self  # env.Clone() shares it: one per build


def of(env) -> Services:
    return env[KEY]
