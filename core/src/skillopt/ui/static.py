"""The dashboard's page, scripts, styles and the vendored chart library, served from
package data (nothing from a CDN: the dashboard and the report work offline).

Scripts are classic (not modules) and share one ``SO`` namespace, so the static report
can inline the same files in the same order.
"""

from __future__ import annotations

import re
from importlib import resources

#: the scripts of the app, in load order (``report.py`` inlines the shared ones)
SHARED_SCRIPTS = ("vendor/uPlot.iife.min.js", "common.js", "charts.js", "diff.js", "frontier.js")
APP_SCRIPTS = ("api.js", "views_run.js", "views_step.js", "views_compare.js", "views_list.js", "launch.js", "app.js")
STYLES = ("vendor/uPlot.min.css", "app.css")
_NAME = re.compile(r"^(vendor/)?[a-zA-Z0-9_.-]+\.(js|css|svg|html)$")
_TYPES = {"js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "svg": "image/svg+xml",
          "html": "text/html; charset=utf-8"}


def read(name: str) -> bytes | None:
    """A file of the static folder by its plain relative name, or None."""
    if not _NAME.match(name) or ".." in name:
        return None
    node = resources.files("skillopt.ui").joinpath("static", *name.split("/"))
    try:
        return node.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def asset(url_path: str) -> tuple[bytes, str] | None:
    """(body, content type) for a URL path outside ``/api/``: the page, a static file, the icon."""
    if url_path in ("/", "/index.html"):
        name = "index.html"
    elif url_path == "/favicon.ico":
        name = "favicon.svg"
    elif url_path.startswith("/static/"):
        name = url_path[len("/static/"):]
    else:
        return None
    body = read(name)
    return (body, _TYPES[name.rsplit(".", 1)[-1]]) if body is not None else None


def text(name: str) -> str:
    body = read(name)
    if body is None:
        raise FileNotFoundError(name)
    return body.decode("utf-8")
