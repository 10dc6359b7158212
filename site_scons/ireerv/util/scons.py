"""Small SCons helpers the Tools share: short action messages and one-line errors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import SCons.Action
import SCons.Errors


def short_action(function: Callable, label: str = "GEN",
                 varlist: Sequence[str] = ()) -> SCons.Action.Action:
    """A Python action printed as `LABEL   target`, rebuilt when a construction variable of
    `varlist` changes.  (A cmdstr's $TARGET expands to nothing when the sources include a
    Value node, so this uses a strfunction.)"""
    return SCons.Action.Action(
        function, strfunction=lambda target, source, env: f"{label:<8}{target[0]}",
        varlist=list(varlist))


def write_value(target, source, env) -> None:
    """Action: write the text of a Value source to the target."""
    Path(str(target[0])).write_text(source[0].read())


def user_error(err: Exception) -> NoReturn:
    """Stop while reading the build files, with the message alone (no Python location)."""
    raise SCons.Errors.StopError(str(err)) from None


def build_error(err: Exception) -> NoReturn:
    """Fail the current build step, with the message alone."""
    raise SCons.Errors.BuildError(errstr=str(err)) from None
