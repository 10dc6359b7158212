"""scons layer-check: which layer of an ONNX or TFLite model differs from the framework's
runtime (ONNX Runtime, LiteRT).

The model is copied with every layer's output a graph output (ireerv.formats.layers),
built and run on the board like the model itself, and each output is checked, in the
graph's order, against the framework's intermediate tensor with the model's own rule.
"""

from __future__ import annotations

import json
from pathlib import Path

import SCons.Action
import SCons.Errors

from ireerv import formats, simulators, targets
from ireerv.formats import layers
from ireerv.paths import BUILD
from ireerv.run import check
from ireerv.run.runner_output import RunnerOutputError, parse_runner_output
from ireerv.simulators.base import Image, SimulationError
from ireerv.targets import Target
from ireerv.util.scons import build_error


def _check_layers(target, source, env):
    image, folder = env["LAYER_IMAGE"], Path(env["LAYER_FOLDER"])
    model, board = image.model, image.board
    print(f"layer check: {model.name} on {board.name}", flush=True)
    try:
        result = simulators.run(board.simulator, env.SimulatorPath(board),
                                Image(Path(image.elf.abspath), Path(image.hex.abspath)))
        outputs = parse_runner_output(result.program_output).outputs
        framework = formats.model_format(model.format).reference
        wanted, _ = check.as_program_gives(framework.compute(
            model, model.generate_inputs(None), board.simulator.timeout))
    except (SimulationError, RunnerOutputError, formats.ModelError, OSError) as err:
        build_error(f"layer check: {err}")
    except Exception as err:  # the reference's own failure (ReferenceError)
        build_error(f"layer check: {err}")
    if len(outputs) != len(wanted):
        build_error(f"layer check: the image printed {len(outputs)} of {len(wanted)} layer "
                    f"outputs ({result.detail})")
    rule = check.Rule(atol=framework.tolerance(model), rtol=model.rtol, int_step=1)
    problems = [(check.compare([g], [w], rule) or [None])[0] for g, w in zip(outputs, wanted,
                                                                              strict=True)]
    worst = [layers.largest_difference(g, w) for g, w in zip(outputs, wanted, strict=True)]
    line = layers.first_difference(layers.layers(folder), problems, worst)
    Path(str(target[0])).write_text(json.dumps({"report": line, "problems": problems}) + "\n")
    print(line)


def layer_check(env, request):
    model = request.model
    folder = Path(env.Dir(f"{BUILD}/layers/{model.name}-layers").abspath)
    try:
        layers.expose(model, folder)  # reading the model: no longer than loading it
    except formats.ModelError as err:
        raise SCons.Errors.StopError(str(err)) from None
    exposed = formats.load_model(str(folder), env.GetFetcher().path)
    image = env.ModelImage(request.placed_board, exposed, None, "iree")
    node = env.Command(f"{image.dir}/layers.json", [image.elf, image.hex],
                       SCons.Action.Action(_check_layers, None), LAYER_IMAGE=image,
                       LAYER_FOLDER=str(folder))
    env.AlwaysBuild(node)
    return node


def generate(env) -> None:
    env.Tool("ireerv_run")  # images and their simulators
    targets.declare(env, Target(
        "layer-check", "which layer of an ONNX or TFLite MODEL differs: every layer's output "
        "on the device against the framework's, in the graph's order", "measure",
        layer_check))


def exists(env) -> bool:
    return True
