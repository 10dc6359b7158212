"""Applications (`APP=<folder>`): the folder's C sources built with the board's BSP and
the ireerv runtime into the image, in place of the runner; `app.toml` lists the models
they use (`models = ["kws", "ad"]`), else MODEL is the one."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

APP_TOML = "app.toml"
KEYS = ("models",)


class AppError(Exception):
    """An application folder the build cannot take."""


@dataclass(frozen=True)
class App:
    folder: Path
    sources: tuple[Path, ...]  # its C files, sorted
    models: tuple[str, ...]  # as MODEL names them, in order

    @property
    def name(self) -> str:
        return self.folder.name


def load(folder: Path, model: str) -> App:
    """The application in `folder`; `model` (MODEL) when app.toml names none."""
    if not folder.is_dir():
        raise AppError(f"APP={folder}: no such folder")
    sources = tuple(sorted(folder.glob("*.c")))
    if not sources:
        raise AppError(f"APP={folder}: no C sources (*.c) in it")
    models: list[str] = [model]
    toml = folder / APP_TOML
    if toml.is_file():
        try:
            data = tomllib.loads(toml.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise AppError(f"{toml}: {err}") from None
        unknown = sorted(set(data) - set(KEYS))
        if unknown:
            raise AppError(f"{toml}: unknown key(s) {', '.join(unknown)}; known: "
                           f"{', '.join(KEYS)}")
        given = data.get("models", models)
        if not isinstance(given, list) or not given or \
                not all(isinstance(m, str) and m for m in given):
            raise AppError(f"{toml}: models must be a list of model names, as MODEL takes")
        if len(set(given)) != len(given):
            raise AppError(f"{toml}: a model is listed twice")
        models = given
    return App(folder.resolve(), tuple(s.resolve() for s in sources), tuple(models))
