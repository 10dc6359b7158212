"""The lock, the download cache and the message style shared by every target.

Adds env["LOCK"], env.GetFetcher() and the FetchInputs() pseudo-builder.
Nothing is fetched while SCons reads the build files, except what a
requested target needs to be described (the cross toolchain).
"""

from __future__ import annotations

from pathlib import Path

import SCons.Errors

from ireerv import paths
from ireerv.inputs.envvars import parse_mirrors
from ireerv.inputs.fetch import FetchConfig, Fetcher, FetchError
from ireerv.inputs.lock import LockError, load_lock

_SHORT = {
    "CCCOMSTR": "CC      $TARGET",
    "ASPPCOMSTR": "AS      $TARGET",
    "ARCOMSTR": "AR      $TARGET",
    "RANLIBCOMSTR": "",
    "LINKCOMSTR": "LINK    $TARGET",
    "HEXCOMSTR": "HEX     $TARGET",
    "DISCOMSTR": "DIS     $TARGET",
}


def _fetcher(env) -> Fetcher:
    if "_FETCHER" not in env:
        config = FetchConfig(
            cache_root=Path(env["CACHE_DIR"]),
            offline=bool(env["OFFLINE"]),
            mirrors=parse_mirrors("MIRRORS", env["MIRRORS"]),
            verbose=bool(env["VERBOSE"]),
        )
        env["_FETCHER"] = Fetcher(env["LOCK"], config)
    return env["_FETCHER"]


def _fetch_all(target, source, env):
    try:
        fetched = _fetcher(env).fetch_all()
    except FetchError as err:
        raise SCons.Errors.BuildError(errstr=str(err)) from None
    for name, path in sorted(fetched.items()):
        print(f"  {name:<16} {path}")
    print(f"fetch: {len(fetched)} inputs verified in {env['CACHE_DIR']}")


def _fetch_inputs(env):
    """An always-run action: checking the cache is cheap, fetching is what it is for."""
    node = env.Alias("fetch-inputs", [], env.Action(_fetch_all, "fetch: toolchain.lock inputs"))
    env.AlwaysBuild(node)
    return node


def generate(env) -> None:
    try:
        env["LOCK"] = load_lock(paths.LOCK_FILE)
    except LockError as err:
        raise SCons.Errors.StopError(f"{paths.LOCK_FILE.name}: {err}") from None
    env.AddMethod(_fetcher, "GetFetcher")
    env.AddMethod(_fetch_inputs, "FetchInputs")
    if not env["VERBOSE"]:
        env.Replace(**_SHORT)


def exists(env) -> bool:
    return True
