"""The page in a real browser: Debian's Chromium, headless, driven by Playwright, against the
real `toolscout dashboard` command. What is asserted is what a user sees, and the file saved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Browser, Page, expect, sync_playwright

from .conftest import CATALOG_FILE, DashboardProcess

CHROMIUM = Path("/usr/bin/chromium")
# Without these, Chromium reaches for Google's servers at start, which this machine refuses.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Bounds on a hang, not timings: on a busy machine the page may take seconds to load and
# answer, and Playwright's own `expect` waits only 5 s by default.
PATIENCE_MS = 30_000
expect.set_options(timeout=PATIENCE_MS)

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (.ci/run installs it)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


def open_page(browser: Browser, url: str, width: int = 1280, height: int = 800) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(PATIENCE_MS)
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    return page


def test_toggle_pin_query_threshold_and_save(
    browser: Browser, served: DashboardProcess, tmp_path: Path
) -> None:
    page = open_page(browser, served.url)
    expect(page.locator("#catalog-name")).to_contain_text("12 tools")
    expect(page.locator("#enabled-label")).to_have_text("off")

    page.get_by_role("switch").check()
    expect(page.locator("#enabled-label")).to_have_text("on")
    expect(page.locator("#unsaved")).to_be_visible()

    page.locator("#tool-filter").fill("forecast")
    page.locator('input[data-tool="weather__get_forecast"]').check()
    expect(page.locator("#pinned-count")).to_have_text("(1)")
    expect(page.locator("#tool-list summary").first).to_have_text("Pinned (1)")

    page.locator("#query-input").fill("weather in Paris")
    first = page.locator("#results .hit").first
    expect(first).to_have_attribute("data-tool", "weather__get_current_weather")
    expect(first.locator("mark").first).to_be_visible()
    absent = page.locator('#absent .hit[data-tool="weather__get_forecast"]')
    expect(absent).to_contain_text("Not returned: pinned")

    # The threshold slider, by keyboard: End takes it to 1, which no tool reaches.
    page.locator("#threshold").focus()
    page.keyboard.press("End")
    expect(page.locator("#threshold-value")).to_have_text("1.00")
    expect(page.locator("#results .hit")).to_have_count(0)
    expect(page.locator("#query-status")).to_contain_text("below the threshold 1.00")

    page.locator("#save-open").click()
    dialog = page.locator("#save-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".diff .add")).to_contain_text(["+  enabled: true"])
    page.locator("#save-confirm").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#toast")).to_contain_text("Saved")
    expect(page.locator("#unsaved")).to_be_hidden()

    saved = yaml.safe_load((tmp_path / "toolscout.yaml").read_text())
    assert saved == {
        "tool_search": {
            "enabled": True,
            "threshold": 1.0,
            "always_available": ["weather__get_forecast"],
        }
    }
    page.close()


def test_engine_and_max_results_change_the_results(
    browser: Browser, served: DashboardProcess
) -> None:
    page = open_page(browser, served.url)
    page.locator("#query-input").fill("search")
    expect(page.locator("#results .hit")).to_have_count(3)
    page.locator("#max-results").focus()
    page.keyboard.press("Home")
    expect(page.locator("#max-results-value")).to_have_text("1")
    expect(page.locator("#results .hit")).to_have_count(1)
    page.locator("#engine").select_option("regex")
    page.locator("#query-input").fill("^send_")
    expect(page.locator("#results .hit")).to_have_count(1)
    expect(page.locator("#results .hit .name mark")).to_have_text("send_")
    page.close()


def test_the_token_panel_draws_the_whole_catalog_against_tool_search(
    browser: Browser, served: DashboardProcess
) -> None:
    page = open_page(browser, served.url)
    expect(page.locator("#tokens-summary")).to_contain_text("Tool search is off")
    page.get_by_role("switch").check()
    expect(page.locator("#tokens-summary")).to_contain_text("saves")
    bars = page.locator("#token-chart rect")
    expect(bars).to_have_count(3)
    widths = [float(bars.nth(i).get_attribute("width") or 0) for i in range(3)]
    assert widths[1] < widths[0]  # the first request with search costs less than everything
    page.close()


def test_a_retrieval_check_shows_recall_and_the_misses(
    browser: Browser, served: DashboardProcess
) -> None:
    page = open_page(browser, served.url)
    page.locator("#check-text").fill(
        "weather in Paris => get_current_weather\nweather next week => get_forecast, send_email"
    )
    page.locator("#check-run").click()
    report = page.locator("#check-report")
    expect(report).to_contain_text("Recall@5")
    expect(report.locator(".metric strong").first).to_have_text("0.750")
    expect(report.locator(".miss")).to_contain_text("email__send_email")
    page.locator("#check-text").fill("not a labelled line")
    page.locator("#check-run").click()
    expect(report).to_contain_text("line 1: expected `query => tool, tool`")
    page.close()


def test_an_uploaded_file_of_labelled_queries_is_checked(
    browser: Browser, served: DashboardProcess, tmp_path: Path
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        '{"query": "what is on my calendar today", "expected": ["list_events"]}\n'
        '{"query": "email the report to Ann", "expected": "email__send_email"}\n'
    )
    page = open_page(browser, served.url)
    page.locator("#check-file").set_input_files(str(labels))
    report = page.locator("#check-report")
    expect(report).to_contain_text("2queries")
    expect(report).to_contain_text("Every expected tool is found.")
    expect(page.locator("#check-text")).to_have_value(labels.read_text())
    page.close()


def test_the_keyboard_reaches_every_control(browser: Browser, served: DashboardProcess) -> None:
    page = open_page(browser, served.url)
    reached = set()
    for _ in range(40):
        page.keyboard.press("Tab")
        reached.add(page.evaluate("document.activeElement.id"))
    assert {"enabled", "save-open", "engine", "mode", "max-results", "threshold"} <= reached
    assert {"tool-filter", "query-input"} <= reached
    page.locator("#save-open").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#save-dialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#save-dialog")).to_be_hidden()
    page.close()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (420, 800)])
def test_readable_at_desktop_size_and_in_a_narrow_window(
    browser: Browser, served: DashboardProcess, width: int, height: int
) -> None:
    page = open_page(browser, served.url, width, height)
    page.locator("#query-input").fill("send an email")
    expect(page.locator("#results .hit").first).to_be_visible()
    overflow = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at {width}px wide"
    box = page.locator("#query-input").bounding_box()
    assert box is not None and box["width"] >= min(width - 80, 300)
    page.close()


def test_saving_beside_a_host_s_file_or_into_it(browser: Browser, tmp_path: Path) -> None:
    host = tmp_path / "claude_desktop_config.json"
    original = '{\n  "globalShortcut": "Ctrl+Space",\n  "mcpServers": {}\n}\n'
    host.write_text(original)
    (tmp_path / "claude_desktop_config.toolscout.yaml").write_text("gateway:\n  port: 0\n")
    process = DashboardProcess("--config", str(host))
    try:
        page = open_page(browser, process.url)
        page.get_by_role("switch").uncheck()
        page.locator("#save-open").click()
        dialog = page.locator("#save-dialog")
        expect(dialog.locator("#save-path")).to_have_text(
            str(tmp_path / "claude_desktop_config.toolscout.yaml")
        )
        expect(dialog.locator("#save-note")).to_contain_text(
            "claude_desktop_config.json belongs to the application that reads it and is left "
            "as it is"
        )
        dialog.get_by_label("Change claude_desktop_config.json itself instead").check()
        expect(dialog.locator("#save-path")).to_have_text(str(host))
        expect(dialog.locator("#save-note")).to_contain_text(
            "Only the tool_search key of claude_desktop_config.json changes"
        )
        page.locator("#save-confirm").click()
        expect(dialog).to_be_hidden()
        page.close()
    finally:
        process.stop()
    assert host.read_text() == original.replace(
        '"mcpServers": {}\n', '"mcpServers": {},\n  "tool_search": {\n    "enabled": false\n  }\n'
    )


def test_auto_shows_its_decision_and_figures(browser: Browser, tmp_path: Path) -> None:
    config = tmp_path / "toolscout.yaml"
    config.write_text("tool_search:\n  enabled: auto\n  context_window: 1000\n")
    process = DashboardProcess(str(CATALOG_FILE), "--config", str(config))
    try:
        page = open_page(browser, process.url)
        expect(page.locator("#enabled-label")).to_have_text("auto")
        expect(page.locator("#activation")).to_contain_text("tool search auto: on:")
        expect(page.locator("#activation")).to_contain_text("1,000-token context window")
        page.close()
    finally:
        process.stop()
