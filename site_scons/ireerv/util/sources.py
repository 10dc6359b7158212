"""The project's Python modules a build step runs, as sources of that step.

SCons signs a Python action by its own code, not by the functions it calls, so a
step whose output a module of ours writes declares that module and the modules of
its own package (ireerv.image, ireerv.formats, ...) it imports, at any depth and
function-level imports included: a change to any of them runs the step again.
Imports from other packages (boards, inputs, util) are the build's infrastructure,
whose effect reaches a step through its flags and inputs; following them would
run every compile again for a change to a simulator.  Output bytes that come out
the same rebuild nothing further, since the build compares contents.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType


def _imported(path: Path, package: str) -> set[str]:
    """The names of the modules of `package` one file imports, and of the submodules
    it imports by `from package import name`."""
    names: set[str] = set()
    inside = lambda name: name == package or name.startswith(package + ".")  # noqa: E731
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names if inside(a.name))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level \
                and inside(node.module):
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def _file(name: str) -> Path | None:
    """The file of a module of ours, or None for a name that is no module (a class or
    function imported by `from module import name`)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


def module_files(*modules: ModuleType) -> list[str]:
    """The files of `modules` and of the modules of their own packages they import,
    sorted."""
    seen: dict[str, Path] = {}
    todo = [(m.__name__, m.__name__.rpartition(".")[0]) for m in modules]
    while todo:
        name, package = todo.pop()
        path = None if name in seen else _file(name)
        if path is None:
            continue
        seen[name] = path
        todo += [(n, package) for n in sorted(_imported(path, package) - seen.keys())]
    return sorted({str(p) for p in seen.values()})
