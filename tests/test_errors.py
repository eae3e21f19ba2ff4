"""The exception hierarchy: every error is a HebbsError, HebbsIOError is also an OSError raised by
real I/O failures, InternalError exists for engine panics, and the deprecated IndexError alias
warns and is VectorIndexError."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

import hebbs
import hebbs.errors
from hebbs import _native


def test_every_exception_derives_from_hebbs_error() -> None:
    names = [name for name in hebbs.errors.__all__ if name != "HebbsError"]
    assert "VectorIndexError" in names
    assert "InternalError" in names
    for name in names:
        kind = getattr(hebbs, name)
        assert kind is getattr(hebbs.errors, name)
        assert issubclass(kind, hebbs.HebbsError), name
    native = {
        name
        for name in _native.__all__
        if isinstance(getattr(_native, name), type)
        and issubclass(getattr(_native, name), BaseException)
    }
    assert native <= set(hebbs.errors.__all__)


def test_internal_error_is_a_hebbs_error_not_a_runtime_error() -> None:
    assert issubclass(hebbs.InternalError, hebbs.HebbsError)
    assert not issubclass(hebbs.InternalError, RuntimeError)
    assert hebbs.InternalError.__module__ == "hebbs"


def test_vector_index_error_no_longer_shadows_the_builtin() -> None:
    assert hebbs.VectorIndexError.__name__ == "VectorIndexError"
    assert not hasattr(_native, "IndexError")
    assert "IndexError" not in hebbs.__all__
    assert "IndexError" not in hebbs.errors.__all__
    namespace: dict[str, object] = {}
    exec("from hebbs import *", namespace)
    assert "IndexError" not in namespace


@pytest.mark.parametrize("module", [hebbs, hebbs.errors])
def test_index_error_is_a_deprecated_alias(module: object) -> None:
    with pytest.warns(DeprecationWarning, match=r"IndexError is deprecated.*VectorIndexError"):
        alias = module.IndexError  # type: ignore[attr-defined]
    assert alias is hebbs.VectorIndexError


def test_the_deprecation_warning_points_at_the_caller() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from hebbs import IndexError as alias
        from hebbs.errors import IndexError as same
    assert alias is same is hebbs.VectorIndexError
    assert caught
    for warning in caught:
        assert warning.category is DeprecationWarning
        assert warning.filename == __file__


def test_unknown_attributes_still_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchError"):
        _ = hebbs.NoSuchError  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="NoSuchError"):
        _ = hebbs.errors.NoSuchError  # type: ignore[attr-defined]


def test_hebbs_io_error_is_an_os_error() -> None:
    assert issubclass(hebbs.HebbsIOError, OSError)
    assert issubclass(hebbs.HebbsIOError, hebbs.HebbsError)
    assert hebbs.HebbsIOError.__module__ == "hebbs"


def test_opening_a_store_at_a_regular_file_raises_hebbs_io_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a regular file")
    for path in (blocker, blocker / "db"):
        with pytest.raises(OSError, match=re.escape(str(path))) as caught:
            _native.NativeEngine(str(path), dimension=4)
        error = caught.value
        assert isinstance(error, hebbs.HebbsIOError)
        assert isinstance(error, hebbs.HebbsError)
        assert error.errno is not None
        assert error.filename == str(path)


def test_the_public_open_raises_it_too(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(hebbs.HebbsIOError) as caught:
        hebbs.Hebbs.open(blocker / "db", embedder=lambda texts: [[1.0, 0.0]] * len(texts))
    assert isinstance(caught.value, OSError)
