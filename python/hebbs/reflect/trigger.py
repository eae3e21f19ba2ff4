"""The optional background reflection: a daemon thread that runs ``reflect()`` when the store
has grown by ``after_memories`` since the last run, or ``interval`` seconds have passed (either
or both). The write path does nothing for it: the thread reads the memory counter (a number the
engine keeps, no scan) every ``TRIGGER_POLL_S`` seconds. A failed run is logged and kept in
``last_error``; the next condition tries again."""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from hebbs.errors import HebbsError

from .constants import TRIGGER_POLL_S
from .results import ReflectResult

if TYPE_CHECKING:
    from hebbs.engine import Hebbs

log = logging.getLogger("hebbs.reflect")


class ReflectTrigger:
    """Started by ``Hebbs.open(reflect_after_memories=..., reflect_interval=...)``; stopped by
    ``close``. ``runs`` counts completed runs, ``last_result`` / ``last_error`` the latest."""

    def __init__(self, engine: Hebbs, after_memories: int | None, interval: float | None) -> None:
        self._engine = engine
        self.after_memories = after_memories
        self.interval = interval
        self.runs = 0
        self.last_result: ReflectResult | None = None
        self.last_error: HebbsError | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._loop, name="hebbs-reflect-trigger", daemon=True
        )
        self._thread.start()

    def _due(self, count: int, base: int, since: float) -> bool:
        grown = self.after_memories is not None and count - base >= self.after_memories
        waited = self.interval is not None and time.monotonic() - since >= self.interval
        return grown or waited

    def _loop(self) -> None:
        base = self._engine.health().memory_count
        since = time.monotonic()
        while not self._stop.wait(TRIGGER_POLL_S):
            try:
                count = self._engine.health().memory_count
                if not self._due(count, base, since):
                    continue
                self.last_result = self._engine.reflect()
                self.last_error = None
            except HebbsError as error:
                if self._stop.is_set():
                    return
                log.warning("background reflect failed: %s", error)
                self.last_error = error
            self.runs += 1
            base = self._engine.health().memory_count if not self._stop.is_set() else base
            since = time.monotonic()

    def stop(self) -> None:
        """Stops the thread and waits for a run in progress to end."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
