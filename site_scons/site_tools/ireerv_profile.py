"""scons profile: where the cycles of an image go, per function and per component.

Adds env.Profile(image): runs the image with tracing on (QEMU's execution log, or the
cluster model's +pctrace hook), prints start-up and the last call, and writes
profile.json, profile.txt and profile.svg beside the image.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import SCons.Action
import SCons.Errors

from ireerv import targets
from ireerv.profile import analyze, capture, plot, program, report
from ireerv.simulators import traces
from ireerv.simulators.base import Image, SimulationError
from ireerv.size.components import rules
from ireerv.targets import Target


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
            result = capture.traced_run(
                board.simulator, sim, Image(Path(image.elf.abspath), Path(image.hex.abspath)),
                trace_file, timeout=float(env["TIMEOUT"]) if env["TIMEOUT"] else None,
                maxcycles=int(env["MAXCYCLES"]) if env["MAXCYCLES"] else None)
            if not result.passed:
                raise analyze.ProfileError(f"the traced run failed: {result.detail}")
            doc = capture.profile_from_trace(board.simulator, prog, trace_file,
                                             result.program_output, meta)
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


def profile(env, image, always: bool = True):
    """The profile of `image`.  always: run it on every request and print it (the
    `profile` target); otherwise only when the image changed, quietly (the bench)."""
    targets = [f"{image.dir}/profile.json", f"{image.dir}/profile.txt",
               f"{image.dir}/profile.svg"]
    action = SCons.Action.Action(_profile, None)
    node = env.Command(targets, [image.elf, image.hex, image.map, image.dis], action,
                       _IMAGE=image, _QUIET=not always)
    if always:
        env.AlwaysBuild(node)  # it prints the profile: asking for it shows it
    return node


def generate(env) -> None:
    env.Tool("ireerv_run")  # the simulator, found or built
    env.AddMethod(profile, "Profile")
    targets.declare(env, Target(
        "profile", "run the image traced: cycles per function and component, start-up and a "
        "call", "measure", lambda env, request: env.Profile(request.image)))


def exists(env) -> bool:
    return True
