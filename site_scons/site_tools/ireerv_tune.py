"""scons tune: each dispatch's kernel configuration found by measuring candidates.

`scons tune MODEL=<name or folder> BOARD=<board> [BUDGET=n] [TUNE_SCHEDULER=tcp://host:port]`
writes <model folder>/tuning/<board>.mlir, which later builds of the model on that board
merge into the board's library, and <board>.json with every candidate and its cycles.
The logic is in ireerv.tune; rounds and private copies of the project live under
build/tune/<model>-<board>.
"""

from __future__ import annotations

import os
from pathlib import Path

import SCons.Action

from ireerv import targets
from ireerv.boards import Board, BoardError, choose_placement
from ireerv.formats import MODELS_DIR
from ireerv.formats.base import Model, ModelError
from ireerv.image import tuning as image_tuning
from ireerv.image.key import ImageKey
from ireerv.paths import BUILD, PROJECT_ROOT
from ireerv.release.release import ReleaseError
from ireerv.targets import Target
from ireerv.tune import interrupt, measure, record, schedule, spec, tuner
from ireerv.util.scons import build_error, user_error


def _say(line: str) -> None:
    print(line, flush=True)


def _runner(env, work: Path, jobs: int, cache: Path, outside: Path | None) -> tuner.Runner:
    if env["TUNE_SCHEDULER"]:
        _say(f"tune: candidates run on the Dask cluster at {env['TUNE_SCHEDULER']}")
        return schedule.DaskRunner(env["TUNE_SCHEDULER"], PROJECT_ROOT, cache,
                                   model_dir=outside)
    _say(f"tune: candidates run here, {jobs} at a time (private copies in "
         f"{work.relative_to(PROJECT_ROOT)})")
    return schedule.LocalRunner(PROJECT_ROOT, work, jobs, cache, outside)


def _tune(target, source, env):
    board, budget = env["BOARD"], int(env["BUDGET"])
    folder, files = env["_TUNE_FOLDER"], env["_TUNE_FILES"]
    # The rounds build the model as models/<name> of their copies of the project.
    model = folder.parent.name
    outside = None if folder.parent.parent == MODELS_DIR else folder.parent
    work = Path(env.Dir(f"{BUILD}/tune/{model}-{board}").abspath)
    work.mkdir(parents=True, exist_ok=True)
    # Without a team's build cache, one for every tune: the runtime is built once.
    cache = (Path(env["BUILD_CACHE"]).resolve() if env["BUILD_CACHE"]
             else work.parent / "build-cache")
    cache.mkdir(parents=True, exist_ok=True)
    jobs = os.cpu_count() or 1
    try:
        context = schedule.source_digest(PROJECT_ROOT, folder)
        store = tuner.Store(work / "rounds.json", context)
        with interrupt.watched():
            outcome = tuner.tune(model, board, budget, _runner(env, work, jobs, cache, outside),
                                 store, tuner.Progress(_say), files)
    except interrupt.Interrupted:
        # Said here: SCons reports an interrupted action as "Build interrupted" alone.
        _say("tune: interrupted; no tuning file written; the rounds that finished are kept "
             "and the next `scons tune` goes on from them")
        build_error("tune: interrupted")
    except (tuner.TuneError, schedule.ScheduleError, spec.SpecError, ReleaseError) as err:
        build_error(f"tune: {err}")
    written = record.write(folder, model, board, outcome.budget, outcome)
    _say(record.summary(record.document(model, board, outcome.budget, outcome)))
    for path in written:
        shown = path.relative_to(PROJECT_ROOT) if path.is_relative_to(PROJECT_ROOT) else path
        _say(f"tune: {shown}")
    if not outcome.chosen:
        _say("tune: no candidate beat the board's library; no tuning file is needed")


def _round_profile(env, board: Board, model: Model, name: str) -> str:
    """Where a round's `scons profile` of the model (as models/<name> of its copy of the
    project, every setting at its default but the tuning file) writes its record."""
    placed = choose_placement(board, "", model.placement)
    size = model.resolve_size(None)
    key = ImageKey.of(model=name, variant=name if size is None else f"{name}-{size}",
                      board=board.name, placement=placed.placement_name, size=size,
                      default_size=size, values={"REPEAT": measure.REPEAT})
    return env.File(f"{key.build_dir()}/profile.json").path  # from the project's top


def tune_target(env, board: Board, model: Model):
    """The tune of `model` (MODEL resolved once, by the request) on `board`."""
    folder = image_tuning.folder(model)
    if folder is None:
        user_error(ModelError(f"tune: MODEL={model.arg} is a single file: a tune is kept in "
                              "its model's folder (<folder>/tuning); give the folder as MODEL"))
    copied = schedule.copied_folder(folder.parent)
    try:  # in a round's copy of the project
        files = (f"{copied}/{image_tuning.FOLDER}/{board.name}.mlir",
                 _round_profile(env, board, model, folder.parent.name))
    except (BoardError, ModelError) as err:
        user_error(err)
    node = env.Override({"_TUNE_FOLDER": folder, "_TUNE_FILES": files}).Alias(
        "tune-session", [], SCons.Action.Action(_tune, None))
    env.AlwaysBuild(node)
    return node


def generate(env) -> None:
    targets.declare(env, Target(
        "tune", "find each dispatch's kernel configuration by measuring candidates on the "
        "board (MODEL, BOARD, BUDGET, TUNE_SCHEDULER); writes <model folder>/tuning/<board>.*",
        "measure", lambda env, request: env.Tune(request.board, request.model)))
    env.AddMethod(tune_target, "Tune")


def exists(env) -> bool:
    return True
