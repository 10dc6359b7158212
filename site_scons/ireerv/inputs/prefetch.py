"""What every image needs, fetched into the cache while ./bootstrap installs the Python
packages: the cross toolchain, IREE's runtime source with flatcc, the soft-float routines
and the compiler wheel.  The fetch layer needs only Python's standard library, apt-get,
git and pip, so this runs in the new virtual environment before its packages are there.

It is a head start, never the check: the build fetches and verifies every input again
(a cache entry that exists is verified, one that is missing is fetched), and reports any
error.  So this one says nothing and exits 0 whatever happens.

    python -m ireerv.inputs.prefetch
"""

from __future__ import annotations

from ireerv import paths
from ireerv.inputs import envvars
from ireerv.inputs.fetch import FetchConfig, Fetcher, FetchError
from ireerv.inputs.lock import LockError, load_lock

EVERY_IMAGE = ("iree", "flatcc", "rvfplib", "iree-compiler")


def prefetch(fetcher: Fetcher) -> list[str]:
    """Fetch the toolchain and EVERY_IMAGE; what could not be fetched, in words."""
    failed = []
    for name, fetch in (("toolchain", fetcher.toolchain),
                        *((name, lambda n=name: fetcher.path(n)) for name in EVERY_IMAGE)):
        try:
            fetch()
        except FetchError as err:
            failed.append(f"{name}: {err}")
    return failed


def main() -> int:
    try:
        config = FetchConfig.from_env(log=lambda _: None)
        prefetch(Fetcher(load_lock(paths.LOCK_FILE), config))
    except (FetchError, LockError, envvars.EnvVarError):
        pass  # the build says it, with the command line's settings
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
