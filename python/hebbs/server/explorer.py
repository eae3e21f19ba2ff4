"""The memory explorer: the web page at ``/ui`` that ``hebbs serve`` (and ``hebbs ui``) serves.

The page is static: ``hebbs/server/ui/`` holds ``index.html``, ``style.css`` and ``js/``, the
JavaScript that ``clients/explorer`` compiles from TypeScript (committed, shipped in the wheel,
rebuilt and compared in CI). It loads without a key, asks for one when the API answers 401,
keeps it in the tab's ``sessionStorage`` and sends it as ``Authorization: Bearer`` to the same
``/v1/`` API as every client: the page adds no endpoint and sees only the key's tenant. Nothing
is fetched from anywhere else, so it works offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles

#: Where the page is served.
UI_PATH: Final = "/ui"
#: The page's files, inside the package.
UI_DIR: Final = Path(__file__).resolve().parent / "ui"


def install(app: FastAPI) -> None:
    """Serves the page at :data:`UI_PATH` (``/`` redirects there)."""
    app.mount(UI_PATH, StaticFiles(directory=UI_DIR, html=True), name="ui")

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse(f"{UI_PATH}/")
