"""Render pages of the built documentation site to PNG with Playwright and Debian's chromium,
as docs/img/site-*.png were made:

    .venv/bin/python scripts/docs_screenshots.py            # builds the site into a temporary folder

Each page is shown at 1280x900, scrolled to its anchor. The script reports any request that
left the machine (there should be none: the theme's web fonts are off).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = {"site-getting-started": "getting-started/#a-first-mind", "site-api": "api/#wwm.connect"}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="wwm-site-") as site:
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                        "-f", str(ROOT / "mkdocs.yml"), "-d", site], check=True,
                       env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                   "-d", site], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), 0.2).close()
                    break
                except OSError:
                    time.sleep(0.05)
            base = f"http://127.0.0.1:{port}/"
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                outside: list[str] = []
                page.on("request", lambda r: r.url.startswith(base) or outside.append(r.url))
                for name, path in PAGES.items():
                    page.goto(base + path, wait_until="networkidle")
                    target = ROOT / "docs" / "img" / f"{name}.png"
                    page.screenshot(path=str(target))
                    print(target.relative_to(ROOT))
                browser.close()
        finally:
            server.terminate()
    if outside:
        print("requests that left the machine:", *outside, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
