"""The dashboard's screenshot in docs/dashboard.md: `python scripts/dashboard_screenshot.py`.

Serves the dashboard on the demo catalog (tool search on, two tools pinned), runs a query in
Debian's Chromium at 1280×800 and writes `docs/dashboard.png`.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "dashboard.png"
TOOLSCOUT = Path(sys.executable).with_name("toolscout")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "toolscout.yaml"
        config.write_text(
            "tool_search:\n  enabled: true\n  always_available: [get_current_time, send_email]\n"
        )
        process = subprocess.Popen(
            [str(TOOLSCOUT), "dashboard", "demo", "--config", str(config), "--port", "0"],
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stderr is not None
            url = ""
            while not url:
                found = re.search(r"(http://\S+)", process.stderr.readline())
                url = found[1] if found else ""
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path="/usr/bin/chromium", args=FLAGS
                )
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(url)
                expect(page.locator("body")).to_have_attribute("data-ready", "true")
                page.locator("#query-input").fill("what's the weather like in Paris tomorrow")
                expect(page.locator("#results .hit").first).to_be_visible()
                page.wait_for_timeout(300)
                OUTPUT.parent.mkdir(exist_ok=True)
                page.screenshot(path=OUTPUT)
                browser.close()
        finally:
            process.terminate()
            process.wait()
    print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
