"""Bad input from a hostile user: each gets one clear error and leaves nothing trusted behind.

Environment variables, archives served on 127.0.0.1, a full disk during unpacking
and a cache directory that cannot be written.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from fetch_fixtures import FileServer, Member, sha256, tar_bytes, write_lock
from scons_helpers import copy_project, scons

from ireerv import formats as models
from ireerv.inputs import archive, envvars
from ireerv.inputs.fetch import FetchConfig, Fetcher, FetchError
from ireerv.inputs.lock import load_lock


@pytest.fixture
def server() -> Iterator[FileServer]:
    srv = FileServer()
    yield srv
    srv.stop()




def leftovers(cache_root: Path) -> list[Path]:
    return [p for p in cache_root.rglob("*") if ".tmp-" in p.name]


# -- environment variables ---------------------------------------------------------------


@pytest.mark.parametrize("word", ["1", "yes", "YES", "true", "on", "y", " True "])
def test_every_yes_word_means_offline(word: str) -> None:
    assert envvars.offline({"IREERV_OFFLINE": word}) is True
    assert FetchConfig.from_env(environ={"IREERV_OFFLINE": word}).offline is True


@pytest.mark.parametrize("word", ["", "0", "no", "false", "OFF", "n"])
def test_every_no_word_means_online(word: str) -> None:
    assert envvars.offline({"IREERV_OFFLINE": word}) is False


def test_meaningless_environment_values_are_errors() -> None:
    with pytest.raises(FetchError, match=r"IREERV_OFFLINE='maybe' is not a yes/no value"):
        FetchConfig.from_env(environ={"IREERV_OFFLINE": "maybe"})
    with pytest.raises(FetchError, match=r"IREERV_MIRRORS: 'mirror.example' is not a mirror"):
        FetchConfig.from_env(environ={"IREERV_MIRRORS": "http://a/ mirror.example"})
    assert envvars.mirrors({"IREERV_MIRRORS": "http://a/, file:///m  /srv/m"}) == [
        "http://a/", "file:///m", "/srv/m"]
    # A blank IREERV_CACHE is unset, not the current directory.
    home = {"XDG_CACHE_HOME": "/x/cache", "IREERV_CACHE": "  "}
    assert envvars.cache_dir(home) == Path("/x/cache/ireerv")


@pytest.mark.parametrize("word", ["true", "yes", "on"])
def test_scons_offline_words_keep_the_build_off_the_network(
        tree: Path, tmp_path: Path, word: str) -> None:
    env = {**os.environ, "IREERV_OFFLINE": word, "IREERV_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([*_scons_cmd(), "image", "BOARD=qemu-virt"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    assert "is not in the cache" in proc.stderr and "fetching is off" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert not (tmp_path / "cache" / "downloads").exists() or not any(
        (tmp_path / "cache" / "downloads").iterdir())


def _scons_cmd() -> list[str]:
    return [sys.executable, "-c", "import SCons.Script; SCons.Script.main()"]


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("IREERV_OFFLINE", "maybe", "IREERV_OFFLINE='maybe' is not a yes/no value"),
    ("IREERV_MIRRORS", "ftp://m", "IREERV_MIRRORS: 'ftp://m' is not a mirror base URL"),
])
def test_scons_refuses_meaningless_environment(tree: Path, variable: str, value: str,
                                               message: str) -> None:
    env = {**os.environ, variable: value}
    proc = subprocess.run([*_scons_cmd(), "image"], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode != 0
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_broken_board_toml_is_one_clear_error(tmp_path: Path) -> None:
    """Read while SCons checks HARTS against the board: no Python traceback."""
    tree = copy_project(tmp_path / "src")
    toml = tree / "bsp/cluster4/board.toml"
    toml.write_text(toml.read_text().replace("index_bits = 32\n", "index_bits = 32\nextra = 1\n"))
    proc = subprocess.run([*_scons_cmd(), "-n", "image", "BOARD=cluster4"], cwd=tree,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    assert "[iree]: unknown key(s) extra; allowed:" in proc.stderr
    assert "Traceback" not in proc.stderr and 'File "' not in proc.stderr


def test_read_only_cache_dir_is_named(tree: Path) -> None:
    # /proc cannot be written, not even by root (permission bits would not stop root).
    proc = scons(tree, "image", "BOARD=qemu-virt", "CACHE_DIR=/proc/ireerv-cache", check=False)
    assert proc.returncode != 0
    assert "CACHE_DIR=/proc/ireerv-cache is not writable (/proc is read-only)" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


# -- archives ------------------------------------------------------------------------------

# A link that stays inside, then a link whose text stays inside but whose chain leaves.
ESCAPE = [
    Member("pkg/", "dir", mode=0o755),
    Member("pkg/a/b/s", "symlink", link=".."),
    Member("pkg/etc", "symlink", link="a/b/s/b/s/b/s/../../../../../../../etc"),
]


def test_link_chain_out_of_the_tree_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "chain.tar.gz"
    path.write_bytes(tar_bytes(ESCAPE))
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(archive.ArchiveError,
                       match=r"member 'pkg/etc' is a link to .* leads outside the tree"):
        archive.extract(path, dest)


def test_link_chain_through_fetcher_leaves_nothing(tmp_path: Path, server: FileServer) -> None:
    data = tar_bytes(ESCAPE)
    url = server.add("/chain.tar.gz", data)
    lock = write_lock(tmp_path, {"pkg": {"kind": "archive", "url": url, "sha256": sha256(data)}})
    cache_root = tmp_path / "cache"
    fetcher = Fetcher(load_lock(lock), FetchConfig(cache_root=cache_root, log=lambda _: None))
    with pytest.raises(FetchError, match=r"input 'pkg': chain.tar.gz: member 'pkg/etc'.*outside"):
        fetcher.path("pkg")
    assert not any((cache_root / "src").iterdir())
    assert leftovers(cache_root) == []


def test_links_inside_the_tree_still_unpack(tmp_path: Path) -> None:
    path = tmp_path / "ok.tar.gz"
    path.write_bytes(tar_bytes([
        Member("pkg/a/b/s", "symlink", link=".."),
        Member("pkg/lib", "symlink", link="a/b/s/b/s/data"),
        Member("pkg/a/data", data=b"d"),
    ]))
    dest = tmp_path / "dest"
    dest.mkdir()
    archive.extract(path, dest)
    assert (dest / "pkg" / "lib").read_bytes() == b"d"


_FULL_DISK = textwrap.dedent("""
    import resource, signal, sys
    from pathlib import Path
    from ireerv.inputs import archive
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, as on a full disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    try:
        archive.extract(Path(sys.argv[1]), Path(sys.argv[2]))
    except archive.ArchiveError as err:
        print(err)
        sys.exit(1)
