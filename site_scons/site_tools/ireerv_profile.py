"""scons profile: where the cycles of an image go, per function and per component.

Adds env.Profile(image): runs the image with tracing on (QEMU's execution log, or the
cluster model's +pctrace hook), prints start-up and the last call, and writes
profile.json, profile.txt and profile.svg beside the image; for models whose format
names its layers (ONNX, TFLite), the same call per layer in layers.json, .txt and .svg.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import SCons.Action
import SCons.Errors

from ireerv import simulators, targets
from ireerv.formats import model_format
from ireerv.formats.base import ModelError
from ireerv.harts import dispatch_names
from ireerv.image import iree_compile
from ireerv.profile import (
    analyze,
    capture,
    dispatch_map,
    layers,
    layers_plot,
    plot,
    program,
    report,
)
from ireerv.run import check, memory
from ireerv.run.echo import Echo
from ireerv.run.runner_output import RunnerOutputError, parse_runner_output
from ireerv.simulators import traces
from ireerv.simulators.base import Image, SimulationError
from ireerv.size.components import rules
from ireerv.targets import Target

# The modules that turn a trace into the profile (an action's signature covers only its
# own function's code).
_ANALYSIS = sorted(str(p) for p in Path(analyze.__file__).parent.glob("*.py"))


def _profile(target, source, env):
    image = env["_IMAGE"]
    board = image.board
    sim = env.SimulatorPath(board)
    print(f"profile: {image.model.name} on {board.build_name}"
          + (f" (N={image.size})" if image.size else ""), flush=True)
    meta = {"model": image.model.name, "board": board.name, "size": image.size,
            "runtime": image.runtime, "elf": Path(str(image.elf)).name}
    json_path, text_path, svg_path = (Path(str(t)) for t in target)
    try:
        prog = program.load_program(Path(str(image.dis)), Path(str(image.map)), rules())
        with tempfile.TemporaryDirectory(prefix="profile-", dir=json_path.parent) as tmp:
            trace_file = Path(tmp) / "trace.log"
            result = _traced_run(env, image, sim, trace_file)
            if not result.passed:
                raise analyze.ProfileError(_failure(image, result))
            echo = Echo("analysing the trace ", simulators.progress_unit(board.simulator))
            try:
                doc = capture.profile_from_trace(board.simulator, prog, trace_file,
                                                 result.program_output, meta, echo.progress)
            finally:
                echo.close()
    except (SimulationError, program.ProgramError, traces.TraceError,
            analyze.ProfileError) as err:
        raise SCons.Errors.BuildError(errstr=f"profile of {image.elf}: {err}") from None
    problems = report.validate(doc)
    if problems:  # an internal error: say so plainly
        raise SCons.Errors.BuildError(errstr="profile does not add up: " + "; ".join(problems))
    shown = report.shown_phases(doc)
    text = report.format_text(doc, int(env["TOP"]), shown)
    json_path.write_text(json.dumps(doc, indent=1) + "\n")
    text_path.write_text(text + "\n")
    svg_path.write_text(plot.render_svg(doc, shown))
    if not env["_QUIET"]:
        print(text)
    print(f"profile: {json_path}, {text_path}, {svg_path}")


def _traced_run(env, image, sim: Path, trace_file: Path):
    """The run with tracing on; while it is quiet, how far it is (as `scons run` says)."""
    echo = Echo("", simulators.progress_unit(image.board.simulator))
    try:
        return capture.traced_run(
            image.board.simulator, sim, Image(Path(image.elf.abspath), Path(image.hex.abspath)),
            trace_file, **simulators.limits(env),
            on_progress=echo.progress)
    finally:
        echo.close()


def _failure(image, result) -> str:
    """Why the traced run failed: the simulator's word, what the program reported and,
    printed first, where its memory went (as `scons run` says it)."""
    why = f"the traced run failed: {check.ended(result)}"
    try:
        parsed = parse_runner_output(result.program_output)
    except RunnerOutputError:
        return why
    if parsed.memory:
        print("\n".join(memory.report_run(Path(image.elf.abspath), image.board, parsed.memory,
                                           parsed.stacks)[1]))
    if parsed.status is not None and not parsed.ok:
        why += f"; {check.program_problem(parsed)}"
    return why


def _dispatch_layers(target, source, env):
    """Which layers each dispatch holds, from the flow-level IR with locations."""
    try:
        ir = iree_compile.flow_ir(env.IreeCompilePath(), env["_FLAGS"], Path(str(source[0])))
    except iree_compile.CompileError as err:
        raise SCons.Errors.BuildError(errstr=str(err)) from None
    mapping = dispatch_map.dispatch_layers(ir)
    Path(str(target[0])).write_text(json.dumps(mapping, indent=1) + "\n")


def _layer_profile(target, source, env):
    image = env["_IMAGE"]
    prof = json.loads(Path(str(source[0])).read_text())
    mapping = json.loads(Path(str(source[1])).read_text())
    try:
        table = model_format(image.model.format).layers(image.model)
    except ModelError as err:
        raise SCons.Errors.BuildError(errstr=f"per-layer profile: {err}") from None
    doc = layers.document(prof, report.shown_phases(prof)[-1], mapping, table)
    text = layers.format_text(doc)
    json_path, text_path, svg_path = (Path(str(t)) for t in target)
    json_path.write_text(json.dumps(doc, indent=1) + "\n")
    text_path.write_text(text + "\n")
    svg_path.write_text(layers_plot.render_svg(doc))
    if not env["_QUIET"]:
        print(text)
    print(f"profile: {json_path}, {text_path}, {svg_path}")


def _per_layer(env, image, profile_json, quiet: bool) -> list:
    """layers.json/.txt/.svg of an IREE image of a model whose format names its layers."""
    if image.mlir is None or model_format(image.model.format).layers is None:
        return []
    mapping = env.Command(f"{image.dir}/dispatch_layers.json",
                          [image.mlir, env.Value(" ".join(image.iree_flags))],
                          SCons.Action.Action(_dispatch_layers, None), _FLAGS=image.iree_flags)
    env.Depends(mapping, [dispatch_map.__file__,
                          *map(str, iree_compile.library_files(image.iree_flags))])
    table = env.Command([f"{image.dir}/layers.{ext}" for ext in ("json", "txt", "svg")],
                        [profile_json, mapping, str(image.model.given)],
                        SCons.Action.Action(_layer_profile, None), _IMAGE=image, _QUIET=quiet)
    env.Depends(table, [layers.__file__, layers_plot.__file__, dispatch_names.__file__])
    return table


def profile(env, image, always: bool = True):
    """The profile of `image`, and its per-layer profile.  always: run it on every request
    and print it (the `profile` target); otherwise only when the image changed, quietly
    (the bench)."""
    targets = [f"{image.dir}/profile.json", f"{image.dir}/profile.txt",
               f"{image.dir}/profile.svg"]
    action = SCons.Action.Action(_profile, None)
    node = env.Command(targets, [image.elf, image.hex, image.map, image.dis], action,
                       _IMAGE=image, _QUIET=not always)
    env.Depends(node, _ANALYSIS)  # a changed analysis makes new profiles of the same run
    if always:
        env.AlwaysBuild(node)  # it prints the profile: asking for it shows it
    return node + _per_layer(env, image, node[0], not always)


def generate(env) -> None:
    env.Tool("ireerv_run")  # the simulator, found or built
    env.AddMethod(profile, "Profile")
    targets.declare(env, Target(
        "profile", "run the image traced: cycles per function and component, start-up and a "
        "call", "measure", lambda env, request: env.Profile(request.image)))


def exists(env) -> bool:
    return True
