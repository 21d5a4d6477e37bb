"""A real headless Chromium for the dashboard and report tests.

Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them), driven by
Selenium with both paths given, so neither Selenium Manager nor anything else downloads
a browser. Every test reads the browser's console: a SEVERE entry (an uncaught script
error, a failed resource) fails it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")
TOKEN = "browser-token-0123456789abcdef"


def _find(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").is_file() else None)
        if found:
            return found
    return None


def require_browser() -> tuple[str, str]:
    """(chromium, chromedriver) paths; skips the test where they are not installed,
    except under CI, where their absence is a failure (``.ci/run`` installs them)."""
    chromium, driver = _find("chromium", "chromium-browser"), _find("chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        chromium = None
    if chromium and driver:
        return chromium, driver
    message = "headless Chromium tests need Debian's chromium + chromium-driver and PyPI selenium"
    if os.environ.get("CI"):
        pytest.fail(message + " (.ci/run installs them)")
    pytest.skip(message)


def make_driver(width: int = 1440, height: int = 900):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = require_browser()
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never fetch anything
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='skillopt-chromium-')}")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver_path), options=options)


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module (starting one costs about a second)."""
    drv = make_driver()
    yield drv
    drv.quit()


@pytest.fixture
def driver(browser):
    """The module's browser on a blank page, its console drained of what the previous
    test's page logged after its server stopped."""
    browser.get("about:blank")
    console_errors(browser)
    return browser


def console_errors(driver, allow: tuple[str, ...] = ()) -> list[str]:
    """SEVERE browser-console entries since the last call (the log drains on read)."""
    return [e["message"] for e in driver.get_log("browser")
            if e["level"] == "SEVERE" and not any(a in e["message"] for a in allow)]


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition", every: float = 0.1) -> Any:
    """Poll until ``predicate()`` is truthy; its value. Page errors along the way propagate."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except (NoSuchElementException, StaleElementReferenceException):
            last = None
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


def js(driver, script: str, *args: Any) -> Any:
    return driver.execute_script(script, *args)


def click_id(driver, element_id: str, timeout: float = 10.0) -> None:
    """Click the element with ``element_id``, finding it again when the page re-rendered it
    between the find and the click (the dashboard redraws on every poll)."""

    def attempt() -> bool:
        driver.find_element("id", element_id).click()
        return True

    wait_for(attempt, timeout=timeout, what=f"a click on #{element_id}")


def text_of(driver, selector: str) -> str:
    return js(driver, "const n = document.querySelector(arguments[0]); return n ? n.innerText : null;", selector) or ""


class Served:
    """A dashboard on 127.0.0.1 over ``roots`` (``stop`` leaves the runs it launched
    running, as a dashboard that crashes or restarts does)."""

    def __init__(self, roots: list[Path], launch_root: Path | None = None, **kw: Any):
        from skillopt.ui.server import Dashboard, make_server

        self.dashboard = Dashboard(list(roots), launch_root=launch_root or roots[0], token=TOKEN, poll_s=0.1, **kw)
        self.server = make_server(self.dashboard, "127.0.0.1", 0)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, fragment: str = "") -> str:
        return f"http://127.0.0.1:{self.port}/?token={TOKEN}{fragment}"

    def stop(self, *, kill_launched: bool = True) -> None:
        if kill_launched:
            self.dashboard.launcher.stop_all()
        self.dashboard.stopping.set()
        self.server.shutdown()
        self.server.server_close()


def screenshot(driver, name: str) -> None:
    """Save a full-page screenshot under ``$SKILLOPT_SCREENSHOTS`` when set (to look at)."""
    folder = os.environ.get("SKILLOPT_SCREENSHOTS")
    if not folder:
        return
    width = js(driver, "return window.innerWidth")
    height = js(driver, "return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(max(height, 900), 6000))
    time.sleep(0.4)
    Path(folder).mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(Path(folder) / f"{name}.png"))
