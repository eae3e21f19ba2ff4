"""The memory explorer at ``/ui`` in a real headless Chromium (Debian's ``chromium``, driven by
Playwright for Python), against a real server on 127.0.0.1 with the bundled model: the page asks
for a key and keeps it out of the URL, searches with each strategy, re-ranks when a weight
moves, opens a memory's graph and expands a node, revises and forgets after a confirmation,
and shows an entity's timeline; ``hebbs ui --db DIR`` serves one store without a key.

Each view is saved as a screenshot under ``$HEBBS_TEST_ARTIFACTS`` (default
``test-artifacts/`` in the repository, then ``explorer/``) and checked for content: the PNG,
decoded by the browser, has many colours, so it is not a blank page.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

import hebbs
from hebbs.server.serve import BackgroundServer
from hebbs.service.keys import KeyStore

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(os.environ.get("HEBBS_TEST_ARTIFACTS", ROOT / "test-artifacts")) / "explorer"
#: Debian's chromium, which the bootstrap installs; Playwright never downloads a browser here.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Milliseconds the page gets for one step.
STEP_MS = 20_000
#: A screenshot with fewer colours than this is taken as blank.
MIN_COLOURS = 16

MEMORIES: list[dict[str, Any]] = [
    {"content": "Acme asked for a 20% discount on the annual plan", "importance": 0.9},
    {"content": "Acme signed the contract after the discount was approved", "importance": 0.3},
    {"content": "Acme scheduled the onboarding call for Monday", "importance": 0.6},
    {"content": "Acme's finance team asked for invoices in euros", "importance": 0.1},
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


class Site:
    """A server with one tenant's memories, its write and read keys, and another tenant's key."""

    def __init__(self, url: str, keys: dict[str, str], ids: list[str]) -> None:
        self.url = url
        self.key = keys["write"]
        self.keys = keys
        self.ids = ids

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.key}"}
        return httpx.request(method, self.url + path, headers=headers, timeout=30, **kwargs)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    data = tmp_path_factory.mktemp("explorer")
    store = KeyStore(data)
    keys = {
        "write": store.create("acme", "write")[0],
        "read": store.create("acme", "read")[0],
        "other": store.create("globex", "write")[0],
    }
    key = keys["write"]
    store.close()
    with BackgroundServer(data) as server:
        with hebbs.HebbsClient(server.url, api_key=key) as client:
            ids: list[str] = []
            for memory in MEMORIES:
                # Each memory was caused by the one before: a chain of four.
                edges = [
                    hebbs.Edge(bytes.fromhex(i), hebbs.EdgeType.CAUSED_BY, 0.9) for i in ids[-1:]
                ]
                stored = client.remember(entity_id="acme", edges=edges, **memory)
                ids.append(stored.id_hex)
            client.remember("The weather in Lisbon was sunny all week", importance=0.5)
        yield Site(server.url, keys, ids)


@pytest.fixture
def page(browser: Browser, site: Site) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(STEP_MS)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(site.url + "/ui/")
    yield opened
    context.close()
    assert errors == []


def log_in(page: Page, site: Site, key: str | None = None) -> None:
    page.fill("#api-key", site.key if key is None else key)
    page.click("#key-form button")
    page.wait_for_selector("#health:has-text('memories')")


def recall(page: Page, cue: str, strategy: str = "similarity", entity: str = "") -> list[str]:
    """Runs a search and returns the ids of its results, in order."""
    page.fill("#cue", cue)
    page.select_option("#strategy", strategy)
    page.fill("#entity", entity)
    before = searches(page)
    page.click("#search-button")
    wait_for_search(page, before)
    return result_ids(page)


def searches(page: Page) -> int:
    """How many searches the results list has shown."""
    return int(page.eval_on_selector("#results", "list => list.dataset.searches || '0'"))


def wait_for_search(page: Page, before: int) -> None:
    """Waits until the results list shows a search after the first ``before``."""
    page.wait_for_function(
        "before => Number(document.querySelector('#results').dataset.searches || 0) > before",
        arg=before,
    )


def result_ids(page: Page) -> list[str]:
    ids: list[str] = page.eval_on_selector_all(
        "#results li", "items => items.map(i => i.dataset.id)"
    )
    return ids


def shoot(page: Page, name: str) -> Path:
    """Saves a screenshot of the page as an artefact and checks it is not blank."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert colours(page, path.read_bytes()) >= MIN_COLOURS, f"{path} looks blank"
    return path


