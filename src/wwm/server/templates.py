"""Web pages from Jinja2 templates, escaped by default.

Every page of wwm is a template: the server's own (its description page, a run's display
page, the run-ended page, the grid picture) in ``wwm/server/templates/``, a feature's in its
own ``templates/`` folder. All extend ``base.html`` (head, icon, style, and the live refresh
of a display page). A feature renders its page through the same function, naming its package::

    render("acl/log.html", package="wwm.acl", title=..., rows=...)

which finds ``log.html`` in ``wwm/acl/templates/`` (named under the package's last part, so no
feature's name can hide one of the server's) and ``base.html`` here. The server imports no
feature: a feature names itself.

Values are HTML-escaped unless a template marks them safe (autoescape for ``.html``, ``.svg``
and ``.xml``), and a name a template uses but is not given fails loudly (``StrictUndefined``).
"""

from __future__ import annotations

import json
import time
from functools import cache
from typing import Any

import jinja2

SERVER = "wwm.server"


@cache
def environment(package: str = SERVER) -> jinja2.Environment:
    """The environment for ``package``'s pages: the server's templates by their own names,
    and, for another package, its ``templates/`` folder under ``<last part of its name>/``."""
    loaders: list[jinja2.BaseLoader] = []
    if package != SERVER:
        prefix = package.rpartition(".")[2]
        loaders.append(jinja2.PrefixLoader({prefix: jinja2.PackageLoader(package, "templates")}))
    loaders.append(jinja2.PackageLoader(SERVER, "templates"))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=jinja2.select_autoescape(["html", "svg", "xml"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["json"] = json.dumps               # a value as JSON text (escaped like any text)
    env.filters["localtime"] = _localtime
    env.policies["json.dumps_kwargs"] = {}         # |tojson keeps a mapping's order, as the page's script sees it
    return env


def render(name: str, /, package: str = SERVER, **context: Any) -> str:
    """The template ``name`` of ``package``'s environment, filled with ``context``."""
    return environment(package).get_template(name).render(context)


def _localtime(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
