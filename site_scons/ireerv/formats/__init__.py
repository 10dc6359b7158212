"""Model formats: each one a module with a FORMAT (ireerv.formats.base.ModelFormat).

Adding a format is its module and one line in FORMAT_MODULES.  `load_model` finds the one
format that claims a MODEL (a name in models/ or a path) and loads it.  The built-in
formats' claims are in claims.py, so that finding a model's format imports that format's
module alone: loading an MLIR model imports no ONNX, TFLite or NumPy.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import import_module
from pathlib import Path

from ireerv.formats.base import InputTree, Model, ModelError, ModelFormat
from ireerv.formats.claims import CLAIMS
from ireerv.paths import PROJECT_ROOT

MODELS_DIR = PROJECT_ROOT / "models"

# The registry: one line per format, its name and its module in this package.
FORMAT_MODULES = {
    "mlir": "mlir_format",
    "importer-mlir": "importer_mlir",
    "onnx": "onnx_format",
    "tflite": "tflite_format",
}


def model_format(name: str) -> ModelFormat:
    """The format `name` (imported on first use)."""
    return import_module(f"{__name__}.{FORMAT_MODULES[name]}").FORMAT


def all_formats() -> list[ModelFormat]:
    return [model_format(name) for name in FORMAT_MODULES]


def _claims(name: str, path: Path) -> bool:
    """Whether format `name` claims `path`; a format without a light claim is imported."""
    claims = CLAIMS.get(name) or model_format(name).claims
    return claims(path)


def list_models() -> list[str]:
    return sorted(p.parent.name for p in MODELS_DIR.glob("*/model.toml"))


def mlir_models() -> list[str]:
    """The models written in MLIR (not imported from a framework's file)."""
    return [name for name in list_models() if (MODELS_DIR / name / "model.mlir").is_file()]


# A model's folder or file name names its build folder, which reaches compiler command
# lines SCons runs through a shell: a path may hold only characters no shell reads.
PATH_PUNCTUATION = " ._-+/@,"
PATH_CHARS_HELP = "letters, digits, spaces and " + " ".join(PATH_PUNCTUATION.strip())


def check_path_chars(spec: str, path: Path | None = None) -> None:
    """Refuse a MODEL (as given, and `path`, where it resolves to) with a character a
    shell could read as a command, a quote or a substitution."""
    for text in (spec, str(path) if path is not None else ""):
        bad = next((c for c in text if not (c.isalnum() or c in PATH_PUNCTUATION)), None)
        if bad is not None:
            where = repr(spec) if text == spec else f"{spec!r} (resolved: {text!r})"
            raise ModelError(f"MODEL path {where} has the character {bad!r}; a model's path "
                             f"may hold only {PATH_CHARS_HELP}")


def _unknown(spec: str) -> ModelError:
    return ModelError(
        f"unknown model {spec!r}; models: {', '.join(list_models())} "
        "(or a path to a model folder, an .onnx or .tflite file or a static-shape .mlir)")


def is_named(spec: str) -> bool:
    """The one rule: MODEL names a folder of models/ (`kws`), rather than giving a path."""
    return bool(spec) and "/" not in spec and (MODELS_DIR / spec).is_dir()


def canonical_model(spec: str) -> str:
    """MODEL in one spelling: a model folder of models/ by its name, however it was written
    (`kws`, `models/kws`, `./models/kws/` or its absolute path); any other path as given."""
    if not spec or is_named(spec):
        return spec
    path = Path(spec).resolve()
    if path.is_dir() and path.parent == MODELS_DIR.resolve():
        return path.name
    return spec


def load_model(spec: str, input_tree: InputTree | None = None) -> Model:
    """MODEL resolved, once, into the Model every later step takes: a model by name (a
    folder under models/) or by path (a folder or a file), with its one spelling (`arg`)
    and its folder; the files it takes from toolchain.lock inputs are found through
    `input_tree` (a build's fetcher's `path`), else with the IREERV_* variables' settings."""
    model, path = _load(spec, input_tree)
    # A folder holds the model's tuning; a single file has none.
    return replace(model, arg=canonical_model(spec), folder=path if path.is_dir() else None)


def _load(spec: str, input_tree: InputTree | None) -> tuple[Model, Path]:
    """The Model, and the path MODEL resolved to."""
    if not spec:
        raise ModelError(f"no MODEL given; models: {', '.join(list_models())}")
    check_path_chars(spec)
    named = is_named(spec)
    path = MODELS_DIR / spec if named else Path(spec)
    if not path.exists():
        if path.suffix in (".mlir", ".onnx", ".tflite"):
            raise ModelError(f"{path.suffix[1:].upper()} file {path} does not exist")
        raise _unknown(spec)
    found = [name for name in FORMAT_MODULES if _claims(name, path)]
    if len(found) > 1:
        raise ModelError(f"{path} holds a model in several formats "
                         f"({', '.join(found)}): keep one of them")
    if not found:
        if path.is_dir():
            raise ModelError(f"model folder {path} has no model.mlir, model.onnx or "
                             "model.tflite (nor a model.toml with a [tflite] table)")
        raise _unknown(spec)
    if named:
        return model_format(found[0]).load(path, input_tree), path
    check_path_chars(spec, path.resolve())
    return model_format(found[0]).load(path.resolve(), input_tree), path.resolve()


def quantized(model: Model, quantize: str) -> Model:
    """The model as QUANTIZE asks: as it is (model), or int8: a float ONNX model quantized
    by the build (onnx_quantize.py); for any other, one line saying what to do instead."""
    if quantize != "int8":
        return model
    if model.format == "onnx":  # the format's module, as loading it imported it
        return import_module(f"{__name__}.{FORMAT_MODULES['onnx']}").as_int8(model)
    if model.format == "tflite":
        raise ModelError(f"QUANTIZE=int8 quantizes float ONNX models; {model.given} is TFLite: "
                         "quantize it when converting (TensorFlow's TFLiteConverter with "
                         "Optimize.DEFAULT and a representative dataset) and build the int8 "
                         ".tflite, or export the float network to ONNX")
    raise ModelError(f"QUANTIZE=int8 quantizes float ONNX models, not {model.format} models "
                     f"({model.given})")
