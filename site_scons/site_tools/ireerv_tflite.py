"""TFLite models translated to TOSA inside the build.

Adds env.TfliteImport(model) -> the TOSA MLIR node.  The logic is in
ireerv.formats (tflite_format, tflite_reader, tflite_tosa and their helpers).
"""

from __future__ import annotations

from pathlib import Path

from ireerv.formats.base import Model
from ireerv.util.scons import build_error, short_action
from ireerv.util.sources import module_files


def _import(target, source, env):
    from ireerv.formats import tflite_format
    from ireerv.formats.tflite_reader import TfliteError

    try:
        tflite_format.import_model(Path(str(source[0])), Path(str(target[0])))
    except TfliteError as err:
        build_error(err)


def generate(env) -> None:
    env.Append(BUILDERS={"TfliteImportFile": env.Builder(
        action=short_action(_import, "IMPORT"))})
    env.AddMethod(tflite_import, "TfliteImport")


def tflite_import(env, model: Model) -> list:
    """The TOSA of a TFLite model, written by the translator."""
    from ireerv.formats import tflite_format  # NumPy and the reader: for TFLite models only

    # The translator's modules are sources too: a change to any re-translates.
    return env.TfliteImportFile(str(model.mlir), [str(model.source),
                                                 *module_files(tflite_format)])


def exists(env) -> bool:
    return True
