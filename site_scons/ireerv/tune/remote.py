"""A tune's round on a Dask worker, which need not have the project: it comes with it.

This module is sent to the workers by value (cloudpickle), so it imports nothing of the
project at module level; the round and its result travel as plain data.  Each worker
thread unpacks the project once per source digest into its own folder under the
system's temporary directory and builds there, with the tune's shared build cache.
"""

from __future__ import annotations

import io
import os
import sys
import tarfile
import tempfile
import threading
from pathlib import Path


def _tree(digest: str, archive: bytes) -> Path:
    base = Path(tempfile.gettempdir()) / "ireerv-tune" / digest[:16]
    tree = base / f"worker-{os.getpid()}-{threading.get_ident()}"
    if not (tree / "SConstruct").is_file():
        partial = tree.with_name(tree.name + ".partial")
        partial.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(partial, filter="tar")
        partial.rename(tree)  # whole or not at all
    return tree


def run_round(digest: str, archive: bytes, round_data: dict, build_cache: str) -> dict:
    """Build and measure one round in this worker's copy of the project."""
    tree = _tree(digest, archive)
    if str(tree / "site_scons") not in sys.path:
        sys.path.insert(0, str(tree / "site_scons"))
    from ireerv.tune.measure import Round, Workspace  # from the project just unpacked

    result = Workspace(tree, Path(build_cache) if build_cache else None).run(Round(**round_data))
    return {**result.as_json(), "detail": result.detail}
