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

import functools
import importlib.util
import re
from pathlib import Path
from types import ModuleType

# `from a.b import c, d` (in parentheses over several lines too) and `import a.b`, at
# any indentation: ruff keeps our imports in these forms.
_FROM = re.compile(r"^[ \t]*from ([\w.]+) import (\([^)]*\)|[^\n]*)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import ([\w.]+)", re.MULTILINE)


def _inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


@functools.cache  # several steps share modules (iree_compile: the compile, the hart check)
def _imported(path: Path, package: str) -> frozenset[str]:
    """The names of the modules of `package` one file imports, and of the submodules
    it imports by `from package import name`."""
    text = path.read_text()
    names = {m.group(1) for m in _IMPORT.finditer(text) if _inside(m.group(1), package)}
    for m in _FROM.finditer(text):
        if _inside(m.group(1), package):
            names.add(m.group(1))
            listed = re.sub(r"#[^\n]*", "", m.group(2)).strip("() \n")
            names.update(f"{m.group(1)}.{n.split()[0]}" for n in listed.split(",") if n.split())
    return frozenset(names)


def _file(name: str) -> Path | None:
    """The file of a module of ours, or None for a name that is no module (a class or
    function imported by `from module import name`)."""
    parent = name.rpartition(".")[0]
    try:
        # A name inside a plain module (not a package) is a class or a function: looking
        # it up would import that module (and NumPy with it, for a build that needs none).
        outer = importlib.util.find_spec(parent) if parent else None
        if outer is not None and not outer.submodule_search_locations:
            return None
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec and spec.origin and spec.origin.endswith(".py") else None


def module_files(*modules: ModuleType) -> list[str]:
    """The files of `modules` and of the modules of their own packages they import,
    sorted."""
    return list(_closure(modules))


@functools.cache  # once per run: every image asks again
def _closure(modules: tuple[ModuleType, ...]) -> tuple[str, ...]:
    seen: dict[str, Path] = {}
    todo = [(m.__name__, m.__name__.rpartition(".")[0]) for m in modules]
    while todo:
        name, package = todo.pop()
        path = None if name in seen else _file(name)
        if path is None:
            continue
        seen[name] = path
        todo += [(n, package) for n in sorted(_imported(path, package) - seen.keys())]
    return tuple(sorted({str(p) for p in seen.values()}))