#: Counts the colours of an image (every 7th pixel) drawn on a canvas.
COUNT_COLOURS = """async source => {
    const image = new Image();
    image.src = source;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set();
    for (let i = 0; i < data.length; i += 4 * 7) {
        seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    }
    return seen.size;
}"""


def colours(page: Page, png: bytes) -> int:
    """The distinct colours of ``png``, decoded by the browser in a blank page of its own."""
    blank = page.context.new_page()
    try:
        count: int = blank.evaluate(
            COUNT_COLOURS, "data:image/png;base64," + base64.b64encode(png).decode()
        )
    finally:
        blank.close()
    return count


def test_the_page_asks_for_a_key_and_keeps_it_in_the_session(page: Page, site: Site) -> None:
    assert page.is_visible("#key-dialog")
    assert not page.is_visible("#app")
    shoot(page, "01-key")
    page.fill("#api-key", "hb_not-a-key")
    page.click("#key-form button")
    page.wait_for_selector("#key-error:has-text('unknown API key')")
    log_in(page, site)
    assert page.is_visible("#app")
    assert site.key not in page.url
    assert page.evaluate("sessionStorage.getItem('hebbs.apiKey')") == site.key
    assert "5 memories" in page.inner_text("#health")
    page.reload()
    page.wait_for_selector("#health:has-text('memories')")
    assert not page.is_visible("#key-dialog")


@pytest.mark.parametrize(
    ("strategy", "cue", "entity"),
    [
        ("similarity", "discount on the plan", ""),
        ("hybrid", "discount", ""),
        ("keyword", "invoices", ""),
        ("temporal", "", "acme"),
        ("causal", "Acme signed the contract", ""),
        ("analogical", "a customer wants a lower price", ""),
        ("regex", "onboard(ing)? call", ""),
    ],
)
def test_search_with_each_strategy(
    page: Page, site: Site, strategy: str, cue: str, entity: str
) -> None:
    log_in(page, site)
    found = recall(page, cue, strategy, entity)
    assert found, page.inner_text("#status")
    assert f"{strategy}:" in page.inner_text("#results li >> nth=0")
    if strategy == "regex":
        assert found == [site.ids[2]]
    if strategy == "temporal":
        assert set(found) == set(site.ids)
    if strategy == "similarity":
        shoot(page, "02-search")


def test_the_default_search_runs_the_server_default_pipeline(page: Page, site: Site) -> None:
    log_in(page, site)
    assert page.eval_on_selector("#strategy", "select => select.value") == "default"
    found = recall(page, "did the customer ask for a lower price?", "default")
    assert found, page.inner_text("#status")
    first = page.inner_text("#results li >> nth=0")
    assert "hybrid:" in first
    assert "rerank_score" in first


def test_a_filter_narrows_the_search(page: Page, site: Site) -> None:
    log_in(page, site)
    unfiltered = recall(page, "the weather in Lisbon", "similarity")
    assert len(unfiltered) == len(site.ids) + 1
    page.fill("#filter", '{"entity_id": "acme"}')
    assert set(recall(page, "the weather in Lisbon", "similarity")) == set(site.ids)
    page.fill("#filter", '{"entity_id": {"$gt": [1]}}')
    recall(page, "the weather in Lisbon", "similarity")
    assert "filter.entity_id.$gt" in page.inner_text("#status")
    page.fill("#filter", "{entity")
    recall(page, "the weather in Lisbon", "similarity")
    assert "filter: not JSON" in page.inner_text("#status")


@pytest.mark.parametrize("strategy", ["default", "similarity"])
def test_the_bars_add_up_to_the_score(page: Page, site: Site, strategy: str) -> None:
    log_in(page, site)
    recall(page, "Acme discount", strategy)
    first = page.locator("#results li").first
    score = float(first.locator(".score").inner_text())
    parts = [float(text) for text in first.locator(".signal .value").all_inner_texts()]
    assert len(parts) == 4
    assert abs(sum(parts) - score) < 0.01


