"""scons release / release-check: hermetic, bit-for-bit reproducible images in dist/.

Adds env.Release(image) and env.ReleaseCheck(image).  SConstruct calls
prepare_environment() first, so the whole build runs with a scrubbed
environment and SOURCE_DATE_EPOCH from the last commit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import SCons.Action
import SCons.Errors

from ireerv import targets
from ireerv.image import tuning as image_tuning
from ireerv.inputs import toolchain_build
from ireerv.paths import PROJECT_ROOT
from ireerv.release import digests, explain, release
from ireerv.runtime import iree_build
from ireerv.targets import Target
from ireerv.util.files import sha256_file

DIST = PROJECT_ROOT / "dist"


def prepare_environment(env) -> dict:
    """Check the source tree and scrub the environment; returns the source state."""
    try:
        state = release.source_state(PROJECT_ROOT)
        release.check_clean(state, bool(env["ALLOW_DIRTY"]))
    except release.ReleaseError as err:
        raise SCons.Errors.StopError(str(err)) from None
    scrubbed = release.scrubbed_environment(state["source_date_epoch"])
    os.environ.clear()
    os.environ.update(scrubbed)
    env["ENV"] = dict(scrubbed)
    env["_RELEASE_STATE"] = state
    return state


def _release_dir(env, image) -> Path:
    return DIST / image.key.release_name(env["_RELEASE_STATE"]["version"])


def _path_map(env) -> dict[str, str]:
    caches = [env["CACHE_DIR"], *([env["SHARED_CACHE"]] if env.get("SHARED_CACHE") else [])]
    return {**{str(Path(c).resolve()): "$CACHE_DIR" for c in caches}, str(PROJECT_ROOT): "."}


def _version(cmd: list[str], lines: int = 1) -> str:
    """The first `lines` lines a tool prints for --version, joined."""
    proc = subprocess.run([*cmd, "--version"], capture_output=True, text=True)
    out = (proc.stdout + proc.stderr).strip().splitlines()
    return " | ".join(line.strip() for line in out[:lines]) if out else "?"


def _model_entry(image) -> dict:
    """What the user gave: the model's files and the tuning it was compiled with."""
    model = image.model
    source = model.given
    given = {"name": model.name, "function": model.function, "size": image.size,
             "runtime": image.runtime,
             "mlir": str(source.relative_to(PROJECT_ROOT))
             if source.is_relative_to(PROJECT_ROOT) else source.name,
             "mlir-sha256": sha256_file(source)}
    if model.data_files:
        given["data-files"] = release.data_files(source, model.data_files)
    tunings = (image_tuning.used_by(image.model, image.board, image.key.value("TUNING"))
               if image.runtime == "iree" else ())
    # The tuned kernel configurations the image was compiled with: the board's own, and
    # the one it borrows from another board.
    for tuning in tunings:
        name = "tuning-borrowed" if image_tuning.borrowed(tuning, image.board) else "tuning"
        given |= {name: tuning.relative_to(PROJECT_ROOT).as_posix(),
                  f"{name}-sha256": sha256_file(tuning)}
    return given


def _write_release(target, source, env):
    image = env["RELEASE_IMAGE"]
    out = Path(target[0].abspath).parent
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    paths = _path_map(env)
    shutil.copyfile(image.elf.abspath, out / "image.elf")
    shutil.copyfile(image.hex.abspath, out / "image.hex")
    map_text = Path(image.map.abspath).read_text()
    (out / "image.map").write_text(release.normalize_map(map_text, paths))
    shutil.copyfile(str(source[-1]), out / "size-report.json")
    outputs = {name: sha256_file(out / name)
               for name in ("image.elf", "image.hex", "image.map", "size-report.json")}
    lock = env["LOCK"]
    tc = image.env
    tools = {"gcc": _version([tc["CC"]]),
             "ld": _version([str(tc["TOOLCHAIN"].tool("ld"))])}
    flags = {
        "CCFLAGS": [release.normalize_map(str(f), paths) for f in tc.subst_list("$CCFLAGS")[0]],
        "LINKFLAGS": [release.normalize_map(str(f), paths) for f in tc.subst_list("$LINKFLAGS")[0]],
    }  # PROFILE, SOFTFLOAT and the rest of the image's variables: "configuration"
    if image.runtime == "iree":
        compiler = env.IreeCompilePath()
        tools["iree-compile"] = _version([str(compiler)], lines=3)
        flags["iree-compile"] = image.iree_flags
        flags["runtime-config-sha256"] = sha256_file(iree_build.CONFIG_FILE)
    data = release.manifest(
        state=env["_RELEASE_STATE"],
        model=_model_entry(image),
        board={"name": image.board.name,
               "board.toml-sha256": sha256_file(image.board.directory / "board.toml")},
        inputs={name: {**inp.pin(), "key": inp.key()} for name, inp in lock.inputs.items()},
        tools=tools,
        flags=flags,
        outputs=outputs,
    )
    data["configuration"] = image.key.config()
    data["toolchain"] = toolchain_build.manifest(env.GetFetcher(), env["TOOLCHAIN_KIND"])
    release.write_json(out / "manifest.json", data)
    _write_sbom(env, image, out, outputs, data)
    release.write_checksums(out, [*outputs, "manifest.json", SBOM, LICENCES])
    marker = "" if data["release"] else " (NOT a release: uncommitted changes)"
    print(f"release: {out.relative_to(PROJECT_ROOT)}{marker}")
    for name in sorted(p.name for p in out.iterdir()):
        print(f"  {name}")


