"""Exit codes of the ``hebbs`` command and the error that means "bad input on the command line"."""

from __future__ import annotations

from typing import Final

#: The command did what it was asked.
EXIT_OK: Final = 0
#: The engine failed or the memory does not exist.
EXIT_FAILURE: Final = 1
#: The command line or an argument value was invalid; nothing was written.
EXIT_USAGE: Final = 2
#: The server refused the API key (missing, unknown, revoked, expired or without the scope).
EXIT_AUTH: Final = 3
#: The server of ``--url`` could not be reached or is not ready.
EXIT_UNAVAILABLE: Final = 4
#: The request contradicts the store's state (a superseded memory revised, a tenant of one
#: organization joining another); nothing was written.
EXIT_CONFLICT: Final = 5
#: Interrupted with Ctrl-C (128 + SIGINT), the shell convention.
EXIT_INTERRUPTED: Final = 130


class UsageError(Exception):
    """Bad input on the command line: ``field`` names the argument, ``reason`` says why and
    ``prog`` is the (sub)command it was given to, when known."""

    def __init__(self, field: str, reason: str, prog: str | None = None) -> None:
        super().__init__(f"{field}: {reason}" if field else reason)
        self.field = field
        self.reason = reason
        self.prog = prog
