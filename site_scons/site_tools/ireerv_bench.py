"""scons bench: the plan's images run on its board, tabled next to the reference figures.

Adds env.Bench(plan_name="matmul") -> bench.json, bench.md and bench.svg in build/bench/.
Loads ireerv_run for the runs; ModelImage comes from ireerv_image.
"""

from __future__ import annotations

import json
from pathlib import Path

from ireerv.bench import calls, output, table
from ireerv.bench import plan as bench_plan
from ireerv.boards import load_board
from ireerv.image.models import load_model
from ireerv.paths import BUILD
from ireerv.profile import report as profile_report
from ireerv.util.scons import build_error, short_action


def _write_bench(target, source, env):
    docs = [json.loads(Path(str(s)).read_text()) for s in source if str(s).endswith(".json")]
    profiles = [d for d in docs if d.get("schema") == profile_report.SCHEMA]
    results = [d for d in docs if d.get("schema") != profile_report.SCHEMA]  # run records
    bench = calls.attach(table.collect(results, env["BENCH_IMAGES"], env["BENCH_PLAN"]),
                         profiles)
    output.write(bench, Path(str(target[0])).parent)
    print(output.markdown(bench))
    failed = [r for r in results if not r.get("passed")]
    if failed:
        build_error(table.BenchError(f"bench: {len(failed)} of {len(results)} runs failed"))


def bench_target(env, plan_name: str = "matmul"):
    """Every image of the plan, run on its board (a failed run is a row that says so)."""
    plan = bench_plan.load_plan(plan_name)
    board, model = load_board(plan.board), load_model(plan.model)
    sources, images = [], []
    for size in plan.sizes:
        for runtime in plan.runtimes:
            image = env.ModelImage(board, model, size, runtime)
            sources.append(env.RunResult(image, "bench-run.json", strict=False))
            images.append((size, runtime, str(image.elf)))
            if runtime == "iree":  # where the call's cycles go, for the per-call columns
                sources.append(env.Profile(image, always=False)[0])
    return env.Command(
        [f"{BUILD}/bench/{name}" for name in ("bench.json", "bench.md", "bench.svg")],
        sources, short_action(_write_bench, "BENCH"), BENCH_IMAGES=images, BENCH_PLAN=plan)


def generate(env) -> None:
    env.Tool("ireerv_run")
    env.Tool("ireerv_profile")
    env.AddMethod(bench_target, "Bench")


def exists(env) -> bool:
    return True
