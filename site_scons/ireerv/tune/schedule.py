"""Where a tune's rounds run: on this machine's cores, or on a Dask cluster.

Either way a runner takes rounds and yields each with its result as it completes.  On
this machine each worker owns a private copy of the project under the tune's folder;
on a Dask cluster (TUNE_SCHEDULER=tcp://host:port) the project travels with the rounds
as an archive and every worker builds from it with the same lock and build cache.  A
worker that dies mid-round loses only that round: the scheduler runs it elsewhere.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import queue
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from ireerv.release import release
from ireerv.tune import interrupt, remote
from ireerv.tune.measure import POLL, Result, Round, Workspace

CONNECT_TIMEOUT = "10s"


class ScheduleError(Exception):
    """The rounds cannot be run where they were asked to run."""


def copied_folder(model_dir: Path) -> str:
    """Where a model's folder is in a copy of the project, and MODEL's name there: a folder
    of models/ stays where it is; one outside the project is copied (place_model)."""
    return f"models/{model_dir.name}"


def place_model(tree: Path, model_dir: Path | None) -> None:
    """A model folder outside the project, copied into `tree` as models/<its name> with its
    tuning folder, as a model of the project is: each round writes or removes the tuned
    board's own file, and a tuning the board borrows is merged as in any build."""
    if model_dir is None:
        return
    dest = tree / copied_folder(model_dir)
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(model_dir, dest, symlinks=True)


def _fresh_tree(root: Path, tree: Path, model_dir: Path | None) -> None:
    """`tree` as a copy of the project now (and of the model's folder when it is outside
    it), keeping its earlier build folder."""
    kept = tree.with_name(tree.name + ".build")
    if (tree / "build").is_dir():
        shutil.rmtree(kept, ignore_errors=True)
        (tree / "build").rename(kept)
    shutil.rmtree(tree, ignore_errors=True)
    release.fresh_checkout(root, tree, include_changes=True)
    place_model(tree, model_dir)
    if kept.is_dir():
        kept.rename(tree / "build")


class LocalRunner:
    """Rounds on this machine, `jobs` at a time, each worker in its own copy."""

    def __init__(self, root: Path, folder: Path, jobs: int, build_cache: Path,
                 model_dir: Path | None = None) -> None:
        self.root, self.folder, self.jobs, self.build_cache = root, folder, jobs, build_cache
        self.model_dir = model_dir  # a model folder outside the project, or None
        self._free: queue.Queue[Workspace] | None = None

    def _workspaces(self) -> queue.Queue[Workspace]:
        if self._free is None:
            self._free = queue.Queue()
            for i in range(self.jobs):
                tree = self.folder / f"worker-{i}"
                _fresh_tree(self.root, tree, self.model_dir)
                self._free.put(Workspace(tree, self.build_cache))
        return self._free

    def _one(self, rnd: Round) -> Result:
        free = self._workspaces()
        workspace = free.get()
        try:
            return workspace.run(rnd)
        finally:
            free.put(workspace)

    def __call__(self, rounds: Sequence[Round]) -> Iterator[tuple[Round, Result]]:
        if not rounds:  # all measured before: no copies made
            return
        self._workspaces()
        pool = ThreadPoolExecutor(max_workers=self.jobs)
        try:
            futures = {pool.submit(self._one, rnd): rnd for rnd in rounds}
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:  # interrupted: the rounds not yet started never start
            pool.shutdown(wait=True, cancel_futures=True)


def _git(root: Path, *args: str) -> bytes:
    proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True)
    if proc.returncode != 0:
        raise ScheduleError(f"git {' '.join(args)}: {proc.stderr.decode().strip()}")
    return proc.stdout


