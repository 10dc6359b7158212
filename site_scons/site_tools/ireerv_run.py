"""Running images in simulation: the simulator and one checked run.

Adds env.Simulator(board), env.RunResult(image) (the run record, a JSON file
rebuilt when the image or a tool changes) and env.RunImage(image) (always runs).
"""

from __future__ import annotations

from pathlib import Path

import SCons.Action
import SCons.Errors
import SCons.Script

from ireerv import formats, simulators, targets
from ireerv.boards import Board
from ireerv.formats import given_data
from ireerv.formats.base import FrameworkReference
from ireerv.inputs import identity
from ireerv.inputs.fetch import FetchError
from ireerv.paths import BUILD
from ireerv.reference import host
from ireerv.run import check, memory
from ireerv.run.echo import Echo
from ireerv.run.record import RunRecord
from ireerv.simulators.base import INTERRUPTED, Image, SimulationError
from ireerv.targets import Target
from ireerv.util.buildlog import BuildError


def _action(function, label: str):
    return SCons.Action.Action(
        function, strfunction=lambda target, source, env: f"{label:<8}{target[0]}")


def _simulator_path(env, board: Board) -> Path:
    """The board's simulator: found on PATH, or built on demand into the cache."""
    try:
        return simulators.prepare(board.simulator, env.GetFetcher(),
                                  Path(env["CACHE_DIR"]) / "logs")
    except (FetchError, BuildError, SimulationError) as err:
        raise SCons.Errors.BuildError(errstr=str(err)) from None


def _build_simulator(target, source, env):
    path = _simulator_path(env, env["BOARD_SPEC"])
    print(f"simulator: {path}")


def simulator(env, board: Board):
    node = env.Alias(f"simulator-{board.name}", [],
                     SCons.Action.Action(_build_simulator, None), BOARD_SPEC=board)
    env.AlwaysBuild(node)
    return node


def _reference(env, image) -> tuple[list | None, str]:
    """The host reference outputs, or None and why not (never an exception)."""
    from ireerv.image import iree_compile

    model = image.model
    timeout = simulators.limits(env)["timeout"] or image.board.simulator.timeout
    framework = _framework(model)
    if framework:  # imported: the framework's runtime on the original file
        try:
            return framework.compute(model, model.generate_inputs(image.size), timeout), ""
        except (host.ReferenceError, OSError) as err:
            return None, str(err)
    try:
        module = iree_compile.module_name(model.mlir.read_text())
        return host.compute(Path(str(env["_VMFB"])), model.function,
                            model.generate_inputs(image.size), module=module,
                            timeout=timeout), ""
    except (host.ReferenceError, OSError) as err:
        return None, str(err)


def _simulate(env, image):
    """One run of `image` on its board's simulator, shown as it comes."""
    board = image.board
    sim = _simulator_path(env, board)
    what = f"application {Path(image.key.value('APP')).name}" if image.runtime == "app" \
        else image.model.name
    print(f"run: {what} on {board.build_name}"
          + (f" (N={image.size})" if image.size else ""), flush=True)
    # With -j, runs share the terminal: tag each line with its image.
    parallel = SCons.Script.GetOption("num_jobs") > 1
    echo = Echo(f"[{Path(image.dir).name}] " if parallel else "",
                 simulators.progress_unit(board.simulator))
    try:
        result = simulators.run(
            board.simulator, sim, Image(Path(image.elf.abspath), Path(image.hex.abspath)),
            **simulators.limits(env), on_output=echo,
            on_progress=echo.progress)
    except SimulationError as err:
        raise SCons.Errors.BuildError(errstr=str(err)) from None
    finally:
        echo.close()
    if result.reason == INTERRUPTED:  # SCons removed the old record before the run
        raise SCons.Errors.BuildError(errstr=f"{what} on {board.build_name}: "
                                      f"{result.detail}; no run record written")
    return result


def _run_app(target, source, env):
    """An application's run: it passes when its main returns 0."""
    image = env["_IMAGE"]
    result = _simulate(env, image)
    verdict = check.judge_app(result)
    RunRecord.of(image, verdict, result).write(Path(str(target[0])))
    if not verdict.passed:
        raise SCons.Errors.BuildError(errstr=f"application on {image.board.name} FAILED: "
                                      + "; ".join(verdict.problems))
    print("PASS: the application's main returned 0")


def _run_and_check(target, source, env):
    image = env["_IMAGE"]
    result = _simulate(env, image)
    expected, why_not = _reference(env, image)
    if expected is not None:
        expected, notes = check.as_program_gives(expected)
        origin_notes = getattr(image.model.origin, "notes", ())
        for note in [*origin_notes, *image.model.demoted, *notes]:
            print(f"converted: {note}")
    verdict = check.judge(result, expected, _rule(image.model), why_not)
    if len(target) > 1 and verdict.parsed and verdict.parsed.outputs:  # OUTPUT=
        given_data.write_outputs(Path(str(target[1])), image.model, verdict.parsed.outputs)
        print(f"outputs: {target[1]}")
    peaks = _memory(env, image, verdict.parsed)
    # Also on failure: the record says what failed (no later build trusts a failed target).
    RunRecord.of(image, verdict, result, peaks).write(Path(str(target[0])))
    _report(env, image, verdict)


def _memory(env, image, parsed) -> list[memory.RegionPeak]:
    """The run's peak memory per region, said in one line (and FIT=1: what it needs)."""
    if parsed is None or not parsed.memory:
        return []
    peaks, lines = memory.report_run(Path(image.elf.abspath), image.board, parsed.memory,
                                     parsed.stacks, bool(env.get("FIT")))
    print("\n".join(lines))
    return peaks


