"""Git inputs: a shallow fetch of the pinned commit, sparse when paths are left out, with
submodules from their own pins."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ireerv.inputs import cache, pin_checks
from ireerv.inputs.fetch_common import (
    FetchContext,
    FetchError,
    SourceError,
    git_env,
    is_local,
)
from ireerv.inputs.lock import Input


def _git(fetcher: FetchContext, inp: Input, cwd: Path, *args: str, stream: bool = False) -> str:
    cmd = [
        "git", "-c", "advice.detachedHead=false", "-c", "init.defaultBranch=main",
        "-c", "core.autocrlf=false", "-c", "core.symlinks=true", "-c", "gc.auto=0", *args,
    ]  # fmt: skip
    if stream and fetcher.config.verbose:
        proc = subprocess.run(cmd, cwd=cwd, env=git_env(), stdout=subprocess.PIPE, text=True)
        err = ""
    else:
        proc = subprocess.run(cmd, cwd=cwd, env=git_env(), capture_output=True, text=True)
        err = proc.stderr.strip()
    if proc.returncode != 0:
        raise SourceError(f"`git {' '.join(args)}` failed" + (f":\n{err}" if err else ""))
    return proc.stdout.strip()


def git_tree(fetcher: FetchContext, inp: Input, tmp: Path) -> None:
    assert inp.url and inp.commit
    if fetcher.config.offline:
        # A URL the user maps onto a local mirror (url.<base>.insteadOf) needs no network.
        resolved = _git(fetcher, inp, tmp, "ls-remote", "--get-url", inp.url)
        if not is_local(resolved):
            hint = "a local git mirror (git config url.<mirror>.insteadOf <url prefix>)"
            raise fetcher._offline_error(inp, hint)
    try:
        _git(fetcher, inp, tmp, "init", "-q")
        fetch = ["fetch", "--depth", "1", "--no-tags"]
        source = inp.url
        if inp.exclude or inp.include:
            # A blobless fetch: the checkout then fetches only the blobs it writes, so
            # excluded paths are never downloaded (a mirror may even lack them). The
            # lazy fetch needs a named remote.
            _git(fetcher, inp, tmp, "remote", "add", "origin", inp.url)
            fetch.append("--filter=blob:none")
            source = "origin"
        via = ""
        try:
            _git(fetcher, inp, tmp, *fetch, source, inp.commit, stream=True)
        except SourceError as by_id:
            if not inp.tag:
                raise
            # Some servers refuse to fetch a commit by id; the tag then names it.
            fetcher.config.log(f"{inp.name}: fetching by commit id failed; trying tag {inp.tag}")
            try:
                _git(fetcher, inp, tmp, *fetch, source, f"refs/tags/{inp.tag}", stream=True)
            except SourceError as by_tag:
                raise SourceError(f"{by_id}\n{by_tag}") from None
            via = f" (tag {inp.tag})"
        if inp.exclude:
            # No trailing '/': a pattern then leaves out a file as well as a directory.
            patterns = ["/*", *(f"!/{path}" for path in inp.exclude)]
            _git(fetcher, inp, tmp, "sparse-checkout", "set", "--no-cone", *patterns)
        if inp.include:
            patterns = [f"/{path.strip('/')}" for path in inp.include]
            _git(fetcher, inp, tmp, "sparse-checkout", "set", "--no-cone", *patterns)
        _git(fetcher, inp, tmp, "checkout", "-q", "--detach", "FETCH_HEAD^{commit}")
        head = _git(fetcher, inp, tmp, "rev-parse", "HEAD")
    except SourceError as e:
        raise FetchError(
            f"input '{inp.name}': cannot fetch commit {inp.commit} from {inp.url}: {e}\n"
            + pin_checks.git_advice(inp, str(e))
        ) from None
    if head != inp.commit:
        raise FetchError(
            f"input '{inp.name}': {inp.url}{via} gave commit {head}, but the lock pins "
            f"{inp.commit}. If upstream moved on purpose, review the change and update "
            f"'commit' in {fetcher.lock.path}."
        )
    _check_excluded(fetcher, inp, tmp)
    _check_included(fetcher, inp, tmp)
    _fill_submodules(fetcher, inp, tmp)
    cache.remove_tree(tmp / ".git")


def _check_excluded(fetcher: FetchContext, inp: Input, tmp: Path) -> None:
    # A name the commit lacks is most likely a typo in the lock.
    for path in inp.exclude:
        try:
            out = _git(fetcher, inp, tmp, "ls-tree", "HEAD", "--", path)
        except SourceError as e:
            raise FetchError(f"input '{inp.name}': {e}") from None
        if not out:
            raise FetchError(
                f"input '{inp.name}': 'exclude' names '{path}', but commit {inp.commit} has "
                f"no such top-level path; fix 'exclude' in [inputs.{inp.name}] of "
                f"{fetcher.lock.path}"
            )
        if (tmp / path).exists() or (tmp / path).is_symlink():
            raise FetchError(f"input '{inp.name}': the excluded '{path}' was checked out")


def _check_included(fetcher: FetchContext, inp: Input, tmp: Path) -> None:
    for path in inp.include:
        if not (tmp / path.strip("/")).exists():
            raise FetchError(
                f"input '{inp.name}': 'include' names '{path}', but commit {inp.commit} has "
                f"no such path; fix 'include' in [inputs.{inp.name}] of {fetcher.lock.path}"
            )


def _fill_submodules(fetcher: FetchContext, inp: Input, tmp: Path) -> None:
    # Check every gitlink first, so a mismatch fails before anything is fetched.
    for sub_path, sub_name in sorted(inp.submodules.items()):
        sub = fetcher.lock.input(sub_name)
        try:
            out = _git(fetcher, inp, tmp, "ls-tree", "HEAD", "--", sub_path)
        except SourceError as e:
            raise FetchError(f"input '{inp.name}': {e}") from None
        if not out:
            raise FetchError(
                f"input '{inp.name}': commit {inp.commit} has nothing at submodule path "
                f"'{sub_path}'"
            )
        _mode, kind, gitlink = out.split("\t")[0].split()
        if kind != "commit":
            raise FetchError(
                f"input '{inp.name}': '{sub_path}' is a {kind} at {inp.commit}, not a submodule"
            )
        if gitlink != sub.commit:
            raise FetchError(
                f"input '{inp.name}': commit {inp.commit} expects submodule '{sub_path}' at "
                f"{gitlink}, but input '{sub_name}' pins {sub.commit}. Set commit = "
                f'"{gitlink}" in [inputs.{sub_name}] of {fetcher.lock.path}, or pin a '
                f"superproject commit that uses {sub.commit}."
            )
    for sub_path, sub_name in sorted(inp.submodules.items()):
        shutil.copytree(fetcher.path(sub_name), tmp / sub_path, symlinks=True, dirs_exist_ok=True)