def test_the_weights_start_at_the_engine_defaults(page: Page, site: Site) -> None:
    log_in(page, site)
    defaults = hebbs.ScoringWeights()
    for name in ("relevance", "recency", "importance", "reinforcement"):
        weight = getattr(defaults, f"w_{name}")
        assert float(page.input_value(f"#w-{name}")) == pytest.approx(weight)
        assert page.inner_text(f"#w-{name}-value") == f"{weight:.2f}"


def test_a_weight_change_re_ranks(page: Page, site: Site) -> None:
    log_in(page, site)
    recall(page, "Acme signed the contract after the discount", entity="acme")
    # Relevance alone: the memory that says it ranks first.
    for name, value in (("importance", "0"), ("recency", "0"), ("reinforcement", "0")):
        set_slider(page, name, value)
    set_slider(page, "relevance", "1")
    wait_for_order(page, [site.ids[1]])
    by_relevance = result_ids(page)
    shoot(page, "03-relevance-only")
    # Importance alone: 0.9, 0.6, 0.3, 0.1.
    set_slider(page, "relevance", "0")
    set_slider(page, "importance", "1")
    by_importance = [site.ids[i] for i in (0, 2, 1, 3)]
    wait_for_order(page, by_importance)
    assert result_ids(page) == by_importance != by_relevance
    scores = [float(text) for text in page.locator("#results .score").all_inner_texts()]
    assert scores == pytest.approx([0.9, 0.6, 0.3, 0.1], abs=1e-3)
    shoot(page, "03-importance-only")


def wait_for_order(page: Page, first: list[str]) -> None:
    """Waits until the results start with ``first``."""
    page.wait_for_function(
        "ids => [...document.querySelectorAll('#results li')].slice(0, ids.length)"
        ".map(i => i.dataset.id).join() === ids.join()",
        arg=first,
    )


def set_slider(page: Page, name: str, value: str) -> None:
    page.eval_on_selector(
        f"#w-{name}",
        "(slider, value) => { slider.value = value; slider.dispatchEvent(new Event('input')); }",
        value,
    )


def test_the_graph_opens_and_expands_on_click(page: Page, site: Site) -> None:
    log_in(page, site)
    recall(page, "Acme signed the contract after the discount was approved", entity="acme")
    page.click(f"#results li[data-id='{site.ids[1]}']")
    page.wait_for_selector("#memory-fields")
    page.click("#show-graph")
    page.wait_for_selector("#graph-summary:has-text('3 memories')")
    assert page.inner_text("#graph-summary") == "3 memories, 2 edges"
    assert page.locator("#graph-canvas line.edge.caused_by").count() == 2
    page.click(f"#graph-canvas g.node[data-id='{site.ids[2]}']")
    page.wait_for_selector("#graph-summary:has-text('4 memories')")
    assert page.inner_text("#graph-summary") == "4 memories, 3 edges"
    assert page.locator(f"#graph-canvas g.node.expanded[data-id='{site.ids[2]}']").count() == 1
    shoot(page, "04-graph")


def test_a_memory_page_shows_lineage_access_and_decay(page: Page, site: Site) -> None:
    log_in(page, site)
    recall(page, "onboarding call", entity="acme")
    page.click(f"#results li[data-id='{site.ids[2]}']")
    page.wait_for_selector("#memory-fields")
    fields = page.inner_text("#memory-fields")
    assert site.ids[2] in fields
    assert re.search(r"access count\s+\d+", fields)
    assert re.search(r"decay score\s+0\.\d{3}", fields)
    assert page.locator("#lineage li").count() == 1
    shoot(page, "05-memory")