def _framework(model) -> FrameworkReference | None:
    """The framework whose runtime gives the model's reference, if its format has one."""
    return formats.model_format(model.format).reference


def _rule(model) -> check.Rule:
    """Imported models: f32 within atol + rtol, integers within one quantisation step."""
    if _framework(model):
        return check.Rule(atol=_framework(model).tolerance(model), rtol=model.rtol, int_step=1)
    return check.Rule(atol=model.tolerance)


def _report(env, image, verdict) -> None:
    parsed = verdict.parsed
    if parsed and parsed.startup_cycles is not None:
        calls = ", ".join(f"{c:,}" for c in parsed.call_cycles) or "none finished"
        warm = (f"; warm-up {parsed.warmup_cycles:,}" if parsed.warmup_cycles is not None
                else "")
        print(f"cycles: start-up {parsed.startup_cycles:,}{warm}; calls {calls}")
    if parsed and parsed.workgroups:
        print(f"harts: {image.harts}; workgroups per dispatch: {' '.join(parsed.workgroups)}; "
              f"cycles per hart on its shares: {', '.join(f'{c:,}' for c in parsed.hart_cycles)}")
    elif parsed and parsed.call_cycles and image.harts > 1 and image.runtime == "iree":
        print(f"harts: {image.harts}, unused: every dispatch has one workgroup, so the image "
              "is built as one hart's")
    framework = _framework(image.model)
    if verdict.worst and (framework or not verdict.passed):
        print(f"worst element: {verdict.worst}")
    if not verdict.passed:
        if not env["_STRICT"]:  # the bench shows the failure in its table
            print(f"FAILED: {'; '.join(verdict.problems)}")
            return
        suspect = framework.suspect(image.model) if framework and framework.suspect else None
        raise SCons.Errors.BuildError(
            errstr=f"{image.model.name} on {image.board.name} FAILED: "
            + "; ".join(verdict.problems) + (f" (in {suspect})" if suspect else ""))
    against = framework.label(image.model) if framework else "the host reference"
    print(f"PASS: {sum(o.size for o in parsed.outputs)} output elements match {against} "
          f"({_rule(image.model).describe()})")


def _compile_host(target, source, env):
    try:
        host.compile_for_host(env["_IREE_COMPILE"](), Path(str(source[0])),
                              Path(str(target[0])))
    except (host.ReferenceError, FetchError) as err:
        raise SCons.Errors.BuildError(errstr=str(err)) from None


def run_result(env, image, name: str = "run.json", strict: bool = True, output: str = ""):
    """The checked result of running `image`, as JSON beside it, and its outputs as an .npz
    at `output` when given.

    Strict: a failed run fails the build.  Otherwise the failure is recorded
    in the JSON, for a table that shows it."""
    model = image.model
    records = [f"{image.dir}/{name}", *([env.File(output)] if output else [])]
    if image.runtime == "app":  # judged by how it ends, not by a reference
        tools = env.Value(_simulator_identity(env, image.board))
        return env.Command(records[0], [image.elf, image.hex, tools],
                           _action(_run_app, "RUN"), _IMAGE=image)
    framework = _framework(model)
    if framework:  # the framework runs the original file: no host compile
        tools = env.Value(f"{framework.identity()}\n{_simulator_identity(env, image.board)}")
        return env.Command(records,
                           [image.elf, image.hex, *map(str, framework.sources(model)), tools],
                           _action(_run_and_check, "RUN"), _IMAGE=image, _STRICT=strict)
    # The tools are dependencies too: the compiler of the reference, the runtime that
    # runs it, and the simulator that runs the image.
    vmfb = env.Command(f"{BUILD}/host/{model.name}.vmfb",
                       [str(model.mlir), env.Value(" ".join([identity.compiler(env["LOCK"]),
                                                             *host.HOST_FLAGS]))],
                       _action(_compile_host, "HOST"),
                       _IREE_COMPILE=env.IreeCompilePath)
    tools = env.Value(f"{identity.host_runtime()}\n{_simulator_identity(env, image.board)}")
    node = env.Command(records, [image.elf, image.hex, vmfb, tools],
                       _action(_run_and_check, "RUN"), _IMAGE=image, _VMFB=vmfb[0],
                       _STRICT=strict)
    return node


def _simulator_identity(env, board: Board) -> str:
    return simulators.identity(board.simulator, env.GetFetcher())


def run_image(env, image):
    node = run_result(env, image, output=env.get("OUTPUT", ""))
    env.AlwaysBuild(node)
    env.NoCache(node)  # `scons run` runs: a team's build cache never answers for it
    return node


def generate(env) -> None:
    env.Tool("ireerv_image")  # images to run, and the compiler of the host reference
    env.AddMethod(simulator, "Simulator")
    env.AddMethod(_simulator_path, "SimulatorPath")
    env.AddMethod(run_result, "RunResult")
    env.AddMethod(run_image, "RunImage")
    targets.declare(
        env,
        Target("run", "build and run the image in simulation; check outputs against the host "
               "reference (the framework's runtime for ONNX and TFLite models)", "measure",
               lambda env, request: env.RunImage(request.image)),
        Target("simulator", "build the simulator of BOARD (the Verilator cluster model for "
               "cluster4)", "inputs", lambda env, request: env.Simulator(request.board)))


def exists(env) -> bool:
    return True
