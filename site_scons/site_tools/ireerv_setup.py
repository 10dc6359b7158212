"""The lock, the download cache and the message style shared by every target.

Adds env["LOCK"], env.GetFetcher() and the FetchInputs() pseudo-builder.
Nothing is fetched while SCons reads the build files, except what a
requested target needs to be described (the cross toolchain).
"""

from __future__ import annotations

from pathlib import Path

import SCons.Errors

from ireerv import paths, services, targets
from ireerv.inputs.fetch import FetchConfig, Fetcher, FetchError
from ireerv.inputs.lock import LockError, load_lock
from ireerv.inputs.toolchain import Toolchain
from ireerv.inputs.toolchain_build import source_toolchain
from ireerv.targets import Target

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
    shared = services.of(env)
    if shared.fetcher is None:
        shared.fetcher = Fetcher(env["LOCK"], FetchConfig.from_variables(env))
    return shared.fetcher


def _toolchain(env) -> Toolchain:
    """The cross toolchain TOOLCHAIN names: unpacked, or built from source, into the cache."""
    shared = services.of(env)
    if shared.toolchain is None:
        fetcher = _fetcher(env)
        if env["TOOLCHAIN_KIND"] == "source":
            log_dir = Path(env.Dir(paths.BUILD).abspath) / "logs"
            shared.toolchain = source_toolchain(fetcher, log_dir)  # all cores: built once
        else:
            shared.toolchain = fetcher.toolchain()
    return shared.toolchain


def toolchain_key(env) -> str:
    """What identifies the cross toolchain, for outputs SCons cannot see it in."""
    if env["TOOLCHAIN_KIND"] == "source":
        return _toolchain(env).root.name
    return env["LOCK"].toolchain_key()


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
    if "LOCK" in env:  # loaded already: every Tool that needs this one loads it
        return
    try:
        env["LOCK"] = load_lock(paths.LOCK_FILE)
    except LockError as err:
        raise SCons.Errors.StopError(f"{paths.LOCK_FILE.name}: {err}") from None
    # env["TOOLCHAIN"] becomes the Toolchain object in a board's environment.
    env["TOOLCHAIN_KIND"] = env.get("TOOLCHAIN", "debian")
    if services.KEY not in env:
        env[services.KEY] = services.Services()
    env.AddMethod(_fetcher, "GetFetcher")
    env.AddMethod(_toolchain, "GetToolchain")
    env.AddMethod(toolchain_key, "ToolchainKey")
    env.AddMethod(_fetch_inputs, "FetchInputs")
    targets.declare(env, Target(
        "fetch", "fetch and verify every input in toolchain.lock into the cache", "inputs",
        lambda env, request: env.FetchInputs()))
    if not env["VERBOSE"]:
        env.Replace(**_SHORT)


def exists(env) -> bool:
    return True