SBOM, LICENCES = "sbom.cdx.json", "licences.md"


def _linked_licences(env, report: dict) -> dict[str, str]:
    """Size-report component -> the licence of the input it comes from."""
    lock, source = env["LOCK"], env["TOOLCHAIN_KIND"] == "source"
    names = lock.toolchain.source if source else {"gcc": "gcc", "picolibc": "picolibc"}
    gcc, libc = lock.input(names["gcc"]).license, lock.input(names["picolibc"]).license
    soft = lock.input("rvfplib").license if env["SOFTFLOAT"].startswith("rvfplib") else gcc
    def licence(name: str) -> str:
        if name.startswith("iree/"):
            return lock.input("iree").license
        if name.startswith("libgcc"):  # libgcc and its own soft-float routines
            return gcc
        return {"libc": libc, "soft-float": soft}.get(name, "")

    return {c["name"]: licence(c["name"]) for c in report["components"]}


def _write_sbom(env, image, out: Path, outputs: dict, manifest: dict) -> None:
    """The bill of materials and the licence report, both reproducible."""
    # Imported here: cyclonedx's schema checkers take seconds to load, which every other
    # build (a no-op image included) would pay at start-up.
    from ireerv.release import sbom

    lock = env["LOCK"]
    report = json.loads((out / "size-report.json").read_text())
    inputs = [sbom.input_component(inp, PROJECT_ROOT) for inp in lock.inputs.values()]
    linked = sbom.linked_components(report["components"], _linked_licences(env, report))
    meta = {"name": out.name, "version": manifest["version"],
            "source_date_epoch": manifest["source"]["source_date_epoch"]}
    try:
        text = sbom.document(release=meta, inputs=inputs, python=sbom.python_components(),
                             linked=linked, outputs=outputs)
    except sbom.SbomError as err:
        raise SCons.Errors.BuildError(errstr=f"release: {err}") from None
    (out / SBOM).write_text(text)
    (out / LICENCES).write_text(sbom.licence_report(inputs, linked))


def release_target(env, image):
    out = _release_dir(env, image)
    size_json = env.SizeReportFiles(image)[0]
    node = env.Command(
        [str(out / "manifest.json"), str(out / release.CHECKSUMS)],
        [image.elf, image.hex, image.map, env.Value(json.dumps(env["_RELEASE_STATE"])),
         size_json],
        SCons.Action.Action(_write_release, None), RELEASE_IMAGE=image)
    return node


