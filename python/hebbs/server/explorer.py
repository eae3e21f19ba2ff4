"""The memory explorer: the web page at ``/ui`` that ``hebbs serve`` (and ``hebbs ui``) serves.

The page is static but for its weight sliders: ``hebbs/server/ui/`` holds ``index.html``,
``style.css`` and ``js/``, the JavaScript that ``clients/explorer`` compiles from TypeScript
(committed, shipped in the wheel, rebuilt and compared in CI), and the server sets each
slider's starting value in ``index.html`` to the engine's default weight (``ScoringWeights()``),
so the page holds no copy of the defaults. It loads without a key, asks for one when the API
answers 401, keeps it in the tab's ``sessionStorage`` and sends it as ``Authorization: Bearer``
to the same ``/v1/`` API as every client: the page adds no endpoint and sees only the key's
tenant. Nothing is fetched from anywhere else, so it works offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from hebbs._native import ScoringWeights

#: Where the page is served.
UI_PATH: Final = "/ui"
#: The page's files, inside the package.
UI_DIR: Final = Path(__file__).resolve().parent / "ui"


#: The signals whose weight has a slider ``w-<signal>`` on the page.
SIGNALS: Final = ("relevance", "recency", "importance", "reinforcement")


def page_html() -> str:
    """``index.html`` with each weight slider starting at the engine's default weight."""
    html = (UI_DIR / "index.html").read_text(encoding="utf-8")
    defaults = ScoringWeights()
    for signal in SIGNALS:
        slider = f'id="w-{signal}"'
        if html.count(slider) != 1:
            raise ValueError(f"index.html must hold one slider {slider}")
        weight = round(getattr(defaults, f"w_{signal}"), 6)
        html = html.replace(slider, f'{slider} value="{weight}"')
    return html


def install(app: FastAPI) -> None:
    """Serves the page at :data:`UI_PATH` (``/`` redirects there)."""
    page = page_html()

    @app.get(f"{UI_PATH}/", include_in_schema=False)
    @app.get(f"{UI_PATH}/index.html", include_in_schema=False)
    def index() -> HTMLResponse:
        return HTMLResponse(page)

    app.mount(UI_PATH, StaticFiles(directory=UI_DIR, html=True), name="ui")

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse(f"{UI_PATH}/")
