"""The targets of the command line: the Tools that build them are loaded, each declares its
own (ireerv.targets.Target), and the ones asked for get their alias.

Adds env.BuildTargets(names) and env.TargetsHelp().  Only the Tools a command line's
targets need are loaded (a no-op build imports nothing else); `scons -h`, or a name
that is not a target (a file), loads every one.  A new target is one Target in its
Tool's generate() and one line in TARGET_TOOLS (tests/test_scons.py checks the two agree).
"""

from __future__ import annotations

from functools import cached_property

import SCons.Errors

from ireerv import boards, formats, targets
from ireerv.boards import Board
from ireerv.formats import given_data

# Each target and the Tool that declares it.
TARGET_TOOLS = {
    "fetch": "ireerv_setup",
    "image": "ireerv_image",
    "runtime": "ireerv_runtime",
    "run": "ireerv_run",
    "simulator": "ireerv_run",
    "size-report": "ireerv_size",
    "profile": "ireerv_profile",
    "softfloat-check": "ireerv_softfloat",
    "softfloat-bench": "ireerv_softfloat",
    "cap": "ireerv_cap",
    "bench": "ireerv_bench",
    "models-bench": "ireerv_bench",
    "docs-figures": "ireerv_bench",
    "bench-harts": "ireerv_bench",
    "release": "ireerv_release",
    "release-check": "ireerv_release",
    "release-digests": "ireerv_release",
    "debug": "ireerv_debug",
    "layer-check": "ireerv_layers",
    "tune": "ireerv_tune",
    "library": "ireerv_library",
}
TOOLS = tuple(dict.fromkeys(TARGET_TOOLS.values()))


def tools_for(names: list[str]) -> tuple[str, ...]:
    """The Tools that declare `names`; every Tool when one of them is not a target's name."""
    if any(name not in TARGET_TOOLS for name in names):
        return TOOLS
    return tuple(dict.fromkeys(TARGET_TOOLS[name] for name in names))


def _stop(err: Exception):
    raise SCons.Errors.StopError(str(err)) from None


class Request:
    """What the command line's variables describe, made on first use and once: the board,
    the model, its image; and every target built so far (one alias each)."""

    def __init__(self, env) -> None:
        self.env = env
        self._built: dict[str, object] = {}

    @cached_property
    def board(self) -> Board:
        try:
            return boards.load_board(self.env["BOARD"])
        except boards.BoardError as err:
            _stop(err)

    @cached_property
    def model(self) -> formats.Model:
        """MODEL resolved, here and only here, into the Model every target takes (its
        format, the file given, its one spelling `arg` and its folder).  Its pinned files
        come through the build's fetcher: CACHE_DIR or SHARED_CACHE, fetched only as
        OFFLINE and MIRRORS allow."""
        try:
            model = formats.load_model(self.env.get("MODEL_TYPED", self.env["MODEL"]),
                                       self.env.GetFetcher().path)
            model = formats.quantized(model, self.env["QUANTIZE"])
            if not self.env.get("INPUT"):
                return model
            # Checked against the model here, before anything is built.
            size = int(self.env["SIZE"]) if self.env["SIZE"] else None
            return given_data.with_inputs(model, given_data.parse_paths(self.env["INPUT"]),
                                          model.resolve_size(size))
        except formats.ModelError as err:
            _stop(err)

    @cached_property
    def placed_board(self) -> Board:
        """The board in the placement the command line or the model asks for."""
        try:
            return boards.choose_placement(self.board, self.env["PLACEMENT"],
                                           self.model.placement)
        except boards.BoardError as err:
            _stop(err)

    @cached_property
    def image(self):
        if self.env.get("APP"):  # an application in place of the runner
            self.env.Tool("ireerv_app")
            return self.env.AppImage(self.placed_board, self.env["APP"], self.env["MODEL"])
        self.env.Tool("ireerv_image")  # for a target whose Tool does not build images itself
        size = int(self.env["SIZE"]) if self.env["SIZE"] else None
        return self.env.ModelImage(self.placed_board, self.model, size, self.env["RUNTIME"])

    def built(self, name: str):
        """Target `name`'s nodes, built once; the alias of its name names them."""
        if name not in self._built:
            target = targets.declared(self.env)[name]
            self._built[name] = target.build(self.env, self)
            self.env.Alias(name, self._built[name])
        return self._built[name]


def build_targets(env, names: list[str]) -> None:
    """Alias every known target in `names`; an unknown name is left to SCons to refuse."""
    for tool in tools_for(names):
        env.Tool(tool)
    found = targets.declared(env)
    asked = [found[n] for n in dict.fromkeys(names) if n in found]
    for prepare in dict.fromkeys(t.prepare for t in asked if t.prepare):
        prepare(env)
    request = Request(env)
    for target in asked:
        request.built(target.name)
    if asked:  # every build keeps the IDE's compile commands up to date
        database = env.CompileCommands()
        for target in asked:
            env.Alias(target.name, database)


def targets_help(env) -> str:
    """The targets part of `scons -h`: every Tool is loaded to declare its own."""
    for tool in TOOLS:
        env.Tool(tool)
    return targets.help_text(targets.declared(env).values())


def generate(env) -> None:
    env.Tool("ireerv_ide")  # every build keeps the IDE's compile commands up to date
    env.AddMethod(build_targets, "BuildTargets")
    env.AddMethod(targets_help, "TargetsHelp")


def exists(env) -> bool:
    return True
