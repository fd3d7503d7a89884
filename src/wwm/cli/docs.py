"""``wwm docs [--port N] [--out DIR] [--build-only] [--open]``: build the documentation site
(MkDocs with the material theme; the API reference read from the docstrings by mkdocstrings)
from the repository's ``mkdocs.yml`` and ``docs/``, strictly (a broken link or a missing API
object fails the build), and serve it on loopback.

The site's sources come with a clone of the repository, not with an installed package, and
the tools with the ``docs`` extra: ``pip install -e '.[docs]'``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..commands import cannot_listen, fail, interrupted, port_number, ready_line

if TYPE_CHECKING:
    from http.server import ThreadingHTTPServer

TOOLS = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")
NOT_INSTALLED = "the documentation tools are not installed; pip install -e '.[docs]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=port_number, default=8000,
                        help="port to serve the site on, on 127.0.0.1 (0: any free port)")
    parser.add_argument("--out", metavar="DIR", type=Path, default=None,
                        help=f"folder to build the site into (default: {_display(default_out())})")
    parser.add_argument("--build-only", action="store_true",
                        help="build the site, print its folder and exit")
    parser.add_argument("--open", action="store_true", help="also open the site in the web browser")


def config_file() -> Path:
    """The repository's ``mkdocs.yml`` (beside ``src/``, where this package's source lives)."""
    return Path(__file__).resolve().parents[3] / "mkdocs.yml"


def default_out() -> Path:
    """``$XDG_CACHE_HOME/wwm/docs-site``, by default ``~/.cache/wwm/docs-site``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "wwm" / "docs-site"


def _display(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home):] if text.startswith(home + os.sep) else text


def tools_missing() -> list[str]:
    """The documentation tools that cannot be imported (empty when all are installed)."""
    import importlib.util

    missing = []
    for name in TOOLS:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # the parent package of a dotted name is missing
            found = False
        if not found:
            missing.append(name)
    return missing


def _usable_out(out: Path) -> str | None:
    """Why ``out`` cannot be built into, or None. MkDocs empties the folder it builds into, so
    only a new or empty folder, or one holding a site built before, is accepted."""
    if out.exists() and not out.is_dir():
        return f"--out {out} is a file, not a folder"
    if out.is_dir() and any(out.iterdir()) and not (
            (out / "index.html").is_file() and (out / "sitemap.xml").is_file()):
        return f"--out {out} holds files that are not a built site; give a new or empty folder"
    return None


def build(config: Path, out: Path) -> tuple[bool, str]:
    """Build the site from ``config`` into ``out`` with ``mkdocs build --strict``; returns
    whether it succeeded and, when it did not, MkDocs's warnings and errors."""
    import subprocess

    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # the theme's banner is not a warning of ours
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean",
                           "-f", str(config), "-d", str(out)],
                          capture_output=True, text=True, env=env)
    if done.returncode == 0:
        return True, ""
    lines = [line for line in (done.stdout + done.stderr).splitlines()
             if line.startswith(("WARNING", "ERROR", "Aborted", "Error", "Traceback")) or line.startswith("  ")]
    return False, "\n".join(lines) or (done.stdout + done.stderr).strip()


def run(args: argparse.Namespace) -> int:
    if tools_missing():
        return fail("docs", NOT_INSTALLED, 2)
    config = config_file()
    if not config.is_file():
        return fail("docs", "the site's sources (mkdocs.yml and docs/) are not here: they come with a clone "
                            "of the repository, not with an installed package", 2)
    out = (args.out or default_out()).expanduser().resolve()
    if problem := _usable_out(out):
        return fail("docs", problem, 2)
    server = None
    if not args.build_only:  # take the port first, so a busy one fails before the build
        try:
            server = _server(out, args.port)
        except OSError as exc:
            return cannot_listen("docs", "127.0.0.1", args.port, exc)
    existed = out.exists()
    try:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            ok, problems = build(config, out)
        except KeyboardInterrupt:
            if not existed:
                import shutil

                shutil.rmtree(out, ignore_errors=True)
                return interrupted("docs", "the site was not built; nothing saved")
            return interrupted("docs", f"the site in {out} may be half built; wwm docs builds it again")
        if not ok:
            # the headline, then MkDocs's own lines: what to mend
            fail("docs", "the site did not build; MkDocs says:")
            print(problems, file=sys.stderr)
            return 1
        if server is None:
            print(out)
            return 0
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        ready_line("the documentation", url)
        if args.open:
            import webbrowser

            webbrowser.open(url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            return interrupted("docs", f"stopped serving; the site stays built in {out}")
        return 0
    finally:
        if server is not None:
            server.server_close()


def _server(folder: Path, port: int) -> ThreadingHTTPServer:
    """A quiet static-file server for ``folder`` on 127.0.0.1:``port`` (bound, not yet serving)."""
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Quiet, directory=str(folder)))
