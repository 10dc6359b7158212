"""One image's configuration, and every name derived from it.

The build folder, the release folder, release-check's rebuild arguments, the
release manifest's configuration and the committed digests' reference check
all come from an ImageKey, so a variable that changes an image's bytes is
listed once, in SETTINGS, and cannot be forgotten by one of them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ireerv.boards import Board, load_board
from ireerv.formats import given_data, is_named
from ireerv.paths import BUILD, PROJECT_ROOT
from ireerv.runtime import inline_hal
from ireerv.softfloat import choices as softfloat

# SHAPES: how the build compiles a model with dynamic dimensions.  static: for the
# shapes of the inputs it is built with (SIZE), as the plain C version is; dynamic: as
# written, for any shape.  Models with static shapes are compiled as they are.
SHAPES = ("static", "dynamic")
DEFAULT_SHAPES = "static"
# HAL: which of IREE's HALs an IREE image uses (inline_hal).
HAL = inline_hal.MODELS
DEFAULT_HAL = inline_hal.DEFAULT


@dataclass(frozen=True)
class Setting:
    """A build variable that changes an image's bytes."""

    variable: str  # as on the command line
    default: str
    tag: Callable[[str], str]  # the folder-name suffix of a value other than the default
    per_table: bool = False  # the committed digests keep one table per value
    env_key: str = ""  # where a build environment holds it, when not under `variable`
    # The default on a board, given the other values (None: `default` everywhere).
    board_default: Callable[[str, Mapping[str, str]], str] | None = None
    # Given only sometimes (its default is ""): left out of the arguments and the manifest
    # when not given, and recorded there as `recorded` says (a file by its contents).
    optional: bool = False
    recorded: Callable[[str], str] | None = None

    def default_on(self, board: str, values: Mapping[str, str]) -> str:
        return self.board_default(board, values) if self.board_default else self.default


def default_harts(board: Board, runtime: str) -> str:
    """HARTS when the command line gives none: the board's `harts_default` for IREE images,
    1 for the plain C matmul (it has no dispatches to choose for)."""
    return board.harts_default if runtime == "iree" else "1"


@functools.cache
def _board(name: str) -> Board:
    return load_board(name)


def _harts_on(board: str, values: Mapping[str, str]) -> str:
    return default_harts(_board(board), values.get("RUNTIME", "iree"))


def _input_digest(value: str) -> str:
    return given_data.digest(given_data.parse_paths(value))


def _named(value: str) -> str:
    return f"-{value}"


# In the order their suffixes appear in folder names.
SETTINGS: tuple[Setting, ...] = (
    Setting("RUNTIME", "iree", lambda v: "-c" if v == "none" else f"-{v}"),
    Setting("SOFTFLOAT", softfloat.DEFAULT, _named),
    # A board's environment holds the Toolchain object under TOOLCHAIN.
    Setting("TOOLCHAIN", "debian", _named, per_table=True, env_key="TOOLCHAIN_KIND"),
    Setting("HARTS", "1", lambda v: f"-h{v}", board_default=_harts_on),
    Setting("SHAPES", DEFAULT_SHAPES, _named),
    Setting("HAL", DEFAULT_HAL, lambda v: f"-hal-{v}"),
    Setting("PROFILE", "release", _named),
    Setting("REPEAT", "2", lambda v: f"-r{v}"),
    # model: the model's tuning file for the board (`scons tune`), where it has one.
    Setting("TUNING", "model", lambda v: "-untuned" if v == "none" else f"-{v}"),
    # int8: a float ONNX model quantized by the build (formats/onnx_quantize.py).
    Setting("QUANTIZE", "model", _named),
    # APP: an application's folder (docs/firmware.md), named by its name.
    Setting("APP", "", lambda v: f"-app-{Path(v).name}", optional=True,
            recorded=lambda v: Path(v).name),
    # INPUT: the user's input files, named by their contents.
    Setting("INPUT", "", lambda v: f"-in{_input_digest(v)}", optional=True,
            recorded=lambda v: f"sha256:{_input_digest(v)}"),
)
DEFAULT_PLACEMENT = "default"
# A board's reference release (`scons release BOARD=<b>` with every other default): what
# the digests cover.
REFERENCE_MODEL = "matmul"


def setting(variable: str) -> Setting:
    return next(s for s in SETTINGS if s.variable == variable)


