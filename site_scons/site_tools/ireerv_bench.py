"""scons bench: the plan's images run on its board, tabled next to the reference figures.

Adds env.Bench(plan_name="matmul", cap_table=None) -> bench.json, bench.md and bench.svg in
build/bench/ (with the cap table of env.CapBench() when given); env.ModelsBench() ->
models.*; env.HartsBench(cap_table=None) -> harts.json, harts.md and harts.svg.
Loads ireerv_run for the runs; ModelImage comes from ireerv_image.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from SCons.Script import ARGUMENTS

from ireerv import simulators, targets
from ireerv.bench import calls, cap, harts, harts_chart, models_chart, output, table
from ireerv.bench import docs as bench_docs
from ireerv.bench import models as models_bench
from ireerv.bench import plan as bench_plan
from ireerv.boards import BoardError, choose_placement, load_board
from ireerv.formats import InputTree, ModelError, load_model, model_format
from ireerv.image import tuning as image_tuning
from ireerv.paths import BUILD, PROJECT_ROOT
from ireerv.profile import report as profile_report
from ireerv.targets import Target
from ireerv.util.files import atomic_write
from ireerv.util.scons import build_error, short_action, user_error


def _write_bench(target, source, env):
    docs = [json.loads(Path(str(s)).read_text()) for s in source if str(s).endswith(".json")]
    profiles = [d for d in docs if d.get("schema") == profile_report.SCHEMA]
    caps = [d for d in docs if d.get("schema") == cap.SCHEMA]
    results = [d for d in docs if d.get("schema") not in (profile_report.SCHEMA, cap.SCHEMA)]
    bench = calls.attach(table.collect(results, env["BENCH_IMAGES"], env["BENCH_PLAN"]),
                         profiles)
    if caps:
        bench["cap"] = caps[0]
    output.write(bench, Path(str(target[0])).parent)
    print(output.markdown(bench))
    failed = [r for r in results if not r.get("passed")]
    if failed:
        build_error(table.BenchError(f"bench: {len(failed)} of {len(results)} runs failed"))


def bench_target(env, plan_name: str = "matmul", cap_table=None):
    """Every image of the plan, run on its board (a failed run is a row that says so);
    with cap_table (env.CapBench()'s cap.json), its table goes into the bench's too."""
    plan = bench_plan.load_plan(plan_name)
    board, model = load_board(plan.board), load_model(plan.model, env.GetFetcher().path)
    sources, images = [], []
    for size in plan.sizes:
        for runtime in plan.runtimes:
            image = env.ModelImage(board, model, size, runtime)
            sources.append(env.RunResult(image, "bench-run.json", strict=False))
            images.append((size, runtime, str(image.elf)))
            if runtime == "iree":  # where the call's cycles go, for the per-call columns
                sources.append(env.Profile(image, always=False)[0])
    if cap_table is not None:
        sources.append(cap_table)
    return env.Command(
        [f"{BUILD}/bench/{name}" for name in ("bench.json", "bench.md", "bench.svg")],
        sources, short_action(_write_bench, "BENCH"), BENCH_IMAGES=images, BENCH_PLAN=plan)


def _read(node) -> dict:
    return json.loads(Path(str(node)).read_text())


@functools.cache  # each model is in the table once per board: read its file once
def _model_macs(name: str, input_tree: InputTree) -> int | None:
    """The model's multiply-accumulates per inference, when its format names its layers."""
    model = load_model(name, input_tree)
    layers = model_format(model.format).layers
    try:
        return sum(layer.macs for layer in layers(model)) if layers else None
    except ModelError as err:
        build_error(err)


def _write_models(target, source, env):
    measured = []
    for entry in env["MODELS_ENTRIES"]:
        run, size, profile, layers, untuned, tuning = (
            _read(source[i]) if i is not None else None for i in entry["sources"])
        measured.append(models_bench.Measured(
            entry["model"], entry["task"], entry["board"], entry["placement"], entry["unit"],
            run, size, profile, layers, _model_macs(entry["model"], env.GetFetcher().path),
            untuned, tuning))
    data = models_bench.table(measured, env["MODELS_PLAN"].references)
    json_path, md_path, svg_path = (Path(str(t)) for t in target)
    atomic_write(json_path, json.dumps(data, indent=2) + "\n")
    atomic_write(md_path, models_bench.markdown(data))
    atomic_write(svg_path, models_chart.render_svg(data))
    print(models_bench.markdown(data))
    failed = [r for r in data["rows"] if not r["passed"]]
    if failed:
        build_error(models_bench.ModelsPlanError(
            f"models bench: {len(failed)} of {len(data['rows'])} runs failed"))


def _profiled(env, image) -> list:
    """The image's profile and per-layer profile (JSON; None for a model without layers)."""
    profile = env.Profile(image, always=False)
    return [profile[0], next((n for n in profile if str(n).endswith("layers.json")), None)]


def models_bench_target(env, board: str | None = None):
    """Every model of bench/models.toml on every board of it, or on `board` alone:
    build/bench/models.*"""
    try:
        plan = models_bench.load_plan()
        boards = [load_board(name) for name in models_bench.select_boards(plan, board)]
        models = [(load_model(name, env.GetFetcher().path), task, prof)
                  for name, task, prof in plan.models]
    except (models_bench.ModelsPlanError, BoardError, ModelError) as err:
        user_error(err)
    sources, entries = [], []
    for model, task, profiled in models:
        for board in boards:
            placed = choose_placement(board, "", model.placement)
            image = env.ModelImage(placed, model, None, "iree")
            picks = [env.RunResult(image, "bench-run.json", strict=False)[0],
                     env.SizeReportFiles(image)[0], None, None, None, None]
            if profiled and board.name == plan.profile_board:
                picks[2:4] = _profiled(env, image)
            if image_tuning.used_by(model, board):  # tuned: untuned beside it
                untuned = env.ModelImage(placed, model, None, "iree", tuning=image_tuning.UNTUNED)
                picks[4] = env.RunResult(untuned, "bench-run.json", strict=False)[0]
                record = image_tuning.record_path(model, board)  # none: no kernels' figures
                picks[5] = env.File(str(record)) if record else None
            index = [None if p is None else len(sources) + sum(q is not None for q in picks[:i])
                     for i, p in enumerate(picks)]
            sources += [p for p in picks if p is not None]
            entries.append({"model": model.name, "task": task, "board": board.name,
                            "placement": placed.placement_name,
                            "unit": simulators.progress_unit(board.simulator),
                            "sources": index})
    # The plan and the published figures: an edit of either makes the table anew.
    sources += [env.File(str(models_bench.PLAN_FILE)), env.File(str(models_bench.PUBLISHED_FILE))]
    return env.Command([f"{BUILD}/bench/models.{ext}" for ext in ("json", "md", "svg")],
                       sources, short_action(_write_models, "BENCH"),
                       MODELS_ENTRIES=entries, MODELS_PLAN=plan)


def _write_harts(target, source, env):
    layers = {path: key for *key, path in env["HARTS_LAYERS"]}
    docs = [_read(s) for s in source if str(s).endswith(".json") and str(s) not in layers]
    caps = [d for d in docs if d.get("schema") == cap.SCHEMA]
    records = [d for d in docs if d.get("schema") != cap.SCHEMA]
    profiles = {tuple(key): _read(path) for path, key in layers.items()}
    result = harts.collect(records, env["HARTS_PLAN"], caps[0] if caps else None,
                           env["SOFTFLOAT"], profiles)
    harts_chart.write(result, Path(str(target[0])).parent)
    print(harts.markdown(result))
    failed = [r for r in records if not r.get("passed")]
    if failed:
        build_error(table.BenchError(f"harts bench: {len(failed)} of {len(records)} runs failed"))


def harts_bench_target(env, cap_table=None):
    """Each row of the [harts] plan with each of its hart counts: build/bench/harts.*; with
    cap_table (env.CapBench()'s cap.json) each row stands next to its cap."""
    try:
        plan = harts.load_harts_plan()
        board = load_board(plan.board)
        models = {name: load_model(name, env.GetFetcher().path)
                  for name in dict.fromkeys(r.model for r in plan.rows)}
    except (bench_plan.PlanError, BoardError, ModelError) as err:
        user_error(err)
    placed = {name: choose_placement(board, "", model.placement)
              for name, model in models.items()}  # as the model.toml asks
    sources, layers = [], []
    for row in plan.rows:
        for h in plan.harts:
            if h == harts.AUTO and row.runtime != "iree":
                continue  # plain C has no HARTS=auto
            image = env.ModelImage(placed[row.model], models[row.model], row.size,
                                   row.runtime, harts=h)
            sources.append(env.RunResult(image, "bench-run.json", strict=False)[0])
            if row.layers:  # the network's per-layer profile with h harts
                found = _profiled(env, image)[1]
                if found is not None:
                    sources.append(found)
                    layers.append((row.model, str(h), str(found)))
    if cap_table is not None:
        sources.append(cap_table)
    # what the table takes from the plan beyond the runs: the cap loops and the soft-float
    sources.append(env.Value(json.dumps({"cap": dict(plan.cap), "softfloat": env["SOFTFLOAT"]},
                                        sort_keys=True)))
    return env.Command([f"{BUILD}/bench/harts.{ext}" for ext in ("json", "md", "svg")],
                       sources, short_action(_write_harts, "BENCH"), HARTS_PLAN=plan,
                       HARTS_LAYERS=layers)


def generate(env) -> None:
    env.Tool("ireerv_run")
    env.Tool("ireerv_profile")
    env.Tool("ireerv_size")
    env.Tool("ireerv_cap")  # bench and bench-harts show the cap beside their rows
    env.AddMethod(bench_target, "Bench")
    env.AddMethod(models_bench_target, "ModelsBench")
    env.AddMethod(harts_bench_target, "HartsBench")
    targets.declare(
        env,
        Target("bench", "run the reference tables on the cluster: matmul 4/16/32, IREE and "
               "plain C; the cap table (cap); the harts table (bench-harts); softfloat-bench "
               "and models-bench", "measure", _bench),
        Target("models-bench", "every model of the models bench (bench/models.toml) on each "
               "of its boards (BOARD= on the command line: that board's rows alone): per "
               "inference, image, RAM, verdict, soft-float share", "measure",
               lambda env, request: env.ModelsBench(ARGUMENTS.get("BOARD"))),
        Target("docs-figures", "copy the bench's JSON into docs/figures/ and make the docs' "
               "figure tables from it (runs bench first)", "measure", _docs_figures),
        Target("bench-harts", "the harts table of bench alone: matmul 16/32/64 (IREE and plain "
               "C), the MLP, qmatmul64 and the MLPerf Tiny networks with HARTS=1, 2, 4 and auto "
               "on the cluster, next to the cap (runs cap too)", "measure",
               lambda env, request: env.HartsBench(cap_table=request.built("cap")[0])))


def _docs_figures(env, request):
    """Copy the bench's JSON into docs/figures/ and rewrite the docs' marked tables."""
    request.built("bench")
    sources = [f"{BUILD}/bench/{name}" for name in bench_docs.RENDERERS]
    node = env.Alias("docs-figures-run", sources, env.Action(_write_docs, "DOCS    figures"))
    env.AlwaysBuild(node)
    return node


def _write_docs(target, source, env):
    bench_docs.FIGURES.mkdir(exist_ok=True)
    for node in source:
        path = Path(str(node))
        text = json.dumps(json.loads(path.read_text()), indent=2, sort_keys=True) + "\n"
        (bench_docs.FIGURES / path.name).write_text(text)
    for page in bench_docs.pages():
        page.write_text(bench_docs.update(page.read_text()))
        print(f"  {page.relative_to(PROJECT_ROOT)}")


def _bench(env, request) -> list:
    return [env.Bench(cap_table=request.built("cap")[0]),
            *(request.built(name) for name in ("softfloat-bench", "models-bench", "cap",
                                               "bench-harts"))]


def exists(env) -> bool:
    return True
