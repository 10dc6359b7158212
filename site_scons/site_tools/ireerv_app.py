"""Applications: `APP=<folder>` builds the folder's C sources with the board's BSP, the
ireerv runtime and the archives of the models its app.toml lists (each as
`scons library` makes them) into the image, in place of the runner (docs/firmware.md).

Adds env.AppImage(board, folder, model) -> Image (runtime "app"), which `image`, `run`,
`size-report`, `profile` and `release` take as they take a model's image.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ireerv import formats
from ireerv.formats.base import ModelError
from ireerv.image import layout
from ireerv.image.key import ImageKey
from ireerv.image.model_build import ModelBuild
from ireerv.library import app as app_spec
from ireerv.library import model_source
from ireerv.util.scons import user_error

APP_RUNTIME = "app"  # Image.runtime of an application's image


@dataclass
class AppImage:
    """An application's image: what the Tools read of a model's image (ireerv_image.Image);
    `model` is the first model it uses."""

    board: object
    model: object
    dir: str
    env: object
    elf: object
    map: object
    hex: object
    dis: object
    key: ImageKey
    models: tuple = ()
    size: None = None
    runtime: str = APP_RUNTIME
    harts: int = 1
    mlir: None = None
    iree_flags: list = field(default_factory=list)
    runtime_libs: list = field(default_factory=list)

    @property
    def outputs(self) -> list:
        return [self.elf, self.hex, self.map, self.dis]


def _named(nodes: list, suffix: str):
    return next(n for n in nodes if str(n).replace("\\", "/").endswith(suffix))


def app_image(env, board, folder: str, model_arg: str):
    """The image of the application in `folder` on `board`."""
    try:
        spec = app_spec.load(Path(folder), model_arg)
        models = [formats.load_model(m, env.GetFetcher().path) for m in spec.models]
    except (app_spec.AppError, ModelError) as err:
        user_error(err)
    plain = env.Clone(APP="", INPUT="")  # each model's library, as `scons library` makes it
    archives, includes, headers = [], [], []
    runtime = None
    for model in models:
        nodes = plain.ModelLibrary(board, model, None)
        name = model_source.c_name(model.name)
        archives.append(_named(nodes, f"/lib/lib{name}.a"))
        includes.append(Path(str(_named(nodes, f"/include/{name}.h"))).parent.as_posix())
        runtime = runtime or _named(nodes, "/lib/libireerv.a")
        headers.append(_named(nodes, f"/include/{name}.h"))
    key = layout.image_key(env, board, ModelBuild.of(models[0], None), "iree", 1)
    idir = key.build_dir()
    benv = env.BoardEnv(board)
    aenv = benv.Clone()
    aenv.Append(CPPPATH=includes, CCFLAGS=["-Os"])
    objects = [aenv.Object(f"{idir}/app/{src.stem}.o", str(src))[0] for src in spec.sources]
    aenv.Depends(objects, headers)
    elf, map_file = benv.Program(f"{idir}/image.elf",
                                 [*objects, *archives, runtime, *benv["BSP_OBJECTS"]],
                                 LIBS=benv.get("IMAGE_LIBS", []))[:2]
    benv.Depends([elf, map_file], benv["LINKER_SCRIPT"])
    hex_file = benv.Hex(f"{idir}/image.hex", elf)[0]
    dis = benv.Disassembly(f"{idir}/image.dis", elf)[0]
    return AppImage(board, models[0], idir, benv, elf, map_file, hex_file, dis, key,
                    models=tuple(models))


def generate(env) -> None:
    env.Tool("ireerv_library")  # each model's archives and header
    env.AddMethod(app_image, "AppImage")


def exists(env) -> bool:
    return True