def source_digest(root: Path, tuning: Path) -> str:
    """What the project's rounds are built from: its commit and uncommitted changes, and
    the model's folder when it is outside the project; all but the model's `tuning`
    folder, which a tune writes."""
    inside = tuning.is_relative_to(root)
    paths = [".", *([f":(exclude){tuning.relative_to(root).as_posix()}"] if inside else [])]
    digest = hashlib.sha256(_git(root, "rev-parse", "HEAD"))
    digest.update(_git(root, "diff", "HEAD", "--binary", "--", *paths))
    for name in sorted(_git(root, "ls-files", "-o", "--exclude-standard", "--",
                            *paths).decode().splitlines()):
        digest.update(name.encode() + b"\0" + (root / name).read_bytes())
    if not inside:
        for path in sorted(tuning.parent.rglob("*")):
            name = path.relative_to(tuning.parent)
            if path.is_file() and name.parts[0] != tuning.name:
                digest.update(name.as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def source_archive(root: Path, model_dir: Path | None = None) -> bytes:
    """The project as a tar archive: its commit and uncommitted changes, as a clone sees it,
    with a model folder from outside it as models/<its name>."""
    with tempfile.TemporaryDirectory(prefix="ireerv-tune-") as tmp:
        tree = Path(tmp) / "project"
        release.fresh_checkout(root, tree, include_changes=True)
        place_model(tree, model_dir)
        data = io.BytesIO()
        with tarfile.open(fileobj=data, mode="w") as tar:
            for path in sorted(tree.rglob("*")):
                tar.add(path, arcname=path.relative_to(tree).as_posix(), recursive=False)
        return data.getvalue()


RESUBMITS = 2  # times a round the cluster lost is run again before it counts as failed


class DaskRunner:
    """Rounds on the Dask cluster whose scheduler listens at `address`."""

    def __init__(self, address: str, root: Path, build_cache: Path,
                 run_round: Callable[..., dict] = remote.run_round,
                 model_dir: Path | None = None) -> None:
        self.address, self.root, self.build_cache = address, root, build_cache
        self.run_round = run_round  # what a worker runs (remote.run_round: build, measure)
        self.model_dir = model_dir  # a model folder outside the project, or None

    def __call__(self, rounds: Sequence[Round]) -> Iterator[tuple[Round, Result]]:
        import cloudpickle
        from distributed import Client
        from distributed import as_completed as completed

        if not rounds:  # all measured before: the cluster is not needed
            return
        archive = source_archive(self.root, self.model_dir)
        digest = hashlib.sha256(archive).hexdigest()
        cloudpickle.register_pickle_by_value(remote)  # workers need not have the project
        try:
            client = Client(self.address, timeout=CONNECT_TIMEOUT)
        except OSError as err:
            raise ScheduleError(f"TUNE_SCHEDULER={self.address}: no scheduler answers "
                                f"({err})") from None
        with client:
            def submit(rnd: Round, data):
                return client.submit(self.run_round, digest, data, dataclasses.asdict(rnd),
                                     str(self.build_cache), pure=False)

            data = client.scatter(archive, broadcast=True)
            futures = {submit(rnd, data): rnd for rnd in rounds}
            tries = dict.fromkeys(futures.values(), 1)
            pending = completed(futures)
            for future in _as_finished(pending):
                rnd = futures.pop(future)
                if future.status != "finished" and tries[rnd] <= RESUBMITS:
                    # A dying worker can take the scattered project with it, and the
                    # scheduler then forgets the rounds waiting on it: scatter it again
                    # and run the round elsewhere.
                    tries[rnd] += 1
                    data = client.scatter(archive, broadcast=True)
                    again = submit(rnd, data)
                    futures[again] = rnd
                    pending.add(again)
                    continue
                yield rnd, _result(future)


def _as_finished(pending) -> Iterator:
    """Dask's futures as they finish; an interrupted tune stops waiting at once (the
    client's futures are then released, and the cluster drops their rounds)."""
    while not pending.is_empty():
        interrupt.check()
        if pending.has_ready():
            yield next(pending)
        else:
            time.sleep(POLL)


def _result(future) -> Result:
    """A round's result; a round the cluster could not run (its workers kept dying, say)
    is a failed round, said plainly."""
    try:
        out = future.result()
    except Exception as err:  # noqa: BLE001 - any worker-side error fails that round alone
        return Result(False, detail=f"the Dask cluster could not run it: {err}")
    result = Result.from_json(out)
    result.detail = out["detail"]
    return result