""")


def test_full_disk_while_unpacking_says_cannot_write(tmp_path: Path) -> None:
    path = tmp_path / "big.tar.gz"
    path.write_bytes(tar_bytes([Member("pkg/big", data=os.urandom(64 * 1024))]))
    dest = tmp_path / "dest"
    dest.mkdir()
    site = Path(archive.__file__).parents[2]
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run([sys.executable, "-c", _FULL_DISK, str(path), str(dest)],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 1, proc.stderr
    assert f"big.tar.gz: cannot write {dest}/pkg/big: File too large" in proc.stdout
    assert "cannot read" not in proc.stdout and "Traceback" not in proc.stderr


# -- model.toml ----------------------------------------------------------------------------

MATMUL_MLIR = (Path(__file__).parents[1] / "models" / "matmul" / "model.mlir").read_text()
GOOD_TOML = """\
function = "matmul_f32f32f32"
sizes = [4]
tolerance = 0.0

[[inputs]]
shape = ["N", "N"]
dtype = "f32"
generator = { kind = "randint", low = -4, high = 5, seed = 1 }

[[inputs]]
shape = ["N", "N"]
dtype = "f32"
generator = { kind = "randint", low = -4, high = 5, seed = 2 }
"""
INPUT = 'shape = ["N", "N"]\ndtype = "f32"\n'


def model_folder(tmp_path: Path, toml: str, mlir: str = MATMUL_MLIR) -> Path:
    folder = tmp_path / "mymodel"
    folder.mkdir(exist_ok=True)
    (folder / "model.mlir").write_text(mlir)
    (folder / "model.toml").write_text(toml)
    return folder


BAD_TOMLS = {
    "typo-top": (GOOD_TOML.replace("tolerance", "tolerence"),
                 "top level, key 'tolerence': unknown key; did you mean 'tolerance'?"),
    "typo-generator": (GOOD_TOML.replace("generator = { kind", "genrator = { kind", 1),
                       "[[inputs]] 0, key 'genrator': unknown key; did you mean 'generator'?"),
    "missing-shape": (GOOD_TOML.replace('shape = ["N", "N"]\n', "", 1),
                      "[[inputs]] 0, key 'shape': required"),
    "tolerance-text": (GOOD_TOML.replace("0.0", '"abc"'),
                       "top level, key 'tolerance': must be a number >= 0"),
    "tolerance-negative": (GOOD_TOML.replace("0.0", "-0.5"),
                           "top level, key 'tolerance': must be a number >= 0"),
    "inputs-table": ('function = "matmul_f32f32f32"\nsizes = [4]\n[inputs]\n' + INPUT,
                     "top level, key 'inputs': must be an array of tables, written [[inputs]]"),
    "low-above-high": (GOOD_TOML.replace("low = -4, high = 5, seed = 1", "low = 5, high = -4"),
                       "[[inputs]] 0, generator, key 'high': must be greater than low (5)"),
    "unknown-kind": (GOOD_TOML.replace('kind = "randint", low = -4, high = 5, seed = 1',
                                       'kind = "gauss"'),
                     "[[inputs]] 0, generator, key 'kind': unknown generator 'gauss'"),
    "too-few-values": (GOOD_TOML.replace("sizes = [4]", "sizes = [2]").replace(
        '"N", "N"]\ndtype = "f32"\ngenerator = { kind = "randint", low = -4, high = 5, seed = 1 }',
        '2, 2]\ndtype = "f32"\ngenerator = { kind = "values", values = [1, 2, 3] }'),
        "[[inputs]] 0, generator, key 'values': gives 3 values, but shape [2, 2] has 4"),
    "bad-sizes": (GOOD_TOML.replace("sizes = [4]", "sizes = [0, -3]"),
                  "top level, key 'sizes': must be a list of positive whole numbers"),
    "no-sizes": (GOOD_TOML.replace("sizes = [4]\n", ""), "top level, key 'sizes': required"),
    "shape-vs-mlir": (GOOD_TOML.replace('["N", "N"]', "[4, 4]").replace("sizes = [4]\n", ""),
                      None),
}


@pytest.mark.parametrize("case", sorted(BAD_TOMLS))
def test_model_toml_against_its_schema(tmp_path: Path, case: str) -> None:
    toml, message = BAD_TOMLS[case]
    mlir = MATMUL_MLIR
    if case == "shape-vs-mlir":  # a static model whose MLIR says 8x8
        mlir = MATMUL_MLIR.replace("?x?xf32", "8x8xf32")
        message = "[[inputs]] 0, key 'shape': dimension 0 is 4 here but 8 in @matmul_f32f32f32"
    folder = model_folder(tmp_path, toml, mlir)
    with pytest.raises(models.ModelError) as err:
        models.load_model(str(folder))
    assert str(err.value) == f"{folder / 'model.toml'}: {message}" or (
        str(err.value).startswith(f"{folder / 'model.toml'}: {message}")), str(err.value)


@pytest.mark.parametrize("case", ["typo-top", "bad-sizes", "inputs-table"])
def test_scons_names_the_model_toml_key(tree: Path, tmp_path: Path, case: str) -> None:
    toml, message = BAD_TOMLS[case]
    folder = model_folder(tmp_path, toml)
    proc = scons(tree, "image", f"MODEL={folder}", "BOARD=qemu-virt", check=False)
    assert proc.returncode != 0
    assert f"{folder / 'model.toml'}: {message}" in proc.stderr
    assert "SIZE" not in proc.stderr and "Traceback" not in proc.stderr + proc.stdout


@pytest.mark.parametrize(("arg", "message"), [
    ("tensor<*xf32>", "input 0 is unranked (tensor<*xf32>)"),
    ("tensor<4xcomplex<f32>>", "input 0 has the type tensor<4xcomplex<f32>"),
])
def test_unranked_and_complex_inputs(tree: Path, tmp_path: Path, arg: str, message: str) -> None:
    path = tmp_path / "odd.mlir"
    path.write_text(f"func.func @f(%a: {arg}) -> {arg} {{\n  return %a : {arg}\n}}\n")
    proc = scons(tree, "image", f"MODEL={path}", "BOARD=qemu-virt", check=False)
    assert proc.returncode != 0
    assert f"{path}: @f {message}" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


# -- git mirrors without partial-clone filters ---------------------------------------------


def test_mirror_without_filters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fetch_fixtures import commit, git, make_repo, write_gitconfig

    # No uploadpack.allowFilter anywhere: the mirror serves no filtered fetches.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(write_gitconfig(tmp_path / "gitconfig")))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    up = make_repo(tmp_path / "up" / "big.git")
    head = commit(up, {"src/main.c": "int main(void) { return 0; }\n", "tests/huge": "x" * 999})
    table = {"kind": "git", "url": up.as_uri(), "commit": head, "exclude": ["tests"]}
    lock = load_lock(write_lock(tmp_path, {"big": table}))
    config = FetchConfig(cache_root=tmp_path / "cache", log=lambda _: None)
    # A complete mirror: git falls back to a full fetch, and the exclusion still holds.
    tree = Fetcher(lock, config).path("big")
    assert (tree / "src" / "main.c").is_file() and not (tree / "tests").exists()

    # A mirror that lacks the excluded files cannot do that: the error says what it needs.
    blob = git(up, "rev-parse", "HEAD:tests/huge")
    (up / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    config = FetchConfig(cache_root=tmp_path / "cache2", log=lambda _: None)
    with pytest.raises(FetchError) as err:
        Fetcher(lock, config).path("big")
    assert "does not allow filtered fetches" in str(err.value)
    assert "git config uploadpack.allowFilter true" in str(err.value)
    assert leftovers(tmp_path / "cache2") == []


def test_a_hung_compiler_is_an_error_not_a_stuck_build(monkeypatch: pytest.MonkeyPatch) -> None:
    from ireerv.util import mlir_tools

    monkeypatch.setattr(mlir_tools, "TOOL_TIMEOUT", 1)
    with pytest.raises(mlir_tools.CompileError, match=r"sleep did not finish within 1 s"):
        mlir_tools.run_tool(["sleep", "30"])