def test_revise_and_forget_ask_first(page: Page, site: Site) -> None:
    log_in(page, site)
    original = site.api(
        "POST", "/v1/memories", json={"content": "Globex renews in March", "entity_id": "globex"}
    ).json()["id"]
    recall(page, "Globex renews", entity="globex")
    page.click(f"#results li[data-id='{original}']")
    page.wait_for_selector("#memory-fields")
    page.fill("#revise-text", "Globex renews in April")
    page.click("#revise")
    page.wait_for_selector("#confirm[open]")
    before = searches(page)
    page.click("#confirm-yes")
    page.wait_for_selector("#lineage li >> nth=1")
    wait_for_search(page, before)
    assert page.inner_text("#status").startswith("revised: ")
    chain = page.locator("#lineage li").all_inner_texts()
    assert "revision · Globex renews in April" in chain[1]
    revision = page.eval_on_selector("#lineage li:nth-child(2)", "item => item.dataset.id")
    page.click("#show-graph")
    page.wait_for_selector("#graph-canvas line.edge.revised_from", state="attached")
    assert page.inner_text("#graph-summary") == "2 memories, 1 edges"

    page.click("#forget")
    page.wait_for_selector("#confirm[open]")
    shoot(page, "06-confirm-forget")
    page.click("#confirm-no")
    assert site.api("GET", f"/v1/memories/{revision}").status_code == 200
    page.wait_for_selector("#confirm:not([open])", state="attached")
    page.click("#forget")
    page.wait_for_selector("#confirm[open]")
    before = searches(page)
    page.click("#confirm-yes")
    # The results are searched again after the forget; that search must not replace its status.
    wait_for_search(page, before)
    assert page.inner_text("#status") == "forgot 1 memory"
    assert not page.is_visible("#memory")
    assert site.api("GET", f"/v1/memories/{revision}").status_code == 404
    page.wait_for_function(
        "id => ![...document.querySelectorAll('#results li')].some(i => i.dataset.id === id)",
        arg=revision,
    )


def test_the_timeline_is_in_time_order_and_opens_a_memory(page: Page, site: Site) -> None:
    log_in(page, site)
    page.fill("#timeline-entity", "acme")
    page.click("#timeline-form button")
    page.wait_for_selector("#timeline-summary:has-text('memories of acme')")
    cards = page.eval_on_selector_all(
        "#timeline-strip .card",
        "cards => cards.map(c => [c.dataset.id, c.querySelector('time').textContent])",
    )
    assert [card[0] for card in cards] == site.ids
    assert [card[1] for card in cards] == sorted(card[1] for card in cards)
    page.click(f"#timeline-strip .card[data-id='{site.ids[0]}']")
    page.wait_for_selector(f"#memory-fields:has-text('{site.ids[0]}')")
    shoot(page, "07-timeline")
    # A date range: up to yesterday holds none of them, from today all (UTC days).
    today = datetime.now(timezone.utc).date()
    page.fill("#timeline-to", (today - timedelta(days=1)).isoformat())
    page.click("#timeline-form button")
    page.wait_for_selector("#timeline-summary:has-text('0 memories of acme')")
    page.fill("#timeline-to", "")
    page.fill("#timeline-from", today.isoformat())
    page.click("#timeline-form button")
    page.wait_for_selector("#timeline-summary:has-text('4 memories of acme')")


def test_another_tenants_key_sees_nothing_and_a_read_key_cannot_forget(
    page: Page, site: Site
) -> None:
    log_in(page, site, site.keys["other"])
    assert "0 memories" in page.inner_text("#health")
    assert recall(page, "Acme discount") == []
    assert recall(page, "", "temporal", "acme") == []
    page.click("#change-key")
    log_in(page, site, site.keys["read"])
    recall(page, "Acme discount", entity="acme")
    page.click(f"#results li[data-id='{site.ids[0]}']")
    page.wait_for_selector("#memory-fields")
    page.click("#forget")
    page.click("#confirm-yes")
    page.wait_for_selector("#status.error:has-text('scope is read')")
    assert site.api("GET", f"/v1/memories/{site.ids[0]}").status_code == 200


def test_hebbs_ui_serves_one_store_without_a_key(browser: Browser, tmp_path: Path) -> None:
    store = tmp_path / "store"
    with hebbs.Hebbs.open(store) as mem:
        mem.remember("A note in a local store", entity_id="local")
    command = [
        str(Path(sys.executable).with_name("hebbs")),
        "ui",
        "--db",
        str(store),
        "--no-browser",
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/ui/)", line)
        assert match, line
        context = browser.new_context()
        page = context.new_page()
        page.set_default_timeout(STEP_MS)
        page.goto(match.group(1))
        page.wait_for_selector("#health:has-text('1 memories')")
        assert not page.is_visible("#key-dialog")
        page.fill("#timeline-entity", "local")
        page.click("#timeline-form button")
        page.wait_for_selector("#timeline-strip .card:has-text('A note in a local store')")
        shoot(page, "08-hebbs-ui")
        context.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
