"""toolchain.lock parsing: the real lock, validation errors and cache keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from fetch_fixtures import write_lock

from ireerv import paths
from ireerv.inputs.lock import LockError, load_lock

C1 = "1" * 40
C2 = "2" * 40
S1 = "a" * 64
S2 = "b" * 64

GOOD = """\
schema = 1

[toolchain]
inputs = ["cc"]
bin = "bin"
prefix = "x-"
libc = "picolibc"

[inputs.cc]
kind = "archive"
url = "https://example.com/cc.tar.xz"
sha256 = "{S1}"
strip = 1

[inputs.top]
kind = "git"
url = "https://example.com/top.git"
commit = "{C1}"
submodules = {{ "deps/sub" = "sub" }}
patches = [{{ file = "patches/top.patch", sha256 = "{S2}" }}]

[inputs.sub]
kind = "git"
url = "https://example.com/sub.git"
commit = "{C2}"
"""


def lock_from(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "toolchain.lock"
    path.write_text(text)
    return path


def test_real_lock_loads() -> None:
    lock = load_lock(paths.LOCK_FILE)
    assert lock.toolchain.inputs == ["binutils", "gcc", "picolibc"]
    assert lock.toolchain.libc_prefix == "usr"
    iree = lock.input("iree")
    assert iree.kind == "git" and iree.submodules == {"third_party/flatcc": "flatcc"}
    assert iree.submodule_keys == (("third_party/flatcc", lock.input("flatcc").key()),)
    assert lock.input("verilator").exclude == ("test_regress",)
    wheel = lock.input("iree-compiler")
    assert all(name.endswith(".whl") for name in wheel.files)
    assert {i.kind for i in lock.inputs.values()} == {"git", "deb", "wheel"}


def test_good_lock(tmp_path: Path) -> None:
    lock = load_lock(lock_from(tmp_path, GOOD.format(S1=S1, S2=S2, C1=C1, C2=C2)))
    cc = lock.input("cc")
    assert (cc.kind, cc.strip, cc.sha256) == ("archive", 1, S1)
    top = lock.input("top")
    assert top.patches[0].file == "patches/top.patch" and top.patches[0].sha256 == S2
    assert lock.toolchain.libc_prefix is None
    assert lock.path == (tmp_path / "toolchain.lock").resolve()


def test_unknown_input_lists_valid_names(tmp_path: Path) -> None:
    lock = load_lock(lock_from(tmp_path, GOOD.format(S1=S1, S2=S2, C1=C1, C2=C2)))
    with pytest.raises(LockError, match=r"no input named 'nope' \(inputs: cc, sub, top\)"):
        lock.input("nope")


def test_hex_is_normalised_to_lower_case(tmp_path: Path) -> None:
    text = GOOD.format(S1=S1.upper(), S2=S2, C1=C1, C2="ABCDEF" + "0" * 34)
    lock = load_lock(lock_from(tmp_path, text))
    assert lock.input("cc").sha256 == S1
    assert lock.input("sub").commit == "abcdef" + "0" * 34


# (substring of the broken lock -> its replacement, expected error text)
BROKEN = [
    ("schema = 1", "schema = 2", r"\[top level\] field 'schema': must be 1, got 2"),
    ("schema = 1", "", r"field 'schema': must be 1, got None"),
    ("schema = 1", "schema = 1\nextra = 3", r"\[top level\] field 'extra': unknown field"),
    ('kind = "archive"', 'kind = "svn"', r"\[inputs.cc\] field 'kind': must be one of git"),
    (f'commit = "{C2}"', 'commit = "abc123"', r"\[inputs.sub\] field 'commit': must be a full"),
    (f'commit = "{C2}"', "", r"\[inputs.sub\] field 'commit': is required for kind 'git'"),
    (f'sha256 = "{S1}"', 'sha256 = "xyz"', r"\[inputs.cc\] field 'sha256': must be 64 hex digits"),
    (f'sha256 = "{S1}"', f'sha265 = "{S1}"', r"\[inputs.cc\] field 'sha265': unknown field"),
    ("strip = 1", "strip = -1", r"field 'strip': must be a whole number >= 0"),
    ("strip = 1", "strip = true", r"field 'strip': must be a whole number >= 0"),
    ('"deps/sub" = "sub"', '"deps/sub" = "nosuch"', r"names the unknown input 'nosuch'"),
    ('"deps/sub" = "sub"', '"deps/sub" = "cc"', r"names 'cc', which is not of kind 'git'"),
    ('"deps/sub" = "sub"', '"../sub" = "sub"', r"may not contain '\.\.'"),
    ('inputs = ["cc"]', 'inputs = ["top"]', r"\[toolchain\] field 'inputs': 'top' is a git input"),
    ('inputs = ["cc"]', 'inputs = ["gcc"]', r"\[toolchain\] field 'inputs': names the unknown"),
    ('inputs = ["cc"]', "inputs = []", r"\[toolchain\] field 'inputs': must be a non-empty list"),
    ('bin = "bin"', "", r"\[toolchain\] field 'bin': is required"),
    ('bin = "bin"', 'bin = "/usr/bin"', r"field 'bin': path '/usr/bin' must be relative"),
    ("[inputs.sub]", "[inputs.toolchain]", r"'toolchain' is reserved"),
    ("[inputs.sub]", '[inputs."a b"]', r"input names may use letters"),
    ("https://example.com/cc.tar.xz", "https://example.com/", r"ending in a file name"),
    ("https://example.com/cc.tar.xz", "ftp://example.com/cc.tar.xz", r"http\(s\) or file URL"),
    ('file = "patches/top.patch"', 'file = "/tmp/top.patch"', r"patches\[0\]\] field 'file'"),
    (f', sha256 = "{S2}" }}]', " }]", r"patches\[0\]\] field 'sha256': is required"),
    ("[inputs.cc]", "[inputs.cc]\nfiles = 3", r"\[inputs.cc\] field 'files': unknown field"),
    ("[toolchain]", "[toolchain]\n[toolchain.x]", r"\[toolchain\] field 'x': unknown field"),
    (f'commit = "{C2}"', f'commit = "{C2}"\nexclude = "t"', r"'exclude': must be a list"),
    (f'commit = "{C2}"', f'commit = "{C2}"\nexclude = ["a/b"]', r"'a/b' is not a top-level"),
    (f'commit = "{C2}"', f'commit = "{C2}"\nexclude = ["*"]', r"'\*' is not a top-level"),
    (f'commit = "{C2}"', f'commit = "{C2}"\nexclude = [".."]', r"'\.\.' is not a top-level"),
    (f'commit = "{C2}"', f'commit = "{C2}"\nexclude = ["t", "t"]', r"lists a path twice"),
    (f'commit = "{C1}"', f'commit = "{C1}"\nexclude = ["deps"]', r"holds the submodule 'deps/sub'"),
    ('strip = 1', 'strip = 1\nexclude = ["t"]', r"\[inputs.cc\] field 'exclude': unknown field"),
    (f'commit = "{C2}"', f'commit = "{C2}"\ninclude = []', r"'include': must be a non-empty"),
    (f'commit = "{C2}"', f'commit = "{C2}"\ninclude = ["a/*.bin"]', r"'a/\*.bin' is not a path"),
    (f'commit = "{C2}"', f'commit = "{C2}"\ninclude = ["../x"]', r"may not contain '\.\.'"),
    (f'commit = "{C2}"', f'commit = "{C2}"\ninclude = ["a", "a"]', r"lists a path twice"),
    (f'commit = "{C2}"', f'commit = "{C2}"\ninclude = ["a"]\nexclude = ["b"]',
     r"'include': cannot be combined"),
    (f'commit = "{C1}"', f'commit = "{C1}"\ninclude = ["a"]', r"'include': cannot be combined"),
    ("schema = 1", "schema = = 1", r"not valid TOML"),
]


@pytest.mark.parametrize(("old", "new", "error"), BROKEN, ids=[e for _, _, e in BROKEN])
def test_errors_name_table_and_field(tmp_path: Path, old: str, new: str, error: str) -> None:
    text = GOOD.format(S1=S1, S2=S2, C1=C1, C2=C2)
    assert old in text
    path = lock_from(tmp_path, text.replace(old, new, 1))
    with pytest.raises(LockError, match=error) as info:
        load_lock(path)
    assert str(path) in str(info.value)


def test_missing_lock_file(tmp_path: Path) -> None:
    with pytest.raises(LockError, match="lock file not found"):
        load_lock(tmp_path / "nope.lock")


def test_submodule_cycle(tmp_path: Path) -> None:
    url = "https://example.com/x.git"
    path = write_lock(
        tmp_path,
        {
            "a": {"kind": "git", "url": url, "commit": C1, "submodules": {"b": "b"}},
            "b": {"kind": "git", "url": url, "commit": C2, "submodules": {"a": "a"}},
        },
    )
    with pytest.raises(LockError, match="submodule cycle a -> b -> a"):
        load_lock(path)


def test_wheel_fields(tmp_path: Path) -> None:
    wheel = {"kind": "wheel", "package": "p", "version": "1", "files": {"p-1.tar.gz": S1}}
    with pytest.raises(LockError, match=r"'p-1.tar.gz' is not a wheel file name"):
        load_lock(write_lock(tmp_path, {"w": wheel}))
    wheel["files"] = {"p-1-py3-none-any.whl": "123"}
    with pytest.raises(LockError, match=r"field 'files': must be 64 hex digits \(the sha256 of"):
        load_lock(write_lock(tmp_path, {"w": wheel}))


def _keys(tmp_path: Path, **changes: str) -> dict[str, str]:
    text = GOOD.format(S1=S1, S2=S2, C1=C1, C2=C2)
    for old, new in changes.values():
        text = text.replace(old, new)
    lock = load_lock(lock_from(tmp_path, text))
    return {name: inp.key() for name, inp in lock.inputs.items()} | {
        "toolchain": lock.toolchain_key()
    }


def test_keys_follow_pins_not_sources(tmp_path: Path) -> None:
    base = _keys(tmp_path)
    assert all(len(k) == 16 and int(k, 16) >= 0 for k in base.values())
    assert _keys(tmp_path) == base  # stable

    # Where an input comes from is not part of its pin.
    moved = _keys(tmp_path, url=("https://example.com/", "https://mirror.example.org/"))
    assert moved == base
    tagged = _keys(tmp_path, tag=(f'commit = "{C1}"', f'commit = "{C1}"\ntag = "v1"'))
    assert tagged == base

    # A submodule's pin changes its superproject's key, not the other way round.
    sub = _keys(tmp_path, c=(C2, "3" * 40))
    assert sub["sub"] != base["sub"] and sub["top"] != base["top"] and sub["cc"] == base["cc"]

    patched = _keys(tmp_path, p=(S2, "c" * 64))
    assert patched["top"] != base["top"] and patched["sub"] == base["sub"]

    # Left-out paths change the tree; their order and an empty list do not.
    c2 = f'commit = "{C2}"'
    excluded = _keys(tmp_path, e=(c2, f'{c2}\nexclude = ["a", "b"]'))
    assert excluded["sub"] != base["sub"] and excluded["top"] != base["top"]
    assert _keys(tmp_path, e=(c2, f'{c2}\nexclude = ["b", "a"]')) == excluded
    assert _keys(tmp_path, e=(c2, f"{c2}\nexclude = []")) == base

    stripped = _keys(tmp_path, s=("strip = 1", "strip = 2"))
    assert stripped["cc"] != base["cc"] and stripped["toolchain"] != base["toolchain"]
