"""Archive inputs: downloaded over HTTP(S) from the mirrors, then upstream, and verified."""

from __future__ import annotations

import hashlib
import posixpath
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ireerv.inputs.envvars import MIRRORS as MIRRORS_ENV
from ireerv.inputs.fetch_common import (
    _CHUNK,
    _TIMEOUT,
    FetchContext,
    FetchError,
    SourceError,
    is_local,
    mirror_url,
)
from ireerv.inputs.lock import Input


def fetch_archive(fetcher: FetchContext, inp: Input, tmp: Path) -> None:
    assert inp.url and inp.sha256
    dest = tmp / unquote(posixpath.basename(urlsplit(inp.url).path))
    sources = [mirror_url(base, inp.url) for base in fetcher.config.mirrors] + [inp.url]
    if fetcher.config.offline:
        sources = [url for url in sources if is_local(url)]
        if not sources:
            raise fetcher._offline_error(
                inp, f"a local mirror ({MIRRORS_ENV}=file:///dir/with/the/files)"
            )
    problems = []
    for url in sources:
        try:
            fetcher.config.log(f"{inp.name}: downloading {url}")
            actual, size = _get(fetcher, url, dest)
        except SourceError as e:
            dest.unlink(missing_ok=True)
            problems.append(f"{url}: {e}")
            fetcher.config.log(f"{inp.name}: {problems[-1]}")
            continue
        if actual == inp.sha256:
            return
        dest.unlink()
        problems.append(f"{url}: got sha256 {actual} ({size} bytes); the file was deleted")
        fetcher.config.log(f"{inp.name}: {problems[-1]}")
    if any("got sha256" in p for p in problems):
        advice = (
            "If the upstream file changed on purpose, review it and update 'sha256' in "
            f"{fetcher.lock.path}; otherwise retry later or list a mirror in {MIRRORS_ENV}."
        )
    else:
        advice = (
            f"Check the URL and the network, retry later, or list a mirror in {MIRRORS_ENV}."
        )
    raise FetchError(
        f"input '{inp.name}': no source gave the pinned file (sha256 {inp.sha256}):\n"
        + "\n".join(f"  {p}" for p in problems)
        + f"\n{advice}"
    )


def _get(fetcher: FetchContext, url: str, dest: Path) -> tuple[str, int]:
    """Copy `url` to `dest`, returning its sha256 and size."""
    h, size = hashlib.sha256(), 0
    if is_local(url):
        path = Path(unquote(urlsplit(url).path))
        try:
            with open(path, "rb") as src, open(dest, "wb") as out:
                while chunk := src.read(_CHUNK):
                    h.update(chunk)
                    out.write(chunk)
                    size += len(chunk)
        except OSError as e:
            raise SourceError(str(e)) from None
        return h.hexdigest(), size
    import requests  # only needed when something is downloaded
    import urllib3

    if fetcher._session is None:
        fetcher._session = requests.Session()
    try:
        with fetcher._session.get(url, stream=True, timeout=_TIMEOUT) as resp:
            if resp.status_code != 200:
                raise SourceError(f"HTTP {resp.status_code} {resp.reason}")
            expected = resp.headers.get("Content-Length")
            with open(dest, "wb") as out:
                # Raw bytes: a server's Content-Encoding must not change the file.
                for chunk in resp.raw.stream(_CHUNK, decode_content=False):
                    h.update(chunk)
                    out.write(chunk)
                    size += len(chunk)
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as e:
        # urllib3 errors (a truncated body, a stalled read) come straight from raw.stream.
        raise SourceError(f"download failed: {e}") from None
    if expected is not None and expected.isdigit() and int(expected) != size:
        raise SourceError(f"download incomplete: got {size} of {expected} bytes")
    return h.hexdigest(), size