def _release_check(target, source, env):
    image = env["RELEASE_IMAGE"]
    ours = _release_dir(env, image)
    work = Path(tempfile.mkdtemp(prefix="ireerv-release-check-"))
    tree = work / "src"
    state = env["_RELEASE_STATE"]
    print(f"release-check: rebuilding from scratch in {tree}")
    release.fresh_checkout(PROJECT_ROOT, tree, include_changes=state["dirty"])
    args = [*image.key.scons_args(), f"CACHE_DIR={env['CACHE_DIR']}",
            f"ALLOW_DIRTY={int(bool(env['ALLOW_DIRTY']))}", f"OFFLINE={int(bool(env['OFFLINE']))}"]
    scons = [sys.executable, "-c", "import SCons.Script; SCons.Script.main()"]
    proc = subprocess.run([*scons, "-Q", "release", *args], cwd=tree, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise SCons.Errors.BuildError(
            errstr=f"release-check: the fresh build failed (kept in {work}):\n"
            + (proc.stdout + proc.stderr)[-4000:])
    theirs = tree / "dist" / ours.name
    problems = release.compare_trees(ours, theirs)
    if problems:
        names = [p.split(":")[0] for p in problems if "only in" not in p]
        report = work / "diffoscope.txt"
        shown = explain.diffoscope(ours, theirs, names, report)
        raise SCons.Errors.BuildError(
            errstr=f"release-check: outputs differ (fresh build kept in {work}):\n  "
            + "\n  ".join(problems) + f"\ndiffoscope ({report}):\n{shown}")
    count = sum(1 for p in ours.iterdir() if p.is_file())
    print(f"release-check: {count} files identical byte for byte "
          f"({ours.relative_to(PROJECT_ROOT)} vs. a fresh build at another path)")
    _check_digests(env, image, theirs, work)
    shutil.rmtree(work)


def _check_digests(env, image, fresh: Path, work: Path) -> None:
    """Compare a fresh reference release with the committed digests: other machines' bytes."""
    kind, board = env["TOOLCHAIN_KIND"], image.key.board
    if not image.key.is_reference():
        print(f"release-check: {digests.FILE_NAME} covers each board's reference release only "
              f"(this one has {' '.join(image.key.reference_differences())}); not compared")
        return
    path = PROJECT_ROOT / digests.FILE_NAME
    try:
        if board not in digests.boards(path):
            print(f"release-check: {digests.FILE_NAME} has no table for BOARD={board}; "
                  "not compared")
            return
        problems = digests.compare(fresh, path, board, kind)
    except digests.DigestError as err:
        raise SCons.Errors.BuildError(errstr=f"release-check: {err}") from None
    table = digests.table_name(board, kind)
    if problems:
        raise SCons.Errors.BuildError(
            errstr=f"release-check: the fresh build differs from [{table}] in "
            f"{digests.FILE_NAME} (kept in {work}); first differing file: "
            f"{problems[0].split(':')[0]}\n  " + "\n  ".join(problems)
            + "\nIf the change is intended, regenerate them: "
            + digests.REGENERATE.format(board=board, kind=kind))
    print(f"release-check: {len(digests.FILES)} files match the committed digests "
          f"([{table}] in {digests.FILE_NAME})")


def _write_digests(target, source, env):
    release_dir = Path(source[0].abspath).parent
    kind, board = env["TOOLCHAIN_KIND"], env["DIGESTS_BOARD"]
    digests.write(PROJECT_ROOT / digests.FILE_NAME, board, kind,
                  digests.of_release(release_dir))
    print(f"release-digests: [{digests.table_name(board, kind)}] written to "
          f"{digests.FILE_NAME} from {release_dir.relative_to(PROJECT_ROOT)}")


def release_digests(env, image):
    """Rewrite the committed digests of the board and TOOLCHAIN in use from the board's
    reference release."""
    if not image.key.is_reference():
        raise SCons.Errors.StopError(
            "release-digests: the digests cover each board's reference release only; run it "
            "without " + " ".join(image.key.reference_differences()))
    node = env.Alias("release-digests-run", release_target(env, image),
                     SCons.Action.Action(_write_digests, None), DIGESTS_BOARD=image.key.board)
    env.AlwaysBuild(node)
    return node


def release_check(env, image):
    node = env.Alias("release-check-run", release_target(env, image),
                     SCons.Action.Action(_release_check, None), RELEASE_IMAGE=image)
    env.AlwaysBuild(node)
    return node


METHODS = {"PrepareRelease": prepare_environment, "Release": release_target,
           "ReleaseCheck": release_check, "ReleaseDigests": release_digests}


def generate(env) -> None:
    env.Tool("ireerv_size")  # the release takes the size report's JSON
    env.Tool("ireerv_image")  # and names the compiler
    for name, method in METHODS.items():
        env.AddMethod(method, name)
    prepare = prepare_environment  # clean tree, scrubbed environment, SOURCE_DATE_EPOCH
    targets.declare(
        env,
        Target("release", "hermetic release build of MODEL for BOARD into dist/", "release",
               lambda env, request: env.Release(request.image), prepare),
        Target("release-check", "rebuild the release in a fresh directory elsewhere and "
               "compare bytes, and with the committed digests (release-digests.toml)",
               "release", lambda env, request: env.ReleaseCheck(request.image), prepare),
        Target("release-digests", "rewrite release-digests.toml's table for BOARD and TOOLCHAIN "
               "from the board's reference release built here", "release",
               lambda env, request: env.ReleaseDigests(request.image), prepare))


def exists(env) -> bool:
    return True
