"""What every request model is made of: the :class:`Request` base, the :class:`Returns` marker
of its result, :func:`parse` (a method's arguments checked as its model, a fault named by its
field) and :class:`Runner`, whose ``run`` executes a checked request.

The operations' models and keyword methods live beside each other (:mod:`hebbs.api.recall` for
recall and prime, :mod:`hebbs.api.requests` and :mod:`hebbs.api.operations` for the others).
"""

from __future__ import annotations

import functools
import inspect
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, Callable, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

from hebbs._inputs import invalid
from hebbs.errors import InvalidInputError, InvalidTypeError, InvalidValueError

if sys.version_info >= (3, 10):
    from typing import Concatenate, ParamSpec
else:
    from typing_extensions import Concatenate, ParamSpec

Result = TypeVar("Result", covariant=True)


class Request(BaseModel):
    """The base of every request: unknown fields are refused, native values pass as they are."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, frozen=True)


class Returns(Generic[Result]):
    """What an operation's request gives when it runs, for the type checker: ``run`` of a
    ``Returns[T]`` request is a ``T`` (:class:`Runner`)."""

    __slots__ = ()


R = TypeVar("R", bound=Request)
S = TypeVar("S")
T = TypeVar("T")
P = ParamSpec("P")


def parse(model: type[R], arguments: Mapping[str, Any], prefix: str = "") -> R:
    """``model`` built from ``arguments`` (a method's parameters, ``self`` left out), or the
    first problem as an :class:`InvalidTypeError` / :class:`InvalidValueError` naming its field
    (``prefix`` goes before the field names).

    An argument that is its field's default object itself is left out, so it is not checked
    again: a call pays only for the arguments it gives.
    """
    defaults = _defaults(model)
    given = {
        name: value
        for name, value in arguments.items()
        if name != "self" and defaults.get(name, _REQUIRED) is not value
    }
    try:
        # The model's validator itself: ``model_validate`` adds a Python call around it,
        # measured at 4 us of a recall's 100 right after a vector search (docs/architecture.md).
        request: R = model.__pydantic_validator__.validate_python(given)
    except ValidationError as error:
        raise invalid_input(error.errors(include_url=False)[0], prefix) from None
    return request


def by_keyword(
    model: type[R], run: Callable[[S, R], T]
) -> Callable[[Callable[Concatenate[S, P], T]], Callable[Concatenate[S, P], T]]:
    """Gives a method whose body is ``run(self, parse(model, locals()))`` a shorter way for
    calls that pass every argument by keyword: their keywords are already the given arguments,
    so they are checked as ``model`` at once, without the frame's locals (one per parameter)
    and the scan of them. Any other call (an argument by position, a keyword the method does
    not take) runs the method's own body, which binds it as Python does, or raises Python's
    :class:`TypeError`. Both ways build the same request and run it the same way.

    For the hot calls: on a recall it saves about 4 us of 100 (docs/architecture.md)."""

    def decorate(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
        names = frozenset(inspect.signature(method).parameters) - {"self"}
        defaults = _defaults(model)
        validate = model.__pydantic_validator__.validate_python

        def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
            # `parse` inlined: each Python call costs about 1 us right after a vector search.
            if args or not names.issuperset(kwargs):
                return method(self, *args, **kwargs)
            for name, value in list(kwargs.items()):
                if defaults.get(name, _REQUIRED) is value:
                    del kwargs[name]
            try:
                request: R = validate(kwargs)
            except ValidationError as error:
                raise invalid_input(error.errors(include_url=False)[0]) from None
            return run(self, request)

        functools.update_wrapper(call, method)
        return call

    return decorate


_REQUIRED = object()
_DEFAULTS: dict[type[Request], dict[str, Any]] = {}


def _defaults(model: type[Request]) -> dict[str, Any]:
    """Each field's default object (fields without one are left out)."""
    found = _DEFAULTS.get(model)
    if found is None:
        found = {
            name: field.default
            for name, field in model.model_fields.items()
            if not field.is_required()
        }
        _DEFAULTS[model] = found
    return found


def invalid_input(detail: ErrorDetails, prefix: str = "") -> InvalidInputError:
    """The exception for one pydantic error: a wrong type is an :class:`InvalidTypeError`,
    anything else an :class:`InvalidValueError`; ``field`` is the dotted path of the value."""
    loc = list(detail["loc"])
    kind = detail["type"]
    reason = detail["msg"]
    if kind == "extra_forbidden":
        reason = f"unknown field {loc.pop()!r}"
    is_type = kind == "hebbs_type" or kind.endswith("_type") or kind == "extra_forbidden"
    if kind == "missing":
        reason = "is required"
        is_type = True
    field = _dotted(prefix, loc) + str(detail.get("ctx", {}).get("inside", ""))
    return invalid(field, reason, InvalidTypeError if is_type else InvalidValueError)


def _dotted(prefix: str, loc: list[int | str]) -> str:
    field = prefix
    for part in loc:
        if isinstance(part, int):
            field += f"[{part}]"
        else:
            field += f".{part}" if field else part
    return field


class Runner(ABC):
    """What the keyword methods of every operation call: :meth:`run` of a checked request."""

    @abstractmethod
    def run(self, request: Returns[T]) -> T:
        """Runs one checked request (a model of :mod:`hebbs.api.requests`) and returns its
        result: what the keyword methods, the server, MCP, the CLI and gRPC all call."""
