"""The targets of the command line: every Tool that builds targets is loaded, each declares
its own (ireerv.targets.Target), and the ones asked for get their alias.

Adds env.BuildTargets(names) and env.TargetsHelp().  A new target is one Target in its
Tool's generate(); a new Tool with targets is one line in TOOLS.
"""

from __future__ import annotations

from functools import cached_property

import SCons.Errors

from ireerv import boards, formats, targets
from ireerv.boards import Board

TOOLS = ("ireerv_setup", "ireerv_image", "ireerv_run", "ireerv_size", "ireerv_profile",
         "ireerv_softfloat", "ireerv_cap", "ireerv_bench", "ireerv_release", "ireerv_ide",
         "ireerv_debug", "ireerv_layers", "ireerv_tune")


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
            return formats.load_model(self.env.get("MODEL_TYPED", self.env["MODEL"]),
                                      self.env.GetFetcher().path)
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


def generate(env) -> None:
    for tool in TOOLS:
        env.Tool(tool)
    env.AddMethod(build_targets, "BuildTargets")
    env.AddMethod(lambda env: targets.help_text(targets.declared(env).values()), "TargetsHelp")


def exists(env) -> bool:
    return True