def env_values(env, **overrides: object) -> dict[str, object]:
    """Every setting's value in a build environment (a mapping), then the overrides."""
    values = {s.variable: env.get(s.env_key or s.variable, s.default) for s in SETTINGS}
    return {**values, **overrides}


@dataclass(frozen=True)
class ImageKey:
    model: str  # MODEL as given: a model's name or a path
    variant: str  # the model's folder name: its name, or name-N for a size N
    board: str
    placement: str
    size: int | None  # the size built (None: static shapes)
    default_size: int | None  # the model's first size
    values: tuple[tuple[str, str], ...]  # (variable, value) in SETTINGS order

    @classmethod
    def of(cls, *, model: str, variant: str, board: str, placement: str, size: int | None,
           default_size: int | None, values: Mapping[str, object]) -> ImageKey:
        """A key from variable values; a setting not in `values` takes its default."""
        given = {k: str(v) for k, v in values.items()}
        pairs = tuple((s.variable, given.get(s.variable) or s.default_on(board, given))
                      for s in SETTINGS)
        return cls(model, variant, board, placement, size, default_size, pairs)

    def value(self, variable: str) -> str:
        return dict(self.values)[variable]

    def changed(self) -> list[tuple[Setting, str]]:
        """The settings whose value is not the default, in SETTINGS order."""
        found = dict(self.values)
        return [(s, found[s.variable]) for s in SETTINGS
                if s.variable in found and found[s.variable] != s.default_on(self.board, found)]

    @property
    def board_folder(self) -> str:
        """The board's folder: one per placement (a dot is never in a board's name)."""
        return self.board if self.placement == DEFAULT_PLACEMENT else (
            f"{self.board}.{self.placement}")

    @property
    def folder_name(self) -> str:
        return self.variant + "".join(s.tag(v) for s, v in self.changed())

    def build_dir(self) -> str:
        """build/<board>[.<placement>]/<model>[-<N>][-<setting>...]"""
        return f"{BUILD}/{self.board_folder}/{self.folder_name}"

    def release_name(self, version: str) -> str:
        """The release folder's name in dist/: two configurations never share one."""
        return f"{self.folder_name}-{self.board_folder}-{version}"

    def scons_args(self) -> list[str]:
        """The command-line variables that rebuild this image in another checkout."""
        args = [f"MODEL={_portable_model(self.model)}", f"BOARD={self.board}",
                f"PLACEMENT={self.placement}"]
        if self.size is not None:
            args.append(f"SIZE={self.size}")
        portable = {"INPUT": _portable_inputs, "APP": _portable_model}
        return args + [f"{name}={portable.get(name, str)(value)}"
                       for name, value in self._given()]

    def _given(self) -> list[tuple[str, str]]:
        """(variable, value) of every setting but the optional ones not given."""
        return [(name, value) for name, value in self.values
                if value or not setting(name).optional]

    def config(self) -> dict[str, object]:
        """The configuration as the release manifest records it."""
        recorded = {name: (setting(name).recorded or str)(value)
                    for name, value in self._given()}
        return {"model": self.variant, "board": self.board, "placement": self.placement,
                "size": self.size, **recorded}

    def reference_differences(self) -> list[str]:
        """What makes this image other than its board's reference release (empty: it is it)."""
        found = [f"MODEL={self.model}"] if self.model != REFERENCE_MODEL else []
        if self.placement != DEFAULT_PLACEMENT:
            found.append(f"PLACEMENT={self.placement}")
        if self.size != self.default_size:
            found.append(f"SIZE={self.size}")
        return found + [f"{s.variable}={v}" for s, v in self.changed() if not s.per_table]

    def is_reference(self) -> bool:
        return not self.reference_differences()


def _portable_model(model: str) -> str:
    """MODEL for a build in another folder: a name stays a name, a path inside the project
    stays relative to its top, any other path becomes absolute."""
    if is_named(model):
        return model  # a name in models/
    resolved = Path(model).resolve()
    if resolved.is_relative_to(PROJECT_ROOT):
        return resolved.relative_to(PROJECT_ROOT).as_posix() or "."
    return str(resolved)


def _portable_inputs(value: str) -> str:
    """INPUT for a build in another folder: every file by its absolute path."""
    return ",".join(str(p.resolve()) for p in given_data.parse_paths(value))
