"""The bootstrap's detection asks for exactly what the build lacks: libclang as clang-sys finds it
(``libclang.so`` / ``libclang-N.so``, never ``libclang-cpp``), a C++ compiler, objdump, openssl,
Node.js and npm for the TypeScript SDK, and chromium for the explorer's browser tests.

Each case builds a directory tree and points ``scripts/bootstrap.sh --check`` at it with
``HEBBS_BOOTSTRAP_ROOT``; ``--check`` prints the missing Debian packages and installs nothing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bootstrap.sh"


def missing(root: Path, **env: str) -> list[str]:
    environment = {k: v for k, v in os.environ.items() if k != "LIBCLANG_PATH"}
    environment.update(HEBBS_BOOTSTRAP_ROOT=str(root), **env)
    done = subprocess.run(
        [str(SCRIPT), "--check"], env=environment, capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def touch(root: Path, relative: str, executable: bool = False) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x7fELF")
    if executable:
        path.chmod(0o755)
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    touch(tmp_path, "usr/bin/g++", executable=True)
    touch(tmp_path, "usr/bin/objdump", executable=True)
    touch(tmp_path, "usr/bin/openssl", executable=True)
    touch(tmp_path, "usr/bin/node", executable=True)
    touch(tmp_path, "usr/bin/npm", executable=True)
    touch(tmp_path, "usr/bin/chromium", executable=True)
    return tmp_path


def test_only_libclang_cpp_asks_for_libclang_dev(root: Path) -> None:
    touch(root, "usr/lib/llvm-14/lib/libclang-cpp.so.14")
    touch(root, "usr/lib/x86_64-linux-gnu/libclang-cpp.so.14")
    assert missing(root) == ["libclang-dev"]


def test_suffix_versioned_only_asks_for_libclang_dev(root: Path) -> None:
    # libclang1-14 alone ships libclang.so.1: bindgen's link-time search does not take it.
    touch(root, "usr/lib/llvm-14/lib/libclang.so.1")
    assert missing(root) == ["libclang-dev"]


@pytest.mark.parametrize(
    "library",
    [
        "usr/lib/llvm-14/lib/libclang.so",
        "usr/lib/llvm-16/lib/libclang-16.so",
        "usr/lib/x86_64-linux-gnu/libclang-14.so",
        "usr/local/lib/libclang.so",
    ],
)
def test_a_loadable_libclang_is_enough(root: Path, library: str) -> None:
    touch(root, "usr/lib/llvm-14/lib/libclang-cpp.so.14")
    touch(root, library)
    assert missing(root) == []


def test_libclang_path_is_searched_alone(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("llvm")
    touch(root, "usr/lib/llvm-14/lib/libclang.so")
    assert missing(root, LIBCLANG_PATH=str(elsewhere)) == ["libclang-dev"]
    library = touch(elsewhere, "libclang-14.so")
    assert missing(root, LIBCLANG_PATH=str(elsewhere)) == []
    assert missing(root, LIBCLANG_PATH=str(library)) == []


def test_no_compiler_asks_for_g_plus_plus(tmp_path: Path) -> None:
    touch(tmp_path, "usr/lib/llvm-14/lib/libclang.so")
    touch(tmp_path, "usr/bin/objdump", executable=True)
    touch(tmp_path, "usr/bin/openssl", executable=True)
    touch(tmp_path, "usr/bin/node", executable=True)
    touch(tmp_path, "usr/bin/npm", executable=True)
    touch(tmp_path, "usr/bin/chromium", executable=True)
    assert missing(tmp_path) == ["g++"]


def test_no_objdump_asks_for_binutils(root: Path) -> None:
    touch(root, "usr/lib/llvm-14/lib/libclang.so")
    (root / "usr/bin/objdump").unlink()
    assert missing(root) == ["binutils"]


def test_no_openssl_asks_for_it(root: Path) -> None:
    touch(root, "usr/lib/llvm-14/lib/libclang.so")
    (root / "usr/bin/openssl").unlink()
    assert missing(root) == ["openssl"]


def test_no_node_asks_for_nodejs(root: Path) -> None:
    touch(root, "usr/lib/llvm-14/lib/libclang.so")
    (root / "usr/bin/node").unlink()
    assert missing(root) == ["nodejs"]


def test_no_npm_asks_for_npm(root: Path) -> None:
    # Debian's nodejs comes without npm; a node from elsewhere may bring its own.
    touch(root, "usr/lib/llvm-14/lib/libclang.so")
    (root / "usr/bin/npm").unlink()
    assert missing(root) == ["npm"]


def test_node_in_usr_local_is_found(root: Path) -> None:
    touch(root, "usr/lib/llvm-14/lib/libclang.so")
    (root / "usr/bin/node").unlink()
    (root / "usr/bin/npm").unlink()
    touch(root, "usr/local/bin/node", executable=True)
    touch(root, "usr/local/bin/npm", executable=True)
    assert missing(root) == []


def test_no_chromium_asks_for_it(root: Path) -> None:
    touch(root, "usr/lib/llvm-14/lib/libclang.so")
    (root / "usr/bin/chromium").unlink()
    assert missing(root) == ["chromium"]


def test_a_bare_machine_asks_for_everything(tmp_path: Path) -> None:
    assert missing(tmp_path) == [
        "libclang-dev",
        "g++",
        "binutils",
        "openssl",
        "nodejs",
        "npm",
        "chromium",
    ]


def test_this_machine_has_what_the_build_needs() -> None:
    done = subprocess.run([str(SCRIPT), "--check"], capture_output=True, text=True, check=True)
    assert done.stdout.split() == []


def test_a_chromium_outside_usr_bin_asks_for_debians(root: Path) -> None:
    # The explorer's tests launch /usr/bin/chromium itself; one in /usr/local/bin does not do.
    touch(root, "usr/lib/llvm-14/lib/libclang.so")
    (root / "usr/bin/chromium").unlink()
    touch(root, "usr/local/bin/chromium", executable=True)
    assert missing(root) == ["chromium"]
