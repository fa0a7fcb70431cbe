"""A stand-in for a person with a browser, set as `$BROWSER`: opens the page (a GET), follows
its redirects (an authorization server that consents at once sends it back to the gateway's
loopback address with a code), and appends the page's address to $BROWSER_LOG."""

from __future__ import annotations

import os
import sys

import httpx

url = sys.argv[1]
if os.environ.get("BROWSER_LOG"):
    with open(os.environ["BROWSER_LOG"], "a", encoding="utf-8") as file:
        file.write(url + "\n")
httpx.get(url, follow_redirects=True, timeout=30)
