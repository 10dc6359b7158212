"""One model on its way into one image: resolved once, then handed to every step.

`ModelBuild.of` takes the Model that formats.load_model made of MODEL (its format, the
file the user gave, its one spelling and folder) and the size; the image's recipe adds
iree-compile's flags once they are known.  The import step, the compile, the runner's
data, the plain C header, the image key and the release read it from here: the inputs are
generated once, by the first step that needs them (a build with nothing to do imports no
NumPy), and the flags computed once.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ireerv import formats
from ireerv.formats.base import Model, ModelFormat

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class ModelBuild:
    model: Model
    size: int | None  # the size built (None: static shapes)
    flags: tuple[str, ...] = ()  # iree-compile's command line (empty for plain C)

    @classmethod
    def of(cls, model: Model, size: int | None) -> ModelBuild:
        """Raises ModelError: a size that does not apply, a generator that cannot make the
        inputs (found without making them)."""
        size = model.resolve_size(size)
        model.check_inputs(size)
        return cls(model, size)

    @cached_property
    def inputs(self) -> tuple[np.ndarray, ...]:
        """As the model's generators make them: once, when a step first needs them."""
        return tuple(self.model.generate_inputs(self.size))

    def with_flags(self, flags: list[str]) -> ModelBuild:
        return replace(self, flags=tuple(flags))

    @property
    def arg(self) -> str:
        """MODEL in its one spelling (a model made without load_model: its name)."""
        return self.model.arg or self.model.name

    @property
    def format(self) -> ModelFormat:
        return formats.model_format(self.model.format)

    def import_step(self, env: Any) -> str | Any:
        """The MLIR iree-compile takes: the node the format's import step writes, or the
        file as the user wrote it."""
        step = self.format.import_step
        return step(env, self.model)[0] if step else str(self.model.mlir)

    def device_inputs(self) -> list[np.ndarray]:
        """The inputs as the compiled program takes them."""
        return self.model.device_inputs(self.size, list(self.inputs))

    @cached_property
    def inputs_digest(self) -> str:
        """A digest of what the generated inputs are made from (their specifications and
        NumPy's version): changed data rebuilds what embeds it, and an unchanged build need
        not import NumPy to know."""
        digest = hashlib.sha256(self.model.inputs_description(self.size).encode())
        digest.update(_numpy_version())
        return digest.hexdigest()

    def explain(self, diagnostics: str, kept: Path) -> str:
        """A compiler failure in the terms of the user's file, where its format can say it
        (`kept`: the compiler's input, kept for a report)."""
        explain = self.format.explain
        return explain(self.model.given, diagnostics, kept) if explain else diagnostics


def _numpy_version() -> bytes:
    """NumPy's version file: its random generators' streams may change between versions."""
    spec = importlib.util.find_spec("numpy")
    if spec is None or spec.origin is None:
        return b""
    return Path(spec.origin).with_name("version.py").read_bytes()
