"""Real stand-ins for upstreams in fetch tests: an HTTP server, git repositories, archives.

Nothing here mocks the network or git: the server is a real http.server on
127.0.0.1, repositories are made with the git command line and fetched by URL.
"""

from __future__ import annotations

import hashlib
import io
import os
import socket
import subprocess
import tarfile
import threading
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- git ---------------------------------------------------------------------


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {cwd}:\n{proc.stderr}")
    return proc.stdout.strip()


def write_gitconfig(path: Path, extra: str = "") -> Path:
    """A global git config for tests, so the user's own config plays no part."""
    path.write_text(
        "[user]\n\tname = Test\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n" + extra
    )
    return path


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    return path


def commit(repo: Path, files: dict[str, str], message: str = "change") -> str:
    """Write files (relative path -> text) and commit everything; returns the commit id."""
    for name, text in files.items():
        f = repo / name
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def set_gitlink(repo: Path, path: str, target: str, message: str = "submodule") -> str:
    """Point the gitlink (submodule entry) at `path` to commit `target` and commit."""
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{target},{path}")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


# --- archives ----------------------------------------------------------------


@dataclass
class Member:
    """One tar member: a file (data), dir, symlink/hardlink (link) or a device."""

    name: str
    kind: str = "file"  # file | dir | symlink | hardlink | chr | fifo
    data: bytes = b""
    link: str = ""
    mode: int = 0o644


def tar_bytes(members: list[Member], compression: str = "gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=f"w:{compression}" if compression else "w") as tf:
        for m in members:
            info = tarfile.TarInfo(m.name)
            info.mode = m.mode
            info.mtime = 1_700_000_000
            types = {
                "file": tarfile.REGTYPE,
                "dir": tarfile.DIRTYPE,
                "symlink": tarfile.SYMTYPE,
                "hardlink": tarfile.LNKTYPE,
                "chr": tarfile.CHRTYPE,
                "fifo": tarfile.FIFOTYPE,
            }
            info.type = types[m.kind]
            info.linkname = m.link
            if m.kind == "file":
                info.size = len(m.data)
                tf.addfile(info, io.BytesIO(m.data))
            else:
                tf.addfile(info)
    return buf.getvalue()


def zip_bytes(entries: list[tuple[str, bytes, int]]) -> bytes:
    """(name, data, unix mode incl. file type) entries."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = mode << 16
            info.create_system = 3  # Unix
            zf.writestr(info, data)
    return buf.getvalue()


def make_wheel(
    directory: Path, name: str, version: str, files: dict[str, tuple[bytes, int]]
) -> Path:
    """A minimal valid py3-none-any wheel; files: path -> (data, unix mode)."""
    dist = f"{name}-{version}.dist-info"
    meta = {
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    entries = [(p, d, 0o100000 | m) for p, (d, m) in files.items()]
    entries += [(p, d, 0o100644) for p, d in meta.items()]
    record = "".join(f"{p},,\n" for p, _, _ in entries) + f"{dist}/RECORD,,\n"
    entries.append((f"{dist}/RECORD", record.encode(), 0o100644))
    path = directory / f"{name}-{version}-py3-none-any.whl"
    path.write_bytes(zip_bytes(entries))
    return path


# --- lock files --------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{ "
            + ", ".join(f"{_toml_value(k)} = {_toml_value(v)}" for k, v in value.items())
            + " }"
        )
    raise TypeError(value)


def write_lock(
    directory: Path,
    inputs: dict[str, dict[str, Any]],
    toolchain: dict[str, Any] | None = None,
) -> Path:
    """Write a toolchain.lock; without a toolchain table, a dummy one is added."""
    inputs = dict(inputs)
    if toolchain is None:
        inputs.setdefault(
            "dummy-tc",
            {"kind": "archive", "url": "http://127.0.0.1:9/tc.tar.gz", "sha256": "0" * 64},
        )
        toolchain = {"inputs": ["dummy-tc"], "bin": "bin", "prefix": "x-", "libc": "none"}
    lines = ["schema = 1", "", "[toolchain]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in toolchain.items()]
    for name, table in inputs.items():
        lines += ["", f"[inputs.{name}]"]
        lines += [f"{k} = {_toml_value(v)}" for k, v in table.items()]
    path = directory / "toolchain.lock"
    path.write_text("\n".join(lines) + "\n")
    return path


# --- HTTP --------------------------------------------------------------------


@dataclass
class Served:
    data: bytes
    truncate: int | None = None  # send only this many bytes (Content-Length stays full)
    stall_after: int | None = None  # send this many bytes, then wait for release
    resume: bool = False  # once released, send the rest (else end the answer short)


@dataclass
class FileServer:
    """A real HTTP server on 127.0.0.1 serving in-memory files, counting requests."""

    files: dict[str, Served] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    release: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                server.counts[self.path] += 1
                served = server.files.get(self.path)
                if served is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(served.data)))
                self.end_headers()
                body = served.data
                if served.truncate is not None:
                    body = body[: served.truncate]
                if served.stall_after is not None:
                    self.wfile.write(body[: served.stall_after])
                    self.wfile.flush()
                    server.release.wait(30)
                    if served.resume:
                        self.wfile.write(body[served.stall_after:])
                    return
                self.wfile.write(body)
                if served.truncate is not None:
                    self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def base(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def add(self, path: str, data: bytes, **options: Any) -> str:
        """Serve `data` at `path`; returns its URL."""
        self.files[path] = Served(data, **options)
        return self.base + path

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()


def closed_port_url(path: str = "/") -> str:
    """A URL on 127.0.0.1 where nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}{path}"


def tree_files(root: Path) -> dict[str, str]:
    """relative path -> kind summary of a tree, for comparisons."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = "-> " + os.readlink(p)
            elif p.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = oct(p.stat().st_mode & 0o777)
    return out
